package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The VM-versus-Kubernetes example runs end to end, shortened (1 s per
// cell, 8 MiB per fio job through the page cache, pgbench at scale 1 and 1,
// 2 and 4 clients, one repetition), with the real fio and pgbench: the disks
// are two directories of the test's, the databases the test PostgreSQL. Its
// one report holds both tools' tables as the article prints them: fio's
// completion latency p95/p99/p99.9 and the device's utilisation, pgbench's
// peak and degradation against the VM and its own table. The tables are
// compared with testdata/golden/vm-vs-kubernetes*.{txt,md}.
func TestVMvsKubernetesExampleRuns(t *testing.T) {
	st := parseExample(t, "vm-vs-kubernetes.toml")
	if len(st.Targets) != 4 || len(st.Workloads) != 2 {
		t.Fatalf("want a disk and a database on a VM and in Kubernetes and two workloads, got %d targets and %d workloads", len(st.Targets), len(st.Workloads))
	}
	pg := testenv.FreshPostgres(t)
	for _, tg := range st.Targets {
		switch {
		case strings.HasSuffix(tg.Name, "-disk"):
			dir := filepath.Join(t.TempDir(), tg.Name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tg.URL = "file://" + dir
		case strings.HasSuffix(tg.Name, "-pg"):
			tg.URL = pg
			tg.ServerView = study.ServerViewOff // its rows vary from run to run (managed_platforms_test.go)
		default:
			t.Fatalf("unexpected target %q", tg.Name)
		}
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	for _, w := range st.Workloads {
		w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
		switch w.Tool {
		case "fio":
			// tmpfs takes no O_DIRECT and no libaio.
			w.Params["size"] = []any{"8M"}
			w.Params["direct"] = []any{false}
			w.Params["ioengine"] = []any{"psync"}
			w.Params["preset"] = []any{"randrw"}
			w.Clients = []study.ClientLevel{{N: 1}}
		case "pgbench":
			w.Params["scale"] = []any{int64(1)}
			w.Clients = []study.ClientLevel{{N: 1}, {N: 2}, {N: 4}}
			w.Threads = 0
		default:
			t.Fatalf("unexpected workload %s (tool %q)", w.Name, w.Tool)
		}
	}
	missing := dropMissingTools(t, st)
	path := runIntoStore(t, st, runner.Options{})
	text, md, _ := reports(t, path, "vm-disk,vm-pg")
	checkGolden(t, "vm-vs-kubernetes", missing, text, md)

	if len(missing) > 0 {
		return
	}
	for _, want := range []string{"read p95", "read p99", "read p99.9", "write p95", "write p99.9", "util"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks fio's %q:\n%s", want, md)
		}
	}
	// fio's peak is in its own kind's unit, IOPS, beside pgbench's tps: the
	// caption names no one unit.
	for _, caption := range []string{"Peak headline per target and scenario", "Degradation of the peak against vm-disk,vm-pg"} {
		rows := captionedRows(t, md, caption)
		want := []string{"target", "disk (fio)", "pgbench (tpcb) tpcb-like", "pgbench (tpcb) select-only"}
		if strings.Join(rows[0], "|") != strings.Join(want, "|") {
			t.Errorf("%s: columns %v, want %v", caption, rows[0], want)
		}
		if len(rows) != 5 || rows[2][0] != "k8s-disk" || rows[2][1] == "" || rows[4][0] != "k8s-pg" || rows[4][2] == "" || rows[4][3] == "" {
			t.Errorf("%s: want Kubernetes' disk and database against the VM's: %v", caption, rows)
		}
		if strings.HasPrefix(caption, "Peak") && (!strings.Contains(rows[1][1], " IOPS (") || !strings.Contains(rows[3][2], " tps (")) {
			t.Errorf("%s: want fio's peak in IOPS and pgbench's in tps: %v", caption, rows)
		}
	}
	pgbench := tableRows(t, md, "| target | clients | tps | latency avg ms | latency stddev ms | initial connection ms | transactions |")
	if len(pgbench) != 2*2*3 {
		t.Errorf("pgbench's tables have %d rows, want 2 scripts × 2 setups × 3 client counts: %v", len(pgbench), pgbench)
	}
}
