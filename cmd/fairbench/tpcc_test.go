package main

import (
	"strings"
	"syscall"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// kill -9 in the middle of a TPC-C load loses nothing finished: the next
// load resumes with the parts the first recorded, and the data then pass the
// specification's consistency conditions.
func TestSIGKILLDuringTPCCLoadResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two TPC-C warehouses")
	}
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	s := startUntil(t, dir, "warehouse 1 loaded", "load", "--target", url, "--workload", "tpcc", "--warehouses", "2")
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	o := fairbench(t, dir, "load", "--target", url, "--workload", "tpcc", "--warehouses", "2", "--check")
	if o.code != 0 {
		t.Fatalf("the load after kill -9 failed (exit %d):\n%s", o.code, o.stderr)
	}
	for _, want := range []string{"tpcc: resuming the load of 2 warehouse(s): ", "consistency check passed"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("the load after kill -9 did not say %q:\n%s", want, o.stderr)
		}
	}
	if strings.Contains(o.stderr, "warehouse 1 loaded") {
		t.Errorf("the resumed load loaded warehouse 1 again:\n%s", o.stderr)
	}
	// VUs beyond what the server takes are refused before anything runs, naming the setting.
	o = fairbench(t, dir, "run", "--target", url, "--workload", "tpcc", "--warehouses", "2", "--vus", "5000", "--duration", "5s", "--rampup", "0s")
	assertOneLineError(t, o, "5000 clients", "max_connections")
}
