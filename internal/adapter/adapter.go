// Package adapter reads the outputs of the standard benchmark tools — pgbench,
// sysbench, fio, redis-benchmark, memtier_benchmark, YCSB (go-ycsb and Java),
// mysqlslap, go-tpc, HammerDB — into fairbench's result model, and builds their command lines
// from a study cell, so that runs made by those tools sit in the same results
// file, reports and comparisons as native runs.
//
// One file per tool, whose init registers it with one Register(Tool{…})
// declaring all it can do. Each tool has Detect(text) (does this text come
// from the tool?) and Parse(name, text) (the runs it holds). Parsers are
// strict: a line they expect but cannot read stops the parse with the file
// name and line number, because a half-read result stored as if complete is
// worse than none.
// Parsers are written against real outputs only (testdata/, each with the
// command that made it).
package adapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Tool is one external benchmark tool.
type Tool struct {
	Name string // as users write it: "pgbench", "sysbench", ...
	// Kind is the fairbench workload kind the tool's runs correspond to, so that
	// they group and compare with native runs of that kind.
	Kind string
	// DetectOrder places the tool in detection order: import tries the
	// tools' Detect by ascending DetectOrder and takes the first that
	// claims a file, so formats that are easy to tell apart come first and
	// a loose detector never claims another tool's output. Each tool has
	// its own, which makes the order the same whatever order the tools'
	// files register in.
	DetectOrder int
	// Formats says which of the tool's outputs Parse reads ("pgbench 11–18
	// text output (…)"): Supported lists them in detection order.
	Formats string
	// Detect reports whether text is an output of this tool.
	Detect func(text string) bool
	// JSONOutput says the tool's output is one JSON document its parser
	// decodes whole (fio's, after any notes fio prints before it): the
	// decoder tells a cut document from a damaged one itself, so Parse
	// neither judges the output by its last line break nor reads a parse
	// error on its last line as a cut.
	JSONOutput bool
	// Parse reads every run in text. name is the file name, for errors.
	Parse func(name, text string) ([]*result.Run, error)
	// ParseReader, when set, is Parse reading a line-oriented output from a
	// reader line by line: import streams an output of the tool larger than
	// detectPrefix from its file instead of reading it whole (pgbench's, a
	// progress line per second of a days-long run).
	ParseReader func(name string, r io.Reader) ([]*result.Run, error)
	// Logs, when set, recognises the tool's side files (pgbench -l logs, fio's
	// bw/lat/iops logs) by file name and content...
	IsLog func(name, text string) bool
	// ...and AttachLogs adds them to the runs parsed from the main output.
	AttachLogs func(runs []*result.Run, logs []File) error
	// AttachLogDir, when set, says that Build asks the tool for those side
	// files in Invocation.LogDir (pgbench -l), and reads them from there into
	// the run parsed from the tool's output: a study cell's run then has the
	// distribution the output alone lacks.
	AttachLogDir func(runs []*result.Run, dir string) error
	// Complete, when set, checks a run parsed from the tool's output once
	// import has added what its flags say: it names what the output cannot
	// tell and the user must give (sysbench does not print its test).
	Complete func(r *result.Run) error
	// Once, when set, matches a line each output of the tool prints exactly
	// once: a second match means two outputs were concatenated into one file,
	// which is refused at that line rather than read as one run.
	Once *regexp.Regexp
	// Identity, when set, says which run a parsed (or stored) run of the
	// tool is, so that import stores a run once even when it is given two of
	// the tool's output files of it (see RunIdentity). Tools without it have
	// one output format, and import skips only a file it already holds.
	Identity func(r *result.Run) *RunIdentity
	// Unsupported says why the tool is recognised but not read yet.
	Unsupported string
	// Build, when set, makes the command line a study cell runs the tool
	// with; Install says how to get the binary when it is missing.
	Build   func(Invocation) (Command, error)
	Install string
	// Binary is the executable Build runs when it is not named like the
	// tool (tool = "ycsb" runs go-ycsb); see Executable.
	Binary string
	// Load, when set, makes the command that loads the data set a cell's
	// runs need (go-ycsb load), run before the cell's first run. For a tool
	// with AttachLogDir, the load too gets a private Invocation.LogDir.
	Load func(Invocation) (*DataLoad, error)
	// OwnWarmup says that Build puts the cell's warm-up (Invocation.Warmup)
	// into the measured run itself (HammerDB's ramp-up): the runner runs no
	// separate warm-up run.
	OwnWarmup bool
	// Writes, when set, says what the cell's runs of the tool write on the
	// target besides data a load or the native workload made and marked
	// (redis-benchmark's keys, fio's files): the runner refuses to run over
	// keys that are there already unless --replace, gives the runs a
	// directory of their own, and removes what they wrote afterwards.
	Writes func(Invocation) (Footprint, error)
	// ImportFlags are the flags of `fairbench import` that fill in what the
	// tool's output does not say (see ImportFlag).
	ImportFlags []ImportFlag
	// KindParams, when set, are the parameters of Kind that a study cell of
	// the tool binds, for a kind fairbench has no native workload of (fio,
	// mysqlslap) or a build without it (the runner's tests): see KindParams.
	// One tool of a kind declares them; its other tools share them.
	KindParams []params.Spec
	// KindInfo, when set, is what reports need of Kind when no native
	// workload registers it (fio's headline and per-direction sections):
	// Register registers it with internal/kinds under Kind. One tool of a
	// kind declares it.
	KindInfo *kinds.Info
	// Live, when set, reads one line of the tool's output as the tool
	// runs: a per-second progress line (pgbench -P 1, sysbench
	// --report-interval=1) gives the time since the tool started and that
	// interval's point, for the live page's chart while a study cell of the
	// tool runs; ok is false for every other line.
	Live func(line string) (at time.Duration, pt result.SeriesPoint, ok bool)
	// FromLine, when set, reads the tool's own command line (the arguments
	// after its program's name) as a study cell of the tool, for a kind no
	// native workload reads a line of ('fairbench study from-commands'):
	// the target, the clients levels and the parameters, or the error that
	// names the option it cannot take.
	FromLine func(args []string) (ToolLine, error)
}

// ToolLine is a tool's command line as a study cell of the tool.
type ToolLine struct {
	URL     string
	Clients []int
	Params  map[string]any
	// Password is set when the line gave one, which the study leaves out.
	Password bool
}

// Invocation is what a command builder needs from a study cell. It is a
// plain struct rather than the study's cell so that this package stays below
// the study package.
type Invocation struct {
	URL          string
	Clients      int
	Duration     time.Duration
	Params       params.Values
	Rate         float64       // operations per second over all clients; 0 = closed loop
	LatencyLimit time.Duration // pgbench -L
	MaxTries     int
	// Threads caps the tool's client threads (pgbench -j); 0 = one per client.
	Threads int
	// LogDir, for a tool with AttachLogDir, is an empty directory the tool
	// writes its side logs into; "" for none. The runner makes it private
	// (mode 0700) and removes it after the run, so a tool's generated input
	// files holding secrets can go there too (HammerDB's script).
	LogDir string
	// Warmup, for a tool with OwnWarmup, is the cell's warm-up, which the
	// measured run starts with.
	Warmup time.Duration
	// WorkDir, for a tool whose Footprint has a Dir, is the directory the
	// runner made inside it for the cell's files; "" before the runner has
	// made it (checking a cell before the study starts).
	WorkDir string
}

// Command is one tool execution. Secrets travel in Env (PGPASSWORD,
// MYSQL_PWD, REDISCLI_AUTH), never in Argv, which is stored with the run.
type Command struct {
	Argv []string
	Env  []string
	// Dir is the working directory; "" for the runner's own.
	Dir string
}

// Footprint is what a cell's runs of a tool write.
type Footprint struct {
	// Keys are the keys the runs may write on a key-value target.
	Keys ownership.KeySet
	// Dir, when set, is the directory the tool writes its files in: the
	// runner makes a new directory inside it for the cell
	// (Invocation.WorkDir), which the tool writes in instead, and removes
	// it after the cell's last run unless Keep.
	Dir  string
	Keep bool
}

// Executable is the program a study cell of the tool needs on the PATH.
func (t *Tool) Executable() string {
	if t.Binary != "" {
		return t.Binary
	}
	return t.Name
}

// DataLoad is how a tool loads its data set into a target.
type DataLoad struct {
	Command Command
	// Tables are the tables Command (re)creates, dropping them first, on a
	// SQL target (go-ycsb's one, go-tpc's nine); none when the target has no
	// tables (Redis). The runner lets the load replace only tables fairbench
	// made, as recorded under Dataset in fairbench's dataset markers, with
	// Params describing the data.
	Tables          []string
	Dataset, Params string
	// Check reads the load's output and says whether every record went in.
	Check func(out string) error
	// WholeDatabase says that the load builds into an empty database and
	// refuses any table in it (HammerDB's buildschema), fairbench's marker
	// tables included: the runner lets it run on a database with no table,
	// or on one whose only tables are Tables, which fairbench's marker of
	// Dataset claims, and the marker tables; it then runs Clear (dialect →
	// statements that remove what the previous load made), drops the
	// marker tables, and writes the marker again after the load.
	WholeDatabase bool
	Clear         map[string][]string
}

// File is one input file: its name (for errors and log matching) and text.
type File struct {
	Name string
	// Text is the file's text; for a streamed output (see streamed), only
	// its first detectPrefix bytes.
	Text string
	// path and size, for a streamed output: the file its parser reads line
	// by line, and its size when it was opened.
	path string
	size int64
}

// streamed reports whether the file is an output its tool's parser reads
// from the file line by line (Tool.ParseReader) rather than from Text.
func (f File) streamed() bool { return f.path != "" }

// detect returns the tool that produced text, or nil, judged from the
// text's first detectPrefix bytes.
func detect(text string) *Tool { return detectIn(text) }

// parse detects the tool and parses text. An unknown format is an error that
// lists what is supported.
func parse(name, text string) (*Tool, []*result.Run, error) {
	t, err := detected(name, text)
	if err != nil {
		return t, nil, err
	}
	runs, err := t.Parse(name, text)
	runs, err = settle(t, name, runs, err, func() (outputShape, error) { return textShape(t, name, text), nil })
	return t, runs, err
}

// detected is the tool whose output text is, or why there is none.
func detected(name, text string) (*Tool, error) {
	t := detect(text)
	if t == nil {
		return nil, fmt.Errorf("%s: not an output fairbench can read; supported: %s", name, Supported())
	}
	if t.Unsupported != "" {
		return t, fmt.Errorf("%s: looks like %s output, which is not supported yet: %s", name, t.Name, t.Unsupported)
	}
	return t, nil
}

// outputShape is what Parse checks of an output besides what its parser
// read: how it ends, and where the tool's Once line appears.
type outputShape struct {
	lines int   // line breaks + 1
	cut   error // cutShort's verdict
	json  bool  // the output is a whole JSON document
	once  []int // the lines where t.Once matches, the first two
}

// textShape is the shape of an output read whole.
func textShape(t *Tool, name, text string) outputShape {
	s := outputShape{lines: strings.Count(text, "\n") + 1, cut: cutShort(name, text)}
	s.json = !t.JSONOutput && json.Valid([]byte(text))
	if t.Once != nil {
		for _, loc := range t.Once.FindAllStringIndex(text, 2) {
			s.once = append(s.once, strings.Count(text[:loc[0]], "\n")+1)
		}
	}
	return s
}

// settle checks the runs a tool's parser read from an output of the given
// shape, and completes them: a parse that stopped on the last line of an
// output cut mid-line stopped because of the cut, which the error says.
func settle(t *Tool, name string, runs []*result.Run, err error, shape func() (outputShape, error)) ([]*result.Run, error) {
	if err != nil {
		// JSON is the exception: its decoder tells a cut from damage itself.
		var pe *ParseError
		if t.JSONOutput || !errors.As(err, &pe) || errors.Is(err, errJSONDecoder) {
			return nil, err
		}
		s, serr := shape()
		if serr != nil {
			return nil, serr
		}
		if s.cut != nil && (pe.Line == 0 || pe.Line >= s.lines) {
			if pe.Line == 0 {
				return nil, s.cut
			}
			return nil, &ParseError{File: name, Line: pe.Line, Msg: pe.Msg + " (the line ends without a line break: the output is truncated)"}
		}
		return nil, err
	}
	s, err := shape()
	if err != nil {
		return nil, err
	}
	// JSON (fio's, OSB's test_run.json): the decoder tells a cut document,
	// and OSB writes its JSON without a final line break.
	if !t.JSONOutput && !s.json && s.cut != nil {
		return nil, s.cut
	}
	if err := concatenated(t, name, s.once); err != nil {
		return nil, err
	}
	for i, r := range runs {
		if err := validRun(name, r); err != nil {
			if len(runs) > 1 {
				return nil, fmt.Errorf("run %d of %d: %w", i+1, len(runs), err)
			}
			return nil, err
		}
	}
	for _, r := range runs {
		r.Source = t.Name
		if r.Kind == "" {
			r.Kind = t.Kind
		}
		r.Status = result.StatusOK
	}
	return runs, nil
}

// Input is one tool output with the side files that belong to it.
type Input struct {
	Main File
	Logs []File
}

// Group sorts files into main outputs and the log files that belong to them:
// a log belongs to the one main output of its tool in the same directory.
// Files nothing recognises are returned as main outputs, so that parsing them
// reports the unknown format.
func Group(files []File) ([]Input, error) {
	var inputs []Input
	type pending struct {
		tool *Tool
		file File
	}
	var logs []pending
	for _, f := range files {
		if t := logOf(f.Name, f.Text); t != nil {
			logs = append(logs, pending{t, f})
		} else {
			inputs = append(inputs, Input{Main: f})
		}
	}
	for _, l := range logs {
		dir := filepath.Dir(l.file.Name)
		var owners []int
		for i, in := range inputs {
			if filepath.Dir(in.Main.Name) == dir && l.tool.Detect(head(in.Main.Text, detectPrefix)) {
				owners = append(owners, i)
			}
		}
		switch len(owners) {
		case 0:
			return nil, fmt.Errorf("%s: a %s log file without a %s output in the same directory to attach it to", l.file.Name, l.tool.Name, l.tool.Name)
		case 1:
			inputs[owners[0]].Logs = append(inputs[owners[0]].Logs, l.file)
		default:
			var names []string
			for _, i := range owners {
				names = append(names, inputs[i].Main.Name)
			}
			return nil, fmt.Errorf("%s: a %s log file, but %s outputs in the same directory could own it (%s): put each run's output and logs in a directory of their own",
				l.file.Name, l.tool.Name, l.tool.Name, strings.Join(names, ", "))
		}
	}
	for i := range inputs {
		sort.Slice(inputs[i].Logs, func(a, b int) bool { return inputs[i].Logs[a].Name < inputs[i].Logs[b].Name })
	}
	return inputs, nil
}

// ParseInput parses a main output and attaches its log files.
func ParseInput(in Input) (*Tool, []*result.Run, error) {
	parse := func() (*Tool, []*result.Run, error) { return parse(in.Main.Name, in.Main.Text) }
	if in.Main.streamed() {
		parse = func() (*Tool, []*result.Run, error) { return parseStreamed(in.Main) }
	}
	t, runs, err := parse()
	if err != nil {
		return t, nil, err
	}
	if len(in.Logs) > 0 {
		if t.AttachLogs == nil {
			return t, nil, fmt.Errorf("%s: %s has no log files to attach", in.Main.Name, t.Name)
		}
		if err := t.AttachLogs(runs, in.Logs); err != nil {
			return t, nil, err
		}
	}
	return t, runs, nil
}

// concatenated refuses a file that holds two outputs of a tool whose output
// is one run: the line where the second output starts is named (once holds
// the lines where the tool's Once matched). Tools whose output is a list of
// runs (redis-benchmark's tests, mysqlslap's concurrency levels) have no
// Once: each run of a concatenation is imported.
func concatenated(t *Tool, name string, once []int) error {
	if len(once) < 2 {
		return nil
	}
	return &ParseError{File: name, Line: once[1], Msg: fmt.Sprintf("a second %s output starts here (the first at line %d): two outputs concatenated into one file; put each in a file of its own", t.Name, once[0])}
}
