package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// A study cell with tool = "ycsb": go-ycsb load, then go-ycsb run for the
// cell's duration, stored as a run of kind ycsb.
func TestStudyRunsYcsb(t *testing.T) {
	testenv.GoYCSB(t)
	pg := testenv.FreshPostgres(t)
	dir := t.TempDir()
	st := `[study]
name = "ycsb"
warmup = "1s"
duration = "3s"

[[target]]
name = "pg"
url = "` + pg + `"

[[workload]]
tool = "ycsb"
workload = ["a", "c"]
recordcount = 2000
clients = [2]
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s", o.stderr)
	}
	if strings.Contains(o.stderr+o.stdout, testenv.Password(t, pg)) {
		t.Fatal("the password appears in the output")
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if r.Source != "ycsb" || r.Kind != "ycsb" || r.Status != result.StatusOK || r.Summary.Throughput <= 0 {
			t.Fatalf("run %+v", r)
		}
	}
	if runs[1].Params["workload"] != "c" || len(runs[1].Ops) != 1 || runs[1].Ops[0].Name != "READ" {
		t.Fatalf("workload c is reads only: %v %v", runs[1].Params, runs[1].Ops)
	}
	o = fairbench(t, dir, "report")
	if o.code != 0 || !strings.Contains(o.stdout, "workload=a") {
		t.Fatalf("report:\n%s\n%s", o.stdout, o.stderr)
	}
	t.Log(o.stdout)
}

func TestStudyWithoutGoYcsbFailsBeforeStart(t *testing.T) {
	dir := t.TempDir()
	st := `[study]
duration = "1s"
[[target]]
name = "pg"
url = "postgres://u@127.0.0.1/db"
[[workload]]
tool = "ycsb"
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "study.toml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "go-ycsb not found: go-ycsb v1.0.1 is needed") || strings.Contains(string(out), "[1/1]") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	t.Log(string(out))
}

// The native workload as a YCSB user types it: load with -p, run with
// --preset, -p and --threads; YCSB's report shape on stdout; operationcount
// ends the run; a typo in a property is an error naming it.
func TestNativeYcsbCommandLine(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "y.db")
	o := fairbench(t, dir, "load", "--target", target, "--workload", "ycsb", "-p", "recordcount=300", "-p", "fieldcount=4")
	if o.code != 0 || !strings.Contains(o.stderr, "loaded 300 records") {
		t.Fatalf("load: exit %d\n%s", o.code, o.stderr)
	}
	o = fairbench(t, dir, "run", "--target", target, "--workload", "ycsb", "--preset", "b", "-p", "recordcount=300",
		"-p", "fieldcount=4", "-p", "operationcount=600", "--threads", "2", "--results", "r.db")
	if o.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "reusing the records") {
		t.Errorf("the run did not reuse the loaded records:\n%s", o.stderr)
	}
	for _, want := range []string{"[OVERALL], RunTime(ms), ", "[OVERALL], Throughput(ops/sec), ", "[READ], Operations, ", "[READ], 99thPercentileLatency(us), ", "[READ], Return=OK, "} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 1 || runs[0].Kind != "ycsb" || runs[0].Summary.Extra["operations"] != 600 {
		t.Fatalf("stored runs %+v", runs)
	}
	o = fairbench(t, dir, "run", "--target", target, "--workload", "ycsb", "-p", "requestdistributon=uniform", "--results", "r.db")
	assertOneLineError(t, o, `unknown property "requestdistributon"`)
	// A run without the load's recordcount reloads fairbench's records, and says so.
	o = fairbench(t, dir, "run", "--target", target, "--workload", "ycsb", "-p", "fieldcount=4", "-p", "operationcount=10", "--results", "r.db")
	if o.code != 0 || !strings.Contains(o.stderr, "loaded with other properties") || !strings.Contains(o.stderr, "reloading them with recordcount=10000") {
		t.Fatalf("run with another recordcount: exit %d\n%s", o.code, o.stderr)
	}
}
