package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// Hostile values on the command line are refused with one line naming the
// flag, before anything is created: each of these crashed, hung or ran on
// main (out of memory, a panic in Int64N, NaN stored as a scale, a key
// range of 0 that memtier refuses, 10^12 clients).
func TestHostileFlagValuesRefusedNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "kv", "--data-size", "99999999999"}, "--data-size: data_size must be at most"},
		{[]string{"--workload", "kv", "--data-size-range", "1-99999999999"}, "data_size_range 1-99999999999"},
		{[]string{"--workload", "kv", "--key-zipf-exp", "NaN"}, "--key-zipf-exp: key_zipf_exp must be a finite number"},
		{[]string{"--workload", "kv", "--key-stddev", "Inf"}, "--key-stddev: key_stddev must be a finite number"},
		{[]string{"--workload", "kv", "--key-median", "NaN"}, "--key-median: key_median must be a finite number"},
		{[]string{"--workload", "kv", "--key-maximum", "0"}, "--key-maximum: key_maximum must be at least 1"},
		{[]string{"--workload", "kv", "--rate-limiting", "NaN"}, "--rate-limiting must be a finite number"},
		{[]string{"--workload", "kv", "-c", "1000000000000"}, "--clients must be at most 1000000"},
		{[]string{"--workload", "ycsb", "-p", "fieldlength=99999999999"}, "fieldlength=\"99999999999\": must be within"},
		{[]string{"--workload", "ycsb", "-p", "fieldcount=99999999"}, "fieldcount=\"99999999\": must be within"},
		{[]string{"--workload", "ycsb", "-p", "recordcount=-5"}, "recordcount=\"-5\": must be within"},
		{[]string{"--workload", "ssb", "--scale", "Inf"}, "--scale: scale must be a finite number"},
		{[]string{"--workload", "ssb", "--scale", "NaN"}, "--scale: scale must be a finite number"},
		{[]string{"--workload", "ssb", "--scale", "1e9"}, "--scale: scale must be at most 10000"},
		{[]string{"--workload", "clickbench", "--rows", "99999999999999"}, "--rows: rows must be at most"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			dir := t.TempDir()
			// A target that speaks the workload: kv on sqlite: is refused
			// before its flags are checked.
			target := "sqlite:x.db"
			if tc.args[1] == "kv" {
				target = "bbolt:x.db"
			}
			o := fairbench(t, dir, append([]string{"run", "--target", target}, tc.args...)...)
			assertOneLineError(t, o, tc.want)
			if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
				t.Fatal("the target was touched (x.db created)")
			}
		})
	}
}

// A study file's hostile values are refused by validate naming the file
// and the line, as they are on the command line.
func TestHostileStudyValuesRefusedByValidateWithTheLine(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"key_zipf_exp = nan", "key_zipf_exp must be a finite number"},
		{"data_size = 99999999999", "data_size must be at most"},
		{"rate = inf", "rate must be a finite number"},
		{"clients = 1000000000000", "more than 1000000"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			dir := t.TempDir()
			st := "[study]\nname = \"hostile\"\n\n[[target]]\nname = \"b\"\nurl = \"bbolt:x.bolt\"\n\n[[workload]]\nkind = \"kv\"\n" + tc.line + "\n"
			if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
				t.Fatal(err)
			}
			assertOneLineError(t, fairbench(t, dir, "validate", "study.toml"), "study.toml:10:", tc.want)
		})
	}
}

// Clients that cannot fit this machine's memory are refused before
// anything runs, on every engine, naming the memory per client and the
// most clients that fit: 100 000 clients on bbolt reached 23.8 GB on a
// 23 GB machine and ran 31 minutes.
func TestClientsPastMemoryRefusedBeforeAnythingRuns(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", "bbolt:x.bolt", "--workload", "kv", "-c", "1000000", "-t", "1", "--test-time", "1")
	assertOneLineError(t, o, "1000000 clients need about", "per client", "available", "lower clients to at most")
	if _, err := os.Stat(filepath.Join(dir, "x.bolt")); err == nil {
		t.Fatal("the target was touched (x.bolt created)")
	}
}

// Ctrl-C while a thousand clients connect to bbolt stops the setup, which
// says so and how far it got: exit 130, nothing measured. On main the setup
// loop did not look at the context and every client was set up (100 000 of
// them took minutes past Ctrl-C).
func TestSIGINTDuringClientSetupStops(t *testing.T) {
	dir := t.TempDir()
	p := startUntil(t, dir, "connecting 1000 clients", "run", "--target", "bbolt:s.bolt", "--workload", "kv",
		"-c", "1000", "-t", "1", "--test-time", "60")
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("still running two minutes after SIGINT:\n%s", p.errText())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != exitInterrupted || !strings.Contains(p.stdout.String(), "interrupted before the measured phase: nothing was measured") ||
		!strings.Contains(p.errText(), "client setup interrupted: ") {
		t.Fatalf("exit %d, want %d saying nothing was measured\nstdout: %s\nstderr: %s", code, exitInterrupted, p.stdout.String(), p.errText())
	}
	for _, l := range strings.Split(p.errText(), "\n") {
		if strings.Contains(l, "client setup interrupted") {
			t.Log(strings.TrimSpace(l)) // how far the setup got: the signal's timing, not asserted
		}
	}
}

// A results file is input too: every number of a stored run (its summary,
// its fields, its op types' counts and its series' points), set to 10^12,
// the largest and smallest values of its type, -1 or 0, reports in every
// format and compares, without a crash or a hang. A summary that claimed
// 10^12 measured seconds crashed the report, which sized the series'
// columns by the claim.
func TestHostileNumbersInAResultsFileReport(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	series, all, enc := steadyTpcbSeries(t, 10)
	run := func(target string) *result.Run {
		return &result.Run{Source: "fairbench", StudyName: "hostile", StudyHash: "hh", Target: target, TargetURL: "postgres://h/db",
			Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 4, Repetition: 1, Status: result.StatusOK,
			Duration: 10 * time.Second, Summary: result.Summary{Throughput: 1000, Transactions: all.TotalCount(), MeasuredSeconds: 10},
			Ops:    []result.Op{{Name: "tpcb", Count: all.TotalCount(), Histogram: enc}},
			Series: slices.Clone(series)}
	}
	if _, err := s.AppendRun(run("baseline")); err != nil {
		t.Fatal(err)
	}
	// hostile sets every number field of v, one at a time, to each hostile
	// value of its type, in a run of its own target.
	cases := 0
	hostile := func(path string, v reflect.Value, stored func(field string)) {
		for i := range v.NumField() {
			f, name := v.Field(i), path+"."+v.Type().Field(i).Name
			if !f.CanSet() {
				continue
			}
			old := reflect.ValueOf(f.Interface())
			var values []any
			switch f.Kind() {
			case reflect.Int, reflect.Int64:
				values = []any{int64(1e12), int64(math.MaxInt64), int64(math.MinInt64), int64(-1), int64(0)}
			case reflect.Float64:
				values = []any{1e12, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -1.0, 0.0}
			}
			for _, x := range values {
				xv := reflect.ValueOf(x)
				if f.Kind() == reflect.Float64 {
					f.SetFloat(xv.Float())
				} else {
					f.SetInt(xv.Int())
				}
				stored(fmt.Sprintf("%s=%v", name, x))
				cases++
				f.Set(old)
			}
		}
	}
	for _, part := range []string{"Run", "Summary", "Op", "Point"} {
		r := run("")
		add := func(field string) {
			r.Target = field
			stored := *r
			stored.Ops, stored.Series = slices.Clone(r.Ops), slices.Clone(r.Series)
			if _, err := s.AppendRun(&stored); err != nil {
				t.Fatal(err)
			}
		}
		switch part {
		case "Run":
			hostile("Run", reflect.ValueOf(r).Elem(), add)
		case "Summary":
			hostile("Summary", reflect.ValueOf(&r.Summary).Elem(), add)
		case "Op":
			hostile("Op", reflect.ValueOf(&r.Ops[0]).Elem(), add)
		case "Point":
			hostile("Point", reflect.ValueOf(&r.Series[4]).Elem(), add)
		}
	}
	if cases < 100 {
		t.Fatalf("only %d hostile runs: the fields were not reached", cases)
	}
	for _, format := range []string{"text", "md", "html", "json", "csv"} {
		out := filepath.Join(dir, "report."+format)
		if err := writeReport(s, store.Filter{}, format, out); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), "baseline") {
			t.Errorf("%s report names no baseline (%v)", format, err)
		}
		if format == "text" || format == "md" {
			// Past 10^15 a number is written with an exponent: 1.80e+308, not 309 digits.
			if long := regexp.MustCompile(`[0-9][0-9,.]{40,}`).Find(b); long != nil {
				t.Errorf("%s report writes a number of %d characters: %.60s…", format, len(long), long)
			}
		}
	}
	for _, format := range []string{"text", "md", "json", "csv"} {
		out := filepath.Join(dir, "compare."+format)
		root := newRoot()
		root.SetArgs([]string{"compare", "--results", filepath.Join(dir, "fairbench.db"), "--baseline", "baseline", "--format", format, "-o", out})
		if err := root.Execute(); err != nil {
			t.Fatalf("compare --format %s: %v", format, err)
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), "Point.P99=1e+12") {
			t.Errorf("compare --format %s names no hostile target (%v)", format, err)
		}
		if long := regexp.MustCompile(`[0-9][0-9,.]{40,}`).Find(b); long != nil && (format == "text" || format == "md") {
			t.Errorf("compare --format %s writes a number of %d characters: %.60s…", format, len(long), long)
		}
	}
}
