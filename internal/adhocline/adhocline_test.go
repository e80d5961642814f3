package adhocline_test

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/adhocline"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/workload"
)

// parse reads args as `fairbench run` does, without a command framework:
// the command's own flags, the workload's (for the kind the arguments
// name), the peer tool's spellings, then the cell. The error is the first
// that parsing or reading the cell gives.
func parse(args ...string) (adhocline.Cell, workload.Action, error) {
	var line adhocline.Line
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.StringVar(&line.Target, "target", "", "")
	fs.StringVar(&line.Workload, "workload", workload.Default(), "")
	fs.StringVar(&line.Warmup, "warmup", "0s", "")
	fs.StringArrayVar(&line.Set, "set", nil, "")
	kind := adhocline.ScanWorkload(args)
	flags, err := adhocline.Define(fs, kind, true)
	if err != nil {
		return adhocline.Cell{}, "", err
	}
	args, action, err := adhocline.PeerArgs(args, adhocline.CommandLineOf(kind), fs)
	if err != nil {
		return adhocline.Cell{}, "", err
	}
	if err := fs.Parse(args); err != nil {
		return adhocline.Cell{}, "", err
	}
	line.WarmupGiven = fs.Changed("warmup")
	c, err := flags.Cell(line)
	return c, action, err
}

// param is a cell's one value of parameter name, nil when it has none.
func param(c adhocline.Cell, name string) any {
	if v := c.Study.Workloads[0].Params[name]; len(v) == 1 {
		return v[0]
	}
	return nil
}

// TestCommandLinesMakeTheirCell: a command line in, the typed cell out:
// the fields its peer-style flags set, the parameters, the warm-up, the
// action of the peer tool's words and how the run is shown.
func TestCommandLinesMakeTheirCell(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		check func(c adhocline.Cell, action workload.Action) error
	}{
		{[]string{"--target", "sqlite:x.db", "-c", "8", "-j", "2", "-T", "30s", "-R", "100", "-L", "5", "--max-tries", "3", "-P", "2"},
			func(c adhocline.Cell, _ workload.Action) error {
				w := c.Study.Workloads[0]
				if w.Kind != workload.Default() || w.Clients[0].N != 8 || w.Threads != 2 || c.Study.Duration != 30*time.Second ||
					w.Rate != 100 || w.LatencyLimit != 5*time.Millisecond || w.MaxTries != 3 || c.MaxTries != 3 || c.Progress != 2 {
					return fmt.Errorf("workload %+v, duration %s, progress %d", w, c.Study.Duration, c.Progress)
				}
				return nil
			}},
		// --set first, then the flags: -s wins over --set scale.
		{[]string{"--target", "sqlite:x.db", "--set", "scale=3", "-s", "5", "-S"},
			func(c adhocline.Cell, _ workload.Action) error {
				if param(c, "scale") != int64(5) || param(c, "mode") != "select-only" {
					return fmt.Errorf("scale %v, mode %v; want 5 and select-only", param(c, "scale"), param(c, "mode"))
				}
				return nil
			}},
		// memtier's -c counts connections per thread.
		{[]string{"--target", "bbolt:k.db", "--workload", "kv", "-c", "5", "-t", "3"},
			func(c adhocline.Cell, _ workload.Action) error {
				if w := c.Study.Workloads[0]; w.Clients[0].N != 15 || w.Threads != 3 {
					return fmt.Errorf("clients %d over %d threads; want 15 over 3", w.Clients[0].N, w.Threads)
				}
				return nil
			}},
		{[]string{"--target", "bbolt:k.db", "--workload", "kv", "-c", "5", "-t", "0"},
			func(c adhocline.Cell, _ workload.Action) error {
				if n := c.Study.Workloads[0].Clients[0].N; n != 5*runtime.NumCPU() {
					return fmt.Errorf("clients %d; want 5 per CPU (%d)", n, 5*runtime.NumCPU())
				}
				return nil
			}},
		// memtier's -n is 10000 unless --test-time is given.
		{[]string{"--target", "bbolt:k.db", "--workload", "kv"},
			func(c adhocline.Cell, _ workload.Action) error {
				if param(c, "requests") != int64(10000) {
					return fmt.Errorf("requests %v; want memtier's 10000", param(c, "requests"))
				}
				return nil
			}},
		{[]string{"--target", "bbolt:k.db", "--workload", "kv", "--test-time", "5"},
			func(c adhocline.Cell, _ workload.Action) error {
				if param(c, "requests") != nil || c.Study.Duration != 5*time.Second {
					return fmt.Errorf("requests %v, duration %s; want none and 5s", param(c, "requests"), c.Study.Duration)
				}
				return nil
			}},
		{[]string{"--target", "bbolt:k.db", "--workload", "kv", "--print-percentiles", "50,99", "--json-out-file", "out.json"},
			func(c adhocline.Cell, _ workload.Action) error {
				files := slices.Collect(maps.Values(c.Outputs))
				if len(c.Printing) != 1 || !slices.Equal(files, []string{"out.json"}) {
					return fmt.Errorf("printing %v, outputs %v; want the percentiles and out.json", c.Printing, c.Outputs)
				}
				return nil
			}},
		// A workload's own warm-up flag yields to --warmup given.
		{[]string{"--target", "sqlite:x.db", "--workload", "tpcc", "--rampup", "30s"},
			func(c adhocline.Cell, _ workload.Action) error { return wantWarmup(c, 30*time.Second) }},
		{[]string{"--target", "sqlite:x.db", "--workload", "tpcc", "--rampup", "30s", "--warmup", "5s"},
			func(c adhocline.Cell, _ workload.Action) error { return wantWarmup(c, 5*time.Second) }},
		// bin/ycsb's words and single-dash options.
		{[]string{"--target", "sqlite:x.db", "--workload", "ycsb", "run", "-threads", "4"},
			func(c adhocline.Cell, action workload.Action) error {
				if action != workload.ActionRun || c.Study.Workloads[0].Clients[0].N != 4 {
					return fmt.Errorf("action %q, clients %d; want run and 4", action, c.Study.Workloads[0].Clients[0].N)
				}
				return nil
			}},
		// The target's name is its URL without the password.
		{[]string{"--target", "postgres://bench:s3cret@127.0.0.1/bench"},
			func(c adhocline.Cell, _ workload.Action) error {
				if name := c.Study.Targets[0].Name; strings.Contains(name, "s3cret") || c.Study.Name != adhocline.StudyName {
					return fmt.Errorf("target named %q in study %q", name, c.Study.Name)
				}
				return nil
			}},
	} {
		c, action, err := parse(tc.args...)
		if err == nil {
			err = tc.check(c, action)
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		}
	}
}

func wantWarmup(c adhocline.Cell, want time.Duration) error {
	if c.Study.Warmup != want {
		return fmt.Errorf("warm-up %s, want %s", c.Study.Warmup, want)
	}
	return nil
}

// TestBadCommandLinesSayWhichFlag: a hostile or contradictory command line
// in, the exact error naming the flag at fault out.
func TestBadCommandLinesSayWhichFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "10", "-T", "5"}, "-t/--transactions and -T/--time: specify either a number of transactions (-t) or a duration (-T), not both"},
		{[]string{"--set", "scale"}, `--set "scale": use key=value`},
		{[]string{"--set", "=1"}, `--set "=1": use key=value`},
		{[]string{"--set", "scale=-1"}, "--set scale=-1: scale must be at least 1, got -1"},
		{[]string{"--set", "nope=1"}, `--set nope=1: workload tpcb has no parameter "nope"`},
		{[]string{"-S=maybe"}, "-S/--select-only takes no value"},
		{[]string{"-c", "x"}, `-c/--client must be an integer, got "x"`},
		{[]string{"-c", "0"}, "-c/--client must be at least 1, got 0"},
		{[]string{"-L", "1e9"}, "-L/--latency-limit must be at most 3600000, got 1e+09"},
		{[]string{"-P", "-1"}, "-P/--progress must be at least 0, got -1"},
		{[]string{"--rate", "NaN"}, "-R/--rate must be a finite number, got NaN"},
		{[]string{"--warmup", "soon"}, `--warmup: "soon" is not a duration (use e.g. "30s", "2m" or a number of seconds)`},
		{[]string{"--workload", "kv", "--json-out-file", " "}, "--json-out-file: give the file to write"},
		{[]string{"--workload", "kv", "-c", "100000", "-t", "100"}, "-c/--clients: 10000000 connections over 100 threads exceed 1000000 clients, the most a cell runs: lower it"},
		{[]string{"--workload", "oltp", "--percentile", "101"}, "--percentile must be at most 100, got 101"},
		{[]string{"--workload", "oltp", "--threads", "0"}, "--threads must be at least 1, got 0"},
		{[]string{"--workload", "oltp", "prepare", "cleanup"}, `"prepare" and "cleanup" ask for different things: give one`},
	} {
		_, _, err := parse(append([]string{"--target", "sqlite:x.db"}, tc.args...)...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v\nwant %s", tc.args, err, tc.want)
		}
	}
}

// TestUnknownFlagSaysWhatItMeansElsewhere: a flag the workload does not
// take is looked up in every workload's flags, with the flag of this
// workload that means the same (tpcc's -T/--threads for pgbench's -t, found
// through memtier's -t/--threads).
func TestUnknownFlagSaysWhatItMeansElsewhere(t *testing.T) {
	_, _, err := parse("--target", "sqlite:x.db", "--workload", "tpcc", "-t", "1000")
	if err == nil {
		t.Fatal("tpcc took -t")
	}
	msg := adhocline.ExplainFlagError("run", "tpcc", err)
	for _, want := range []string{"unknown shorthand flag: 't' in -t", "; workload tpcc does not take it, ",
		"kv does (-t/--threads: threads)", "tpcb does (-t/--transactions: transactions each client runs)", "; did you mean -T/--threads?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("lacks %q: %s", want, msg)
		}
	}
	if msg := adhocline.ExplainFlagError("run", "tpcc", errors.New("bad flag syntax: ---x")); msg != "bad flag syntax: ---x" {
		t.Errorf("an error naming no flag became %q", msg)
	}
	if msg := adhocline.ExplainFlagError("run", "tpcc", errors.New("unknown flag: --no-such-flag")); msg != "unknown flag: --no-such-flag; workload tpcc does not take it" {
		t.Errorf("a flag no workload takes: %q", msg)
	}
}

// TestLoadDefinesOnlyParameterFlags: load and queries run nothing: their
// flag set has the parameter flags and none that sets a cell field, and
// Params reads the parameters.
func TestLoadDefinesOnlyParameterFlags(t *testing.T) {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	flags, err := adhocline.Define(fs, "tpcb", false)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("scale") == nil || fs.Lookup("client") != nil || fs.Lookup("time") != nil {
		t.Errorf("load's flags: scale %v, client %v, time %v; want only scale", fs.Lookup("scale") != nil, fs.Lookup("client") != nil, fs.Lookup("time") != nil)
	}
	if err := fs.Parse([]string{"-s", "7"}); err != nil {
		t.Fatal(err)
	}
	w, _ := workload.Get("tpcb")
	got, err := flags.Params([]string{"mode=simple-update"}, "tpcb", w.Params())
	if err != nil || len(got["scale"]) != 1 || got["scale"][0] != int64(7) || got["mode"][0] != "simple-update" {
		t.Errorf("parameters %v, error %v; want scale 7 and mode simple-update", got, err)
	}
}
