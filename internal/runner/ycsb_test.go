package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/mysql"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// tool = "ycsb" cells against the real test servers, with the pinned go-ycsb
// scripts/test-servers.sh builds: go-ycsb load into fairbench's own table,
// then go-ycsb run for the cell's duration, parsed and stored like a native run.

func ycsbStudy(t *testing.T, url, extra string) (*study.Study, study.Cell) {
	t.Helper()
	src := `[study]
name = "ycsb"
warmup = "0s"
duration = "3s"

[[target]]
name = "db"
url = "` + url + `"

[[workload]]
tool = "ycsb"
recordcount = 2000
clients = [2]
` + extra
	st, err := study.Parse("ycsb.toml", []byte(src), Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 {
		t.Fatalf("%d cells", len(cells))
	}
	return st, cells[0]
}

func sqlConn(t *testing.T, url string) driver.SQL {
	return testenv.Connect(t, url, driver.Options{}).(driver.SQL)
}

// runYcsbCell runs the cell as the runner does for a tool cell.
func runYcsbCell(t *testing.T, st *study.Study, c study.Cell, opt Options) (*result.Run, string) {
	t.Helper()
	var progress bytes.Buffer
	opt.Progress = &progress
	r := New(st, opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := r.runCell(ctx, c) // loads the data first, as a study does
	if err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	return run, progress.String()
}

func checkYcsbRun(t *testing.T, run *result.Run, password, db string) {
	t.Helper()
	if run.Status != result.StatusOK || run.Source != "ycsb" || run.Kind != "ycsb" || run.ToolVersion != "go-ycsb" {
		t.Fatalf("status %q (%s) source %q kind %q version %q", run.Status, run.Error, run.Source, run.Kind, run.ToolVersion)
	}
	if run.Clients != 2 || run.Params["workload"] != "a" || run.Params["recordcount"] != int64(2000) {
		t.Fatalf("clients %d params %v", run.Clients, run.Params)
	}
	// Stopped by SIGINT at the end of the 3 s (stopped_by, below): go-ycsb's own duration is
	// what it measured after its start-up, which a busy machine can stretch to most of the
	// cell, so only its presence is asserted, not its length.
	if run.Duration <= 0 || run.Duration > time.Minute {
		t.Fatalf("duration %v for a 3 s cell", run.Duration)
	}
	names := map[string]int64{}
	for _, op := range run.Ops {
		names[op.Name] = op.Count
		if op.Histogram == nil {
			t.Errorf("%s: no histogram", op.Name)
		}
	}
	if names["READ"] == 0 || names["UPDATE"] == 0 || len(names) != 2 {
		t.Fatalf("workload a is reads and updates: %v", names)
	}
	if run.Summary.Transactions != names["READ"]+names["UPDATE"] || run.Summary.Throughput <= 0 || run.Summary.P99 <= 0 {
		t.Fatalf("summary %+v", run.Summary)
	}
	// go-ycsb --interval 1: a cumulative line a second.
	if len(run.Series) < 2 {
		t.Fatalf("series: %v", run.Series)
	}
	cmd, _ := run.Env.Extra["command"].(string)
	if !strings.Contains(cmd, "go-ycsb run "+db+" ") || !strings.Contains(cmd, "table=fairbench_ycsb") ||
		!strings.Contains(cmd, "requestdistribution=zipfian") || strings.Contains(cmd, password) {
		t.Fatalf("stored command %q", cmd)
	}
	ye := run.Env.Extra["ycsb"].(map[string]any)
	if ye["stopped_by"] != "SIGINT" {
		t.Fatalf("env %v", ye)
	}
	for k, v := range ye["properties"].(map[string]string) {
		if strings.Contains(v, password) {
			t.Fatalf("property %s holds the password", k)
		}
	}
}

func TestYcsbToolOnPostgres(t *testing.T) {
	testenv.GoYCSB(t)
	pg := testenv.FreshPostgres(t)
	st, c := ycsbStudy(t, pg, "")
	run, progress := runYcsbCell(t, st, c, Options{})
	checkYcsbRun(t, run, testenv.Password(t, pg), "postgresql")
	if strings.Contains(progress, testenv.Password(t, pg)) {
		t.Fatal("the password appears in the progress output")
	}
	s := sqlConn(t, pg)
	ctx := context.Background()
	n, err := s.QueryInt64(ctx, "SELECT count(*) FROM "+adapter.YcsbTable)
	if err != nil || n != 2000 {
		t.Fatalf("%d records loaded (%v), want 2000", n, err)
	}
	ready, err := sqlwork.MarkerMatches(ctx, s, "go-ycsb", "recordcount=2000 fieldcount=10 fieldlength=100")
	if err != nil || !ready {
		t.Fatalf("no ready marker for the load (%v)", err)
	}
	// Loading again replaces fairbench's own table: the next cell starts afresh.
	if err := s.Exec(ctx, "DELETE FROM "+adapter.YcsbTable+" WHERE ycsb_key IN (SELECT ycsb_key FROM "+adapter.YcsbTable+" LIMIT 10)"); err != nil {
		t.Fatal(err)
	}
	r := New(st, Options{})
	tool, _ := adapter.Lookup("ycsb")
	if err := r.loadToolData(ctx, tool, c); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.QueryInt64(ctx, "SELECT count(*) FROM "+adapter.YcsbTable); n != 2000 {
		t.Fatalf("%d records after reloading", n)
	}
}

// A table of that name fairbench did not make is never dropped without --replace.
func TestYcsbToolLeavesForeignTable(t *testing.T) {
	testenv.GoYCSB(t)
	pg := testenv.FreshPostgres(t)
	s := sqlConn(t, pg)
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE TABLE "+adapter.YcsbTable+" (mine int)"); err != nil {
		t.Fatal(err)
	}
	st, c := ycsbStudy(t, pg, "")
	tool, _ := adapter.Lookup("ycsb")
	err := New(st, Options{}).loadToolData(ctx, tool, c)
	if err == nil || !strings.Contains(err.Error(), "fairbench did not create") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("err = %v", err)
	}
	if ok, _ := sqlwork.TableExists(ctx, s, adapter.YcsbTable); !ok {
		t.Fatal("the foreign table was dropped")
	}
	if n, err := s.QueryInt64(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_name = '"+adapter.YcsbTable+"' AND column_name = 'mine'"); err != nil || n != 1 {
		t.Fatalf("the foreign table was changed (%v)", err)
	}
	if err := New(st, Options{Replace: true}).loadToolData(ctx, tool, c); err != nil {
		t.Fatalf("with --replace: %v", err)
	}
}

func TestYcsbToolOnMariaDB(t *testing.T) {
	testenv.GoYCSB(t)
	my := testenv.FreshMySQL(t)
	st, c := ycsbStudy(t, my, "")
	run, _ := runYcsbCell(t, st, c, Options{})
	checkYcsbRun(t, run, testenv.Password(t, my), "mysql")
	if n, err := sqlConn(t, my).QueryInt64(context.Background(), "SELECT count(*) FROM "+adapter.YcsbTable); err != nil || n != 2000 {
		t.Fatalf("%d records loaded (%v), want 2000", n, err)
	}
}
