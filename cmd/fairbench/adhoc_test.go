package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/workload"
)

// adhocFor parses args as `fairbench run` would for the workload they name.
func adhocFor(t *testing.T, args ...string) (*adhoc, *pflag.FlagSet, error) {
	t.Helper()
	a, fs := adhocFlags(t, scanWorkload(args))
	return a, fs, fs.Parse(args)
}

// adhocFlags is the flag set of `fairbench run --workload kind`: the ad-hoc
// flags and the workload's.
func adhocFlags(t *testing.T, kind string) (*adhoc, *pflag.FlagSet) {
	t.Helper()
	a := &adhoc{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.StringVar(&a.target, "target", "", "")
	fs.StringVar(&a.workload, "workload", workload.Default(), "")
	fs.StringVar(&a.warmup, "warmup", "0s", "")
	fs.StringArrayVar(&a.set, "set", nil, "")
	if err := a.defineWorkloadFlags(fs, kind, true); err != nil {
		t.Fatal(err)
	}
	return a, fs
}

func TestAdhocSysbenchFlags(t *testing.T) {
	a, fs, err := adhocFor(t, "--target", "sqlite:x.db", "--workload", "oltp", "--tables", "2", "--table-size", "10000",
		"--threads", "4", "--time", "10", "--report-interval", "1", "--skip-trx=on", "--db-ps-mode", "disable", "--set", "range_size=50")
	if err != nil {
		t.Fatal(err)
	}
	st, c, err := adhocStudy(a, fs)
	if err != nil {
		t.Fatal(err)
	}
	w := st.Workloads[0]
	if w.Clients[0].N != 4 || st.Duration != 10*time.Second || c.progress != 1 || w.Threads != 0 {
		t.Errorf("clients %d, duration %s, progress %d, threads %d; want 4, 10s, 1, 0", w.Clients[0].N, st.Duration, c.progress, w.Threads)
	}
	want := map[string]any{"tables": int64(2), "table_size": int64(10000), "skip_trx": true, "query_mode": "simple", "range_size": int64(50)}
	for k, v := range want {
		if got := w.Params[k]; len(got) != 1 || got[0] != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
}

func TestAdhocSysbenchDefaults(t *testing.T) {
	a, fs, err := adhocFor(t, "--target", "sqlite:x.db", "--workload=oltp")
	if err != nil {
		t.Fatal(err)
	}
	st, c, err := adhocStudy(a, fs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Duration != 10*time.Second || st.Workloads[0].Clients[0].N != 1 || c.maxTries != 1 {
		t.Errorf("defaults: duration %s, clients %d, max tries %d; want sysbench's 10s, 1, 1", st.Duration, st.Workloads[0].Clients[0].N, c.maxTries)
	}
}

func TestAdhocPgbenchFlags(t *testing.T) {
	a, fs, err := adhocFor(t, "--target", "sqlite:x.db", "-S", "-s", "3", "-c", "8", "-j", "2", "-T", "30s", "-R", "100", "-L", "5", "--max-tries", "3", "-n", "-M", "prepared")
	if err != nil {
		t.Fatal(err)
	}
	st, c, err := adhocStudy(a, fs)
	if err != nil {
		t.Fatal(err)
	}
	w := st.Workloads[0]
	if w.Kind != workload.Default() || w.Clients[0].N != 8 || w.Threads != 2 || st.Duration != 30*time.Second ||
		w.Rate != 100 || w.LatencyLimit != 5*time.Millisecond || w.MaxTries != 3 || c.maxTries != 3 {
		t.Errorf("cell %+v, duration %s", w, st.Duration)
	}
	want := map[string]any{"mode": "select-only", "scale": int64(3), "vacuum": false, "query_mode": "prepared"}
	for k, v := range want {
		if got := w.Params[k]; len(got) != 1 || got[0] != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
}

func TestAdhocBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "oltp", "--table-size", "x"}, "--table-size"},
		{[]string{"--workload", "oltp", "--threads", "0"}, "--threads must be at least 1"},
		{[]string{"-c", "0"}, "-c/--client must be at least 1"},
		{[]string{"-c", "1000000000000"}, "-c/--client must be at most 1000000"},
		{[]string{"--rate", "NaN"}, "--rate must be a finite number"},
		{[]string{"-T", "soon"}, "-T/--time"},
		{[]string{"--set", "nope=1"}, "no parameter \"nope\""},
	} {
		a, fs, err := adhocFor(t, append([]string{"--target", "sqlite:x.db"}, tc.args...)...)
		if err == nil {
			_, _, err = adhocStudy(a, fs)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
}

func TestRunWorkloadHelpAndUnknownFlag(t *testing.T) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"run", "--workload", "oltp", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--table-size int", "(default 10000)", "--threads int", "--report-interval", "--time duration"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run --workload oltp --help lacks %q:\n%s", want, out.String())
		}
	}
	if regexp.MustCompile(`--client\b[^-]`).MatchString(out.String()) {
		t.Errorf("oltp's help lists pgbench's --client:\n%s", out.String())
	}

	root = newRoot()
	root.SetOut(&out)
	root.SetArgs([]string{"run", "--target", "sqlite:x.db", "--tables", "2"})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "unknown flag: --tables") || !strings.Contains(err.Error(), "oltp does") {
		t.Errorf("a flag of another workload: %v", err)
	}
}

// `run --check` says what the check found: a workload with a consistency
// check (tpcb's balances) passes it and says so; one without says it has none,
// rather than leaving the user to guess whether anything was checked.
func TestRunCheckSaysWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", "sqlite:c.db", "--workload", "tpcb", "-c", "1", "-T", "1s", "--check")
	if o.code != 0 || !strings.Contains(o.stdout+o.stderr, "consistency check passed") {
		t.Fatalf("tpcb --check: exit %d, want the check's pass said\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "run", "--target", "bbolt:k.db", "--workload", "kv", "-c", "1", "--test-time", "1", "--check")
	if o.code != 0 || !strings.Contains(o.stdout+o.stderr, "--check: workload kv has no consistency check") {
		t.Fatalf("kv --check: exit %d, want it said that kv has no check\n%s%s", o.code, o.stdout, o.stderr)
	}
	// The run whose check passed is stored as verified; the other is not
	// (the unverified note reads it).
	if runs := storedRuns(t, dir); len(runs) != 2 || !runs[0].Summary.Verified || runs[1].Summary.Verified {
		t.Errorf("%d runs stored; want tpcb's verified and kv's not", len(runs))
	}
}

// `fairbench version` prints what -v prints.
func TestVersionCommandIsTheFlags(t *testing.T) {
	dir := t.TempDir()
	cmd, flag := fairbench(t, dir, "version"), fairbench(t, dir, "-v")
	if cmd.code != 0 || flag.code != 0 || !strings.HasPrefix(cmd.stdout, "fairbench version ") || cmd.stdout != flag.stdout {
		t.Fatalf("version: exit %d %q; -v: exit %d %q", cmd.code, cmd.stdout, flag.code, flag.stdout)
	}
}

// A flag another workload takes says what it means there and which flag of
// this workload is named or means the same: pgbench's -t in tpcc points to
// go-tpc's -T/--threads, found through memtier's -t/--threads in kv.
func TestMisusedFlagSaysWhatItMeansElsewhere(t *testing.T) {
	var out strings.Builder
	root := newRoot()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"run", "--target", "sqlite:x.db", "--workload", "tpcc", "-t", "1000"})
	err := root.Execute()
	if err == nil {
		t.Fatal("tpcc took -t")
	}
	for _, want := range []string{"workload tpcc does not take it", "kv does (-t/--threads: threads)",
		"tpcb does (-t/--transactions: transactions each client runs)", "did you mean -T/--threads?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestAdhocSearchDuration: the ad-hoc search takes its measured duration
// from --duration or OSB's --time-period (it had no such flag and always
// measured 60 s), and its warm-up from OSB's --warmup-time-period.
func TestAdhocSearchDuration(t *testing.T) {
	for _, c := range []struct {
		args           []string
		duration, warm time.Duration
	}{
		{nil, 60 * time.Second, 0},
		{[]string{"--duration", "5s"}, 5 * time.Second, 0},
		{[]string{"--time-period", "2m", "--warmup-time-period", "10s"}, 2 * time.Minute, 10 * time.Second},
	} {
		a, fs, err := adhocFor(t, append([]string{"--target", "opensearch://127.0.0.1:9200", "--workload", "search"}, c.args...)...)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		st, _, err := adhocStudy(a, fs)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if st.Duration != c.duration || st.Warmup != c.warm {
			t.Errorf("%q: duration %s, warm-up %s; want %s and %s", c.args, st.Duration, st.Warmup, c.duration, c.warm)
		}
	}
}

// TestAdhocTpccRampupIsHammerDBs: the ad-hoc tpcc ramps up for HammerDB's
// default 2 minutes unless --rampup (or the generic --warmup) says
// otherwise; it had no ramp-up.
func TestAdhocTpccRampupIsHammerDBs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 2 * time.Minute},
		{[]string{"--rampup", "0"}, 0},
		{[]string{"--rampup", "30s"}, 30 * time.Second},
		{[]string{"--warmup", "5s"}, 5 * time.Second},
	} {
		a, fs, err := adhocFor(t, append([]string{"--target", "sqlite:x.db", "--workload", "tpcc"}, c.args...)...)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		st, _, err := adhocStudy(a, fs)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if st.Warmup != c.want || st.Duration != time.Minute {
			t.Errorf("%q: warm-up %s, duration %s; want %s and 1m0s", c.args, st.Warmup, st.Duration, c.want)
		}
	}
}
