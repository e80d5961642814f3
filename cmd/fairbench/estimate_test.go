package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate's estimate is what runs: a query set's tries have no warm-up and
// end when the tries are done, and a YCSB cell with operationcount ends when
// its operations are done; their bounds are said as "at most", never as the
// time the study takes, and a cell that ran before is estimated by its last
// stored run (issue 40 item 9). A duration-bound study is still
// (warm-up + duration + cool-down) × cells × repetitions.
func TestValidateEstimateSaysWhatBoundsACell(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	estimate := func(file string) string {
		t.Helper()
		o := fairbench(t, dir, "validate", file)
		est := ""
		if o.code != 0 {
			t.Fatalf("validate %s: exit %d\n%s", file, o.code, o.stderr)
		}
		for _, l := range strings.Split(o.stdout, "\n") {
			if rest, ok := strings.CutPrefix(l, "estimated duration "); ok {
				est = rest
			} else if est != "" {
				return est + "\n" + strings.TrimSpace(l)
			}
		}
		t.Fatalf("validate %s prints no estimate:\n%s", file, o.stdout)
		return ""
	}
	const targets = `[[target]]
name = "a"
url = "sqlite:a.db"
[[target]]
name = "b"
url = "sqlite:b.db"
`
	// 2 targets × 2 repetitions of 13 SSB queries × 3 tries, each try up
	// to 20 s (+1 s of slack per try, +1 try): 4 × 40 × 21 s.
	tries := estimate(write("tries.toml", `[study]
name = "tries"
repetitions = 2
warmup = "5s"
duration = "60s"
`+targets+`[[workload]]
kind = "ssb"
scale = 0.01
tries = 3
timeout = "20s"
`))
	if want := "at most 56m0s (warm-up, measurement and cool-down; data loading not included)\n4 cells end when the queries' tries are done, each try up to its timeout, which can be much sooner than the bound"; !strings.HasPrefix(tries, want) {
		t.Errorf("tries mode estimate %q, want %q", tries, want)
	}
	// Once a cell has run, its last run estimates it.
	once := write("once.toml", `[study]
name = "once"
[[target]]
name = "a"
url = "sqlite:once.db"
[[workload]]
kind = "ssb"
scale = 0.01
tries = 2
timeout = "20s"
`)
	if o := fairbench(t, dir, "run", once); o.code != 0 {
		t.Fatalf("run once.toml: exit %d: %s", o.code, o.stderr)
	}
	if got := estimate(once); strings.Contains(got, "at most") || !strings.HasSuffix(got, "\n1 cell as long as its last stored run") {
		t.Errorf("estimate after a run of the cell: %q, want its run's time", got)
	}
	// operationcount bounds the cells by their 30 minutes.
	counted := estimate(write("counted.toml", `[study]
name = "counted"
warmup = "0s"
duration = "30m"
`+targets+`[[workload]]
kind = "ycsb"
workload = "a"
operationcount = 10000
`))
	if want := "at most 1h0m0s (warm-up, measurement and cool-down; data loading not included)\n2 cells end when the 10000 operations of operationcount are done"; !strings.HasPrefix(counted, want) {
		t.Errorf("operationcount estimate %q, want %q", counted, want)
	}
	// A duration-bound study: (5 s + 60 s + 10 s) × 2 targets × 2 modes × 3 repetitions.
	timed := estimate(write("timed.toml", `[study]
name = "timed"
repetitions = 3
warmup = "5s"
duration = "60s"
cooldown = "10s"
`+targets+`[[workload]]
kind = "tpcb"
mode = ["select-only", "simple-update"]
`))
	if want := "15m0s (warm-up, measurement and cool-down; data loading not included)\ndata: "; !strings.HasPrefix(timed, want) {
		t.Errorf("duration-bound estimate %q, want %q", timed, want)
	}
}

// Once runs of a study's cells are stored, validate says per scenario the
// smallest change its planned rounds can detect, from how those runs
// scattered (issue 48 §3).
func TestValidateSaysWhatThePlanCanDetect(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "detect.toml")
	doc := `[study]
name = "detect"
repetitions = 2
warmup = "0s"
duration = "1s"
[[target]]
name = "a"
url = "sqlite:a.db"
[[target]]
name = "b"
url = "sqlite:b.db"
[[workload]]
kind = "tpcb"
mode = ["select-only", "simple-update"]
scale = 1
clients = [1, 2]
`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "validate", file); o.code != 0 || strings.Contains(o.stdout, "smallest change") {
		t.Fatalf("validate before any run: exit %d, or it claims a scatter it has not seen:\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := fairbench(t, dir, "run", file); o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	o := fairbench(t, dir, "validate", file)
	if o.code != 0 {
		t.Fatalf("validate: exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{
		"smallest change each scenario can detect (paired over its rounds, α = 0.05, 80 % power)",
		"  tpcb mode=select-only: +", "  tpcb mode=simple-update: +",
		"over 2 cells × 2 rounds (runs scattered ±", "from 8 runs); rounds needed: ",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("validate lacks %q:\n%s", want, o.stdout)
		}
	}
}
