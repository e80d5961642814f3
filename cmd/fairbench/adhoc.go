package main

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// Ad-hoc flags belong to the workload (workload.Flagger): `fairbench run
// --target URL --workload KIND` takes that workload's flags, named as its peer
// tool names them. cobra parses flags before it knows the workload, so the
// commands that take them parse their own arguments: withWorkloadFlags.

// adhoc is what the flags of an ad-hoc run or load say.
type adhoc struct {
	target, workload, warmup string
	set                      []string
	// defined are the workload's flags as defined on the command (the
	// generic ones for a workload that declares none).
	defined []definedFlag
}

type definedFlag struct {
	workload.Flag
	value *rawValue
	spec  params.Spec // for a parameter flag
}

// rawValue keeps a flag's text; it is checked against its parameter or field
// after parsing, so that errors name the flag.
type rawValue struct {
	s      string
	typ    string
	repeat bool     // each Set adds to all
	all    []string // the values of a repeated flag, in order
}

func (v *rawValue) String() string { return v.s }
func (v *rawValue) Set(s string) error {
	v.s = s
	if v.repeat {
		v.all = append(v.all, s)
	}
	return nil
}
func (v *rawValue) Type() string { return v.typ }

// genericFlags are the flags of a workload that declares none: the cell
// fields under fairbench's own names; its parameters go through --set.
var genericFlags = []workload.Flag{
	{Name: "clients", Field: workload.FieldClients, Default: "1", Usage: "number of clients (one connection each)"},
	{Name: "threads", Field: workload.FieldThreads, Usage: "threads that drive the clients (default: the CPUs)"},
	{Name: "duration", Field: workload.FieldDuration, Default: "60s", Usage: "measured duration (\"30s\", \"2m\" or seconds)"},
	{Name: "progress", Field: workload.FieldProgress, Usage: "show progress every N seconds"},
	{Name: "rate", Field: workload.FieldRate, Usage: "target rate in operations per second over all clients"},
	{Name: "latency-limit", Field: workload.FieldLatencyLimit, Usage: "with --rate, skip operations already later than this many ms"},
	{Name: "max-tries", Field: workload.FieldMaxTries, Default: "1", Usage: "tries per operation on serialization failure or deadlock"},
}

// fieldDefaults are the cell fields' values when no flag sets them.
var fieldDefaults = map[workload.Field]string{
	workload.FieldClients: "1", workload.FieldDuration: "60s", workload.FieldMaxTries: "1",
}

func fieldType(f workload.Field) string {
	switch f {
	case workload.FieldRate, workload.FieldLatencyLimit:
		return "float"
	case workload.FieldDuration, workload.FieldWarmup:
		return "duration"
	}
	return "int"
}

func paramType(k params.Kind) string {
	switch k {
	case params.Int:
		return "int"
	case params.Float:
		return "float"
	case params.Bool:
		return "bool"
	case params.Duration:
		return "duration"
	}
	return "string"
}

// defineWorkloadFlags defines on fs the flags of workload kind: its declared
// flags, or the generic ones. withFields false leaves out the flags that set
// cell fields (load runs nothing).
func (a *adhoc) defineWorkloadFlags(fs *pflag.FlagSet, kind string, withFields bool) error {
	w, err := workload.Get(kind)
	if err != nil {
		return err
	}
	flags, ok := workload.FlagsOf(w)
	if !ok {
		flags = genericFlags
	}
	specs := w.Params()
	a.defined = nil
	for _, fl := range flags {
		d := definedFlag{Flag: fl}
		if fl.Param == "" && !withFields {
			continue
		}
		typ := fieldType(fl.Field)
		usage := fl.Usage
		def := fl.Default
		if fl.Param != "" {
			spec, ok := params.Find(specs, fl.Param)
			if !ok {
				return fmt.Errorf("workload %s: flag --%s sets %q, which is not one of its parameters", kind, fl.Name, fl.Param)
			}
			d.spec = spec
			typ = paramType(spec.Kind)
			if usage == "" {
				usage = spec.Help
			}
			if def == "" && fl.Switch == "" {
				def = params.Format(spec.Default)
			}
		}
		if fl.Print != nil {
			typ = paramType(fl.Print.Kind)
			if usage == "" {
				usage = fl.Print.Help
			}
			if def == "" {
				def = params.Format(fl.Print.Default)
			}
		}
		if fl.Output != "" {
			typ = "string"
		}
		if fl.Switch != "" {
			typ = "bool"
			def = ""
		}
		d.value = &rawValue{typ: typ, repeat: fl.Repeat}
		pf := fs.VarPF(d.value, fl.Name, fl.Shorthand, usage)
		pf.DefValue = def
		if typ == "bool" {
			pf.NoOptDefVal = "true"
			if pf.DefValue == "" {
				pf.DefValue = "false"
			}
		}
		a.defined = append(a.defined, d)
	}
	return nil
}

// flagName is how errors name a flag: "-c/--client" or "--tables".
func flagName(f workload.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// cell is what the flags say about the ad-hoc cell besides its parameters.
type cell struct {
	clients, threads, progress, maxTries int
	duration                             time.Duration
	warmup                               string // a workload's own warm-up flag (tpcc's --rampup); "" = --warmup
	rate, latencyLimitMS                 float64
	// printing are the workload's printing flags given (workload.Flag.Print);
	// outputs the files its output flags name, by run format.
	printing kinds.Printing
	outputs  map[string]string
}

// values reads the flags given: parameters from --set, then from the
// workload's flags, and the cell's fields.
func (a *adhoc) values(fs *pflag.FlagSet, specs []params.Spec) (map[string][]any, cell, error) {
	values := map[string][]any{}
	for _, kv := range a.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, cell{}, fmt.Errorf("--set %q: use key=value", kv)
		}
		spec, ok := params.Find(specs, k)
		if !ok {
			return nil, cell{}, fmt.Errorf("--set %s: workload %s has no parameter %q", kv, a.workload, k)
		}
		cv, err := params.Coerce(spec, v)
		if err != nil {
			return nil, cell{}, fmt.Errorf("--set %s: %v", kv, err)
		}
		values[k] = []any{cv}
	}
	fields := map[workload.Field]string{}
	for f, v := range fieldDefaults {
		fields[f] = v
	}
	given := map[workload.Field]string{}
	if err := a.exclusions(fs); err != nil {
		return nil, cell{}, err
	}
	var c cell
	for _, d := range a.defined {
		if d.Param == "" && d.Field != "" && d.Default != "" {
			fields[d.Field] = d.Default
		}
		if fs == nil || !fs.Changed(d.Name) {
			if _, set := values[d.Param]; d.DefaultUnless != "" && d.Param != "" && !set && fs != nil &&
				fs.Lookup(d.DefaultUnless) != nil && !fs.Changed(d.DefaultUnless) {
				cv, err := params.Coerce(d.spec, d.Default)
				if err != nil {
					return nil, cell{}, fmt.Errorf("%s: default %q: %v", flagName(d.Flag), d.Default, err)
				}
				values[d.Param] = []any{cv}
			}
			continue
		}
		v := d.value.s
		switch {
		case d.Print != nil:
			spec := *d.Print
			spec.Name = flagName(d.Flag)
			if spec.Kind == params.Bool {
				v = peerBool(v)
			}
			x, err := params.Coerce(spec, v)
			if err != nil {
				return nil, cell{}, err
			}
			if c.printing == nil {
				c.printing = kinds.Printing{}
			}
			c.printing[d.Print.Name] = x
			continue
		case d.Output != "":
			if strings.TrimSpace(v) == "" {
				return nil, cell{}, fmt.Errorf("%s: give the file to write", flagName(d.Flag))
			}
			if c.outputs == nil {
				c.outputs = map[string]string{}
			}
			c.outputs[d.Output] = v
			continue
		}
		if d.Param == "" {
			if m, ok := d.Values[v]; ok {
				v = m // the peer's spelling of the value (sysbench's --time=0)
			}
			fields[d.Field] = v
			given[d.Field] = flagName(d.Flag)
			continue
		}
		if d.Switch != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, cell{}, fmt.Errorf("%s takes no value", flagName(d.Flag))
			}
			if !b {
				continue
			}
			v = d.Switch
		}
		if m, ok := d.Values[v]; ok {
			v = m
		}
		if d.spec.Kind == params.Bool {
			v = peerBool(v)
		}
		var raw any = v
		if d.Repeat {
			raw = d.value.all // one element per use: a value may hold commas
		}
		cv, err := params.Coerce(d.spec, raw)
		if err != nil {
			return nil, cell{}, fmt.Errorf("%s: %v", flagName(d.Flag), err)
		}
		values[d.Param] = []any{cv}
	}
	perThread := ""
	for _, d := range a.defined {
		if d.Field == workload.FieldClients && d.ClientsPerThread {
			perThread = flagName(d.Flag)
		}
	}
	name := func(f workload.Field) string {
		if n, ok := given[f]; ok {
			return n
		}
		return "the default " + string(f)
	}
	for _, f := range workload.Fields() {
		v, ok := fields[f]
		if !ok || v == "" {
			continue
		}
		spec := workload.FieldSpec(f)
		spec.Name = name(f)
		x, err := params.Coerce(spec, v)
		if err != nil {
			return nil, cell{}, err
		}
		switch f {
		case workload.FieldDuration:
			c.duration = x.(time.Duration)
		case workload.FieldWarmup:
			c.warmup = v
		case workload.FieldRate:
			c.rate = x.(float64)
		case workload.FieldLatencyLimit:
			c.latencyLimitMS = x.(float64)
		case workload.FieldClients:
			c.clients = int(x.(int64))
		case workload.FieldThreads:
			c.threads = int(x.(int64))
		case workload.FieldProgress:
			c.progress = int(x.(int64))
		case workload.FieldMaxTries:
			c.maxTries = int(x.(int64))
		}
	}
	if perThread != "" && c.clients > 0 {
		// memtier's -c counts connections per thread.
		threads := c.threads
		if threads <= 0 {
			threads = runtime.NumCPU()
		}
		c.clients *= threads
		if c.clients > params.MaxClients {
			return nil, cell{}, fmt.Errorf("%s: %d connections over %d threads exceed %d clients, the most a cell runs: lower it", perThread, c.clients, threads, params.MaxClients)
		}
	}
	return values, c, nil
}

// exclusions refuses two flags given together that exclude each other.
func (a *adhoc) exclusions(fs *pflag.FlagSet) error {
	if fs == nil {
		return nil
	}
	for _, d := range a.defined {
		if d.Excludes == "" || !fs.Changed(d.Name) || !fs.Changed(d.Excludes) {
			continue
		}
		other := "--" + d.Excludes
		for _, o := range a.defined {
			if o.Name == d.Excludes {
				other = flagName(o.Flag)
			}
		}
		why := d.ExcludesText
		if why == "" {
			why = "give one or the other"
		}
		return fmt.Errorf("%s and %s: %s", flagName(d.Flag), other, why)
	}
	return nil
}

// peerBool reads a peer tool's spelling of a boolean (sysbench's on and
// off) as fairbench's.
func peerBool(v string) string {
	switch strings.ToLower(v) {
	case "on", "yes":
		return "true"
	case "off", "no":
		return "false"
	}
	return v
}

// scanWorkload finds --workload KIND or --workload=KIND in raw arguments,
// before they are parsed; the default workload when there is none.
func scanWorkload(args []string) string {
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

// withWorkloadFlags makes cmd take the flags of the workload its arguments
// name. define adds the command's flags for a workload kind to a fresh flag
// set; cmd's own flags at construction are the default workload's, for
// `fairbench help CMD`. check validates the positional arguments.
//
// The arguments are first read as the workload's peer tool reads its command
// line (peerArgs): YCSB's -threads, sysbench's `oltp_read_write run`; the
// action such a word asks for (prepare, cleanup) is passed to run.
func withWorkloadFlags(cmd *cobra.Command, check cobra.PositionalArgs,
	define func(fs *pflag.FlagSet, kind string) error,
	run func(cmd *cobra.Command, args []string, action workload.Action) error) {
	cmd.DisableFlagParsing = true
	cmd.Args = cobra.ArbitraryArgs
	_ = define(cmd.Flags(), workload.Default())
	workloadFlagDefiners[cmd] = define // completion.go
	cmd.ValidArgsFunction = completeWorkloadArgs(nil, cobra.ShellCompDirectiveNoFileComp)
	describeWorkload(cmd, workload.Default())
	examplesLast(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		kind := scanWorkload(args)
		cmd.ResetFlags()
		if err := define(cmd.Flags(), kind); err != nil {
			return err
		}
		describeWorkload(cmd, kind)
		cmd.InitDefaultHelpFlag()
		args, action, err := peerArgs(args, commandLineOf(kind), cmd.Flags())
		if err != nil {
			return fmt.Errorf("%s: %v (see 'fairbench %s --workload %s --help')", cmd.Name(), err, cmd.Name(), kind)
		}
		cmd.DisableFlagParsing = false // ParseFlags does nothing while it is set
		defer func() { cmd.DisableFlagParsing = true }()
		if err := cmd.ParseFlags(args); err != nil {
			return workloadFlagError(cmd, kind, err)
		}
		if help, _ := cmd.Flags().GetBool("help"); help {
			return cmd.Help()
		}
		rest := cmd.Flags().Args()
		if err := check(cmd, rest); err != nil {
			return unexpectedWords(cmd, kind, rest, err)
		}
		return run(cmd, rest, action)
	}
}

// commandLineOf is what workload kind declares of its peer tool's command
// line; nothing for an unknown kind (parsing then says it is unknown).
func commandLineOf(kind string) workload.CommandLine {
	w, err := workload.Get(kind)
	if err != nil {
		return workload.CommandLine{}
	}
	return workload.CommandLineOf(w)
}

// describeWorkload puts what workload kind declares for its --help on cmd:
// the --target help (which targets it runs on, how their URLs are written)
// and its examples.
func describeWorkload(cmd *cobra.Command, kind string) {
	cl := commandLineOf(kind)
	if f := cmd.Flags().Lookup("target"); f != nil && cl.Targets != "" {
		f.Usage += "; workload " + kind + " runs on " + cl.Targets
	}
	if len(cl.Examples) > 0 {
		cmd.Example = "  " + strings.Join(cl.Examples, "\n  ")
	}
}

// examplesLast moves the Examples section of cmd's help to its end, after
// the flags, where a reader of a long list of a workload's flags finds them.
func examplesLast(cmd *cobra.Command) {
	const examples = "{{if .HasExample}}\n\nExamples:\n{{.Example}}{{end}}"
	t := cmd.UsageTemplate()
	if !strings.Contains(t, examples) {
		return // another cobra's template: left as it is
	}
	t = strings.Replace(t, examples, "", 1)
	cmd.SetUsageTemplate(strings.TrimRight(t, "\n") + examples + "\n")
}

// peerArgs reads args as the workload's peer tool reads its command line
// (cl): an alias in a flag's place becomes the fairbench flag it stands for,
// and a positional word the flags it stands for and its action. fs holds
// the workload's flags, to tell a flag that takes a value (whose value is
// never rewritten) from a switch. Arguments after "--" are left alone.
func peerArgs(args []string, cl workload.CommandLine, fs *pflag.FlagSet) ([]string, workload.Action, error) {
	if len(cl.Aliases) == 0 && len(cl.Words) == 0 {
		return args, workload.ActionNone, nil
	}
	takesValue := func(arg string) bool {
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
	out := make([]string, 0, len(args))
	action, actionWord := workload.ActionNone, ""
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			out = append(out, args[i:]...)
			break
		}
		if r, ok := cl.Aliases[arg]; ok {
			arg = r
		}
		if w, ok := cl.Words[arg]; ok && !strings.HasPrefix(arg, "-") {
			out = append(out, w.Args...)
			if w.Action != workload.ActionNone {
				if action != workload.ActionNone && action != w.Action {
					return nil, "", fmt.Errorf("%q and %q ask for different things: give one", actionWord, arg)
				}
				action, actionWord = w.Action, arg
			}
			continue
		}
		out = append(out, arg)
		if strings.HasPrefix(arg, "-") && takesValue(arg) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out, action, nil
}

// unexpectedWords explains positional arguments the command does not take:
// the words the workload's peer tool's command line has, when it has some.
func unexpectedWords(cmd *cobra.Command, kind string, rest []string, err error) error {
	var words []string
	for w, word := range commandLineOf(kind).Words {
		if !word.Variant {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	if len(words) == 0 || len(rest) == 0 {
		return err
	}
	return fmt.Errorf("%s: %v; workload %s takes these words of its peer tool's command line: %s", cmd.Name(), err, kind, strings.Join(words, ", "))
}

// workloadFlagError says which workload's flags were expected and, when
// other workloads take the flag, what it means in each and which flag of
// this workload has that meaning or name (did you mean): one generic lookup
// over every workload's declared flags, no per-flag text.
func workloadFlagError(cmd *cobra.Command, kind string, err error) error {
	msg := err.Error()
	var name string
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	} else if n, ok := strings.CutPrefix(msg, "unknown shorthand flag: '"); ok {
		name, _, _ = strings.Cut(n, "'")
	}
	if name != "" {
		var elsewhere []string     // "kv does (-t/--threads: threads …)"
		var theirs []workload.Flag // the flag in those workloads
		own := false
		for _, k := range workload.Kinds() {
			w, _ := workload.Get(k)
			flags, _ := workload.FlagsOf(w)
			for _, f := range flags {
				if f.Name == name || (f.Shorthand != "" && f.Shorthand == name) {
					if k == kind {
						own = true
					} else {
						elsewhere = append(elsewhere, fmt.Sprintf("%s does (%s: %s)", k, flagName(f), gist(usageOf(w, f))))
						theirs = append(theirs, f)
					}
					break
				}
			}
		}
		switch {
		case own:
			msg += fmt.Sprintf("; %s takes only the flags of workload %s that set its parameters", cmd.Name(), kind)
		case len(elsewhere) > 0:
			msg += fmt.Sprintf("; workload %s does not take it, %s", kind, strings.Join(elsewhere, " and "))
			if alt := likeFlags(kind, theirs); len(alt) > 0 {
				msg += "; did you mean " + strings.Join(alt, " or ") + "?"
			}
		default:
			msg += fmt.Sprintf("; workload %s does not take it", kind)
		}
	}
	return fmt.Errorf("%s: %s (see 'fairbench %s --workload %s --help')", cmd.Name(), msg, cmd.Name(), kind)
}

// likeFlags are the flags of workload kind that are named as one of theirs
// is, or set the same parameter or cell field.
func likeFlags(kind string, theirs []workload.Flag) []string {
	flags, ok := kindFlags(kind)
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

// kindFlags returns the flags workload kind declares, or the generic ones
// when it declares none; ok is false for a kind that is not registered.
func kindFlags(kind string) (flags []workload.Flag, ok bool) {
	w, err := workload.Get(kind)
	if err != nil {
		return nil, false
	}
	if flags, ok := workload.FlagsOf(w); ok {
		return flags, true
	}
	return genericFlags, true
}
