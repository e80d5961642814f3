package adhocline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// ScanWorkload finds --workload KIND or --workload=KIND in raw arguments,
// before they are parsed; the default workload when there is none.
func ScanWorkload(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--workload="); ok {
			return v
		}
		if a == "--workload" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return workload.Default()
}

// CommandLineOf is what workload kind declares of its peer tool's command
// line; nothing for an unknown kind (parsing then says it is unknown).
func CommandLineOf(kind string) workload.CommandLine {
	w, err := workload.Get(kind)
	if err != nil {
		return workload.CommandLine{}
	}
	return workload.CommandLineOf(w)
}

// PeerArgs reads args as the workload's peer tool reads its command line
// (cl): PeerLine without its notes.
func PeerArgs(args []string, cl workload.CommandLine, fs *pflag.FlagSet) ([]string, workload.Action, error) {
	p, err := PeerLine(args, cl, fs)
	return p.Args, p.Action, err
}

// Peer is a peer tool's command line read as fairbench's: the arguments
// to parse, the action its words ask for, and notes to say once before
// anything runs (a flag accepted with no effect, a file read as a preset).
type Peer struct {
	Args   []string
	Action workload.Action
	Notes  []string
}

// PeerLine reads args as the workload's peer tool reads its command line
// (cl): first the workload's own Rewrite, then, argument by argument, an
// ignored flag is dropped with a note, --set NAME=VALUE of a peer setting
// becomes its flag, -h followed by a value is the connection's host where
// the connection has -h (pgbench's; -h alone or before a flag stays help),
// an alias in a flag's place becomes the fairbench flag it stands for, a
// positional word the flags it stands for and its action, and the one
// other positional word (not a study file, *.toml) the connection's
// positional part (pgbench's dbname). fs holds the workload's flags, to
// tell a flag that takes a value (whose value is never rewritten) from a
// switch. Arguments after "--" are left alone.
func PeerLine(args []string, cl workload.CommandLine, fs *pflag.FlagSet) (Peer, error) {
	var notes []string
	if cl.Rewrite != nil {
		r, err := cl.Rewrite(args)
		if err != nil {
			return Peer{}, err
		}
		args, notes = r.Args, r.Notes
	}
	if len(cl.Aliases) == 0 && len(cl.Words) == 0 && cl.Connection == nil && len(cl.Ignored) == 0 && len(cl.Settings) == 0 {
		return Peer{Args: args, Notes: notes}, nil
	}
	hostFlag, positional := connectionRewrites(cl.Connection)
	if namesStudyFile(args) {
		// A study file's line: its other words are not a peer's database
		// (`run study.toml --serve 127.0.0.1:8080` means --serve's address).
		positional = ""
	}
	out := make([]string, 0, len(args))
	action, actionWord, positionalGiven := workload.ActionNone, "", false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			out = append(out, args[i:]...)
			break
		}
		if why, ok := cl.Ignored[arg]; ok {
			notes = append(notes, fmt.Sprintf("%s: accepted, no effect: %s", arg, why))
			continue
		}
		if set, ok := setValue(args, &i); ok && len(cl.Settings) > 0 {
			flag, err := settingFlag(set, cl.Settings)
			if err != nil {
				return Peer{}, err
			}
			out = append(out, flag)
			continue
		} else if ok {
			out = append(out, "--set", set)
			continue
		}
		if hostFlag != "" && strings.HasPrefix(arg, "-h") && !strings.HasPrefix(arg, "--") {
			if v := arg[2:]; v != "" {
				out = append(out, "--"+hostFlag+"="+strings.TrimPrefix(v, "="))
				continue
			}
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				out = append(out, "--"+hostFlag, args[i+1])
				i++
				continue
			}
		}
		if r, ok := cl.Aliases[arg]; ok {
			arg = r
		}
		if w, ok := cl.Words[arg]; ok && !strings.HasPrefix(arg, "-") {
			out = append(out, w.Args...)
			if w.Action != workload.ActionNone {
				if action != workload.ActionNone && action != w.Action {
					return Peer{}, fmt.Errorf("%q and %q ask for different things: give one", actionWord, arg)
				}
				action, actionWord = w.Action, arg
			}
			continue
		}
		if positional != "" && !strings.HasPrefix(arg, "-") && !strings.HasSuffix(arg, ".toml") {
			if positionalGiven {
				return Peer{}, fmt.Errorf("%q: the line names its database already; give one positional name (the database), or --%s", arg, positional)
			}
			out = append(out, "--"+positional+"="+arg)
			positionalGiven = true
			continue
		}
		out = append(out, arg)
		if strings.HasPrefix(arg, "-") && takesValue(fs, arg) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return Peer{Args: out, Action: action, Notes: notes}, nil
}

// namesStudyFile says whether a positional word of args is a study file.
func namesStudyFile(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") && strings.HasSuffix(a, ".toml") {
			return true
		}
	}
	return false
}

// setValue is the value of --set at args[*i] (--set NAME=VALUE or
// --set=NAME=VALUE), advancing *i past it; ok is false for another argument.
func setValue(args []string, i *int) (string, bool) {
	if v, ok := strings.CutPrefix(args[*i], "--set="); ok {
		return v, true
	}
	if args[*i] == "--set" && *i+1 < len(args) {
		*i++
		return args[*i], true
	}
	return "", false
}

// settingFlag is --set's NAME=VALUE as the flag of the peer setting NAME
// ("--warehouses=10" for HammerDB's count_ware=10), or --set's own
// argument for a name that is no peer setting (a parameter's).
func settingFlag(set string, settings map[string]workload.Setting) (string, error) {
	name, value, _ := strings.Cut(set, "=")
	s, ok := settings[name]
	switch {
	case !ok:
		return "--set=" + set, nil
	case s.Flag == "":
		return "", fmt.Errorf("--set %s: %s", set, s.Instead)
	}
	if _, err := strconv.ParseFloat(value, 64); err == nil && s.Unit != "" {
		value += s.Unit
	}
	return "--" + s.Flag + "=" + value, nil
}

// connectionRewrites are the connection's flag that -h VALUE stands for
// and the flag its positional word is, "" for none.
func connectionRewrites(c *workload.Connection) (hostFlag, positional string) {
	if c == nil {
		return "", ""
	}
	for _, f := range c.Flags {
		if f.Shorthand == "h" {
			hostFlag = f.Name
		}
		if c.Positional != "" && f.Part == c.Positional && positional == "" {
			positional = f.Name
		}
	}
	return hostFlag, positional
}

// takesValue reports whether arg, a flag without "=value", is one of fs's
// flags that takes its value from the next argument.
func takesValue(fs *pflag.FlagSet, arg string) bool {
	if strings.Contains(arg, "=") {
		return false
	}
	var f *pflag.Flag
	if name, ok := strings.CutPrefix(arg, "--"); ok {
		f = fs.Lookup(name)
	} else if len(arg) == 2 && arg[0] == '-' {
		f = fs.ShorthandLookup(arg[1:])
	}
	return f != nil && f.NoOptDefVal == ""
}

// PeerWords are the positional words of workload kind's peer tool's
// command line, sorted, without the variants of another.
func PeerWords(kind string) []string {
	var words []string
	for w, word := range CommandLineOf(kind).Words {
		if !word.Variant {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	return words
}

// ExplainFlagError is a flag-parsing error of command (run, load) for
// workload kind, followed, for a flag kind does not take, by what the flag
// means in the workloads that take it and which flag of kind has that
// meaning or name (did you mean): one generic lookup over every workload's
// declared flags, no per-flag text.
func ExplainFlagError(command, kind string, err error) string {
	msg := err.Error()
	var name string
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	} else if n, ok := strings.CutPrefix(msg, "unknown shorthand flag: '"); ok {
		name, _, _ = strings.Cut(n, "'")
	}
	if name == "" {
		return msg
	}
	own, elsewhere, theirs := flagElsewhere(kind, name)
	switch {
	case own:
		msg += fmt.Sprintf("; %s takes only the flags of workload %s that set its parameters", command, kind)
	case len(elsewhere) > 0:
		msg += fmt.Sprintf("; workload %s does not take it, %s", kind, strings.Join(elsewhere, " and "))
		if alt := likeFlags(kind, theirs); len(alt) > 0 {
			msg += "; did you mean " + strings.Join(alt, " or ") + "?"
		}
	default:
		msg += fmt.Sprintf("; workload %s does not take it", kind)
	}
	return msg
}

// flagElsewhere looks flag name (long or shorthand) up in every workload's
// declared flags: own when kind declares it, else what it means in each
// other workload that does ("kv does (-t/--threads: threads …)") and the
// flag there.
func flagElsewhere(kind, name string) (own bool, elsewhere []string, theirs []workload.Flag) {
	for _, k := range workload.Kinds() {
		w, _ := workload.Get(k)
		flags, _ := workload.FlagsOf(w)
		for _, f := range flags {
			if f.Name != name && (f.Shorthand == "" || f.Shorthand != name) {
				continue
			}
			if k == kind {
				own = true
			} else {
				elsewhere = append(elsewhere, fmt.Sprintf("%s does (%s: %s)", k, flagName(f), gist(usageOf(w, f))))
				theirs = append(theirs, f)
			}
			break
		}
	}
	return own, elsewhere, theirs
}

// likeFlags are the flags of workload kind that are named as one of theirs
// is, or set the same parameter or cell field.
func likeFlags(kind string, theirs []workload.Flag) []string {
	flags, ok := KindFlags(kind)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range flags {
		for _, o := range theirs {
			if f.Name == o.Name || (f.Param != "" && f.Param == o.Param) || (f.Param == "" && o.Param == "" && f.Field == o.Field) {
				if n := flagName(f); !slices.Contains(out, n) {
					out = append(out, n)
				}
				break
			}
		}
	}
	return out
}

// usageOf is a flag's help text, its parameter's when it has none of its own.
func usageOf(w workload.Workload, f workload.Flag) string {
	if f.Usage == "" && f.Param != "" {
		if spec, ok := params.Find(w.Params(), f.Param); ok {
			return spec.Help
		}
	}
	return f.Usage
}

// gist is a flag's usage up to its first parenthesis, semicolon or comma.
func gist(usage string) string {
	if i := strings.IndexAny(usage, "(;,"); i > 0 {
		usage = usage[:i]
	}
	return strings.TrimSpace(usage)
}
