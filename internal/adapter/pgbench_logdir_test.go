package adapter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// The logs of pg17-log read from a directory as the runner does: the same
// histogram as when imported, and the run's start from the earliest logged
// transaction. Its file pgbench_log.22240.1, line 1, "1 1 3074 0 1795354430
// 52164 997", ended at 1795354430.052164 after 3074 µs: the earliest start
// of the 304 lines (found with awk over both files).
func TestPgbenchLogDir(t *testing.T) {
	src := filepath.Join("testdata", "pgbench", "pg17-log")
	summary, err := os.ReadFile(filepath.Join(src, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"pgbench_log.22240", "pgbench_log.22240.1"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := parsePgbench("summary.txt", string(summary))
	if err != nil {
		t.Fatal(err)
	}
	if err := attachPgbenchLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	n, _, max := opHist(t, r.Ops[0])
	eq(t, "histogram count", n, int64(304))
	near(t, "histogram max", float64(max), 132254, 132254*0.001)
	near(t, "min", r.Summary.LatencyMin, 258, 0)
	eq(t, "logs", r.Env.Extra["pgbench_logs"], any(2))
	eq(t, "started", r.StartedAt.UnixMicro(), int64(1795354430049090))
	if len(r.Series) != 3 {
		t.Fatalf("series %v: want the 3 seconds 1795354430–32 of the logs", r.Series)
	}
	if hasDeviation(r, "no latency distribution") {
		t.Errorf("the logs give the distribution, yet: %v", r.Deviations)
	}
}

func TestPgbenchLogDirErrors(t *testing.T) {
	runs := func() []*result.Run {
		b, err := os.ReadFile(filepath.Join("testdata", "pgbench", "pg17-log", "summary.txt"))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := parsePgbench("summary.txt", string(b))
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	empty := t.TempDir()
	if err := attachPgbenchLogDir(runs(), empty); err == nil || !strings.Contains(err.Error(), "wrote no -l log file") {
		t.Errorf("empty directory: err = %v", err)
	}
	bad := t.TempDir()
	name := filepath.Join(bad, "pgbench_log.7")
	if err := os.WriteFile(name, []byte("0 1 5234 0 1795354430 62163 3037\n0 2 889 0 179535443x 114807 90\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := attachPgbenchLogDir(runs(), bad)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != name || pe.Line != 2 {
		t.Errorf("damaged line 2: err = %v", err)
	}
	// One good line where the output says 304 transactions: not this run's logs.
	if err := os.WriteFile(name, []byte("0 1 5234 0 1795354430 62163 3037\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := attachPgbenchLogDir(runs(), bad); err == nil || !strings.Contains(err.Error(), "hold 1 successful transactions but the pgbench output says 304") {
		t.Errorf("short logs: err = %v", err)
	}
}
