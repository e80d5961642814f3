// Package fromcommands turns a shell file of benchmark command lines
// (pgbench, sysbench, memtier_benchmark, … as their users type them) into
// the equivalent study file: 'fairbench study from-commands'. Each line is
// read as `fairbench run --workload KIND` reads it (adhocline.Parse), the
// kind the one whose peer tools include the line's program
// (workload.CommandLine.Tools); the lines of one shape (kind, target,
// parameters, duration) become one workload whose clients levels are the
// lines' clients, a for-loop's values among them.
package fromcommands

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// MaxFileSize bounds the shell file read: a file of command lines is a few
// kilobytes.
const MaxFileSize = 1 << 20

// unmapped is a line fromcommands could not turn into a study's cell, and why.
type unmapped struct {
	line      int
	text, why string
}

// cell is one mapped run line (one value of its loop).
type cell struct {
	line     int
	text     string
	loop     string // "for t in 1 2 4 8", "" outside a loop
	parsed   adhocline.Parsed
	kind     string
	program  string
	notes    []string
	password bool   // the line gave a password, left out of the study
	tool     string // the tool the cell runs (a tool cell, adapter.Tool.FromLine), "" for a native workload
}

// Result is what a shell file maps to: its cells, the load steps' lines,
// and the lines left unmapped.
type Result struct {
	File     string
	cells    []cell
	loads    []cell
	skipped  []unmapped
	vars     []string // the placeholders left for the user ($PGHOST), in order
	comments []string // what became of lines that are not cells (a load step)
}

// Unmapped are the lines the file has that no study cell stands for, one
// line each: "line N: TEXT: why".
func (r *Result) Unmapped() []string {
	out := make([]string, 0, len(r.skipped))
	for _, u := range r.skipped {
		out = append(out, redact.Scrub(fmt.Sprintf("line %d: %s: %s", u.line, u.text, u.why)))
	}
	return out
}

// varRef is a shell variable as written: $VAR, ${VAR}, $(command).
var varRef = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)|\$\(([^)]*)\)`)

// placeholder is what a variable that is not a loop's stands for while its
// line is parsed: a word a host, user or database name may be, which the
// study file writes back as ${VAR}.
func placeholder(name string) string { return "fbvar" + strings.ToLower(name) + "x" }

// Convert reads the shell text of file name into a Result.
func Convert(name string, text []byte) (*Result, error) {
	toks, err := tokenize(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	cmds, bad := commands(statements(toks))
	r := &Result{File: name, skipped: bad}
	for _, c := range cmds {
		r.convert(c)
	}
	slices.SortStableFunc(r.skipped, func(a, b unmapped) int { return a.line - b.line })
	return r, nil
}

// convert maps one command, once per value of its loop.
func (r *Result) convert(c command) {
	text := strings.Join(c.words, " ")
	words, env := stripPrefixes(c.words)
	if len(words) == 0 {
		return
	}
	kind, args, tool, why := kindOf(words)
	if why != "" {
		r.skipped = append(r.skipped, unmapped{line: c.line, text: text, why: why})
		return
	}
	values := c.loopValues
	if c.loopVar == "" {
		values = []string{""}
	}
	loop := ""
	if c.loopVar != "" {
		loop = "for " + c.loopVar + " in " + strings.Join(c.loopValues, " ")
	}
	for _, v := range values {
		expanded, others := r.expand(args, c.loopVar, v)
		var p adhocline.Parsed
		var err error
		password := false
		if tool != nil {
			p, password, err = toolLine(tool, expanded)
		} else {
			p, err = adhocline.Parse(append([]string{"--workload", kind}, expanded...))
		}
		if err != nil {
			why := err.Error()
			if len(others) > 0 {
				why = fmt.Sprintf("%s (it uses %s where fairbench needs a value: fill it in)", why, strings.Join(others, ", "))
			}
			r.skipped = append(r.skipped, unmapped{line: c.line, text: text, why: why})
			return
		}
		x := cell{line: c.line, text: text, loop: loop, parsed: p, kind: kind, program: path.Base(words[0]), notes: p.Notes}
		if tool != nil {
			x.tool, x.kind = tool.Name, tool.Kind
		}
		x.password = password || urlHasPassword(p.Target) || slices.ContainsFunc(env, func(e string) bool { return strings.Contains(strings.ToUpper(e), "PASS") })
		if len(env) > 0 {
			x.notes = append(x.notes, "the line sets "+strings.Join(env, ", ")+" for the tool: set it in fairbench's environment when running")
		}
		switch p.Action {
		case workload.ActionLoad:
			r.loads = append(r.loads, x)
		case workload.ActionClean:
			r.comments = append(r.comments, fmt.Sprintf("line %d: %s: the peer tool's cleanup; fairbench load --clean drops what fairbench loaded", c.line, text))
		default:
			r.cells = append(r.cells, x)
		}
		if c.loopVar == "" {
			break
		}
	}
}

// expand fills in the loop's variable with value and every other variable
// with its placeholder, which it records; others are the variables the
// arguments use that are not the loop's.
func (r *Result) expand(args []string, loopVar, value string) (out, others []string) {
	out = make([]string, len(args))
	for i, a := range args {
		out[i] = varRef.ReplaceAllStringFunc(a, func(ref string) string {
			m := varRef.FindStringSubmatch(ref)
			name := m[1] + m[2]
			if name != "" && name == loopVar {
				return value
			}
			if name == "" { // $(command)
				name = strings.ToUpper(strings.Join(strings.Fields(m[3]), "_"))
			}
			if !slices.Contains(others, ref) {
				others = append(others, ref)
			}
			if !slices.Contains(r.vars, name) {
				r.vars = append(r.vars, name)
			}
			return placeholder(name)
		})
	}
	return out, others
}

// stripPrefixes drops what runs the command rather than being it: the
// environment assignments before it (returned, by name: their values may
// be passwords), and sudo [-u USER], env, time, nice [-n N].
func stripPrefixes(words []string) (rest, env []string) {
	for len(words) > 0 {
		w := words[0]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			name, _, _ := strings.Cut(w, "=")
			env = append(env, name)
			words = words[1:]
		case w == "sudo" || w == "nice":
			words = words[1:]
			for len(words) > 1 && strings.HasPrefix(words[0], "-") {
				if words[0] == "-u" || words[0] == "-n" {
					words = words[1:]
				}
				words = words[1:]
			}
		case w == "env" || w == "time" || w == "exec":
			words = words[1:]
		default:
			return words, env
		}
	}
	return nil, env
}

// kindOf is the workload a command's program is the peer tool of, and the
// arguments `fairbench run` reads it with; or, for a tool no workload reads
// a line of, the tool whose cell reads it (adapter.Tool.FromLine); why says
// why there is neither.
func kindOf(words []string) (kind string, args []string, tool *adapter.Tool, why string) {
	prog := words[0]
	if path.Base(prog) == "fairbench" {
		if len(words) < 2 || words[1] != "run" {
			return "", nil, nil, "a fairbench command other than run"
		}
		return adhocline.ScanWorkload(words[2:]), words[2:], nil, ""
	}
	for _, k := range workload.Kinds() {
		for _, name := range adhocline.CommandLineOf(k).Tools {
			if name == prog || name == path.Base(prog) {
				return k, words[1:], nil, ""
			}
		}
	}
	if t, ok := adapter.Lookup(path.Base(prog)); ok {
		if t.FromLine != nil {
			return "", words[1:], t, ""
		}
		return "", nil, nil, fmt.Sprintf("no fairbench workload reads %s's command line; a study can run %s itself: a workload with tool = %q and its parameters (%s)",
			t.Name, t.Name, t.Name, strings.Join(paramNames(t), ", "))
	}
	return "", nil, nil, "not a benchmark command fairbench reads"
}

// toolLine reads a tool's line (adapter.Tool.FromLine) in the shape a
// native line's cell has, with every clients level the line gives
// (mysqlslap's --concurrency=1,2,4); password: the line gave one.
func toolLine(t *adapter.Tool, args []string) (p adhocline.Parsed, password bool, err error) {
	l, err := t.FromLine(args)
	if err != nil {
		return p, false, err
	}
	values := map[string][]any{}
	for k, v := range l.Params {
		values[k] = []any{v}
	}
	levels := make([]study.ClientLevel, len(l.Clients))
	for i, n := range l.Clients {
		levels[i] = study.ClientLevel{N: n}
	}
	p = adhocline.Parsed{Kind: t.Kind, Target: l.URL, Action: workload.ActionRun}
	p.Cell.Study = &study.Study{Workloads: []*study.Workload{{Kind: t.Kind, Tool: t.Name, Params: values, Clients: levels}}}
	return p, l.Password, nil
}

func paramNames(t *adapter.Tool) []string {
	var out []string
	for _, s := range t.KindParams {
		out = append(out, s.Name)
	}
	return out
}

// urlHasPassword: the URL's user info has a password.
func urlHasPassword(raw string) bool {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return false
	}
	userinfo, _, ok := strings.Cut(rest, "@")
	return ok && strings.Contains(userinfo, ":")
}
