package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	_ "github.com/fairbench/fairbench/internal/workload/tpcb"
)

// toolCells plans a study of one target and one tool workload.
func toolCells(t *testing.T, url, workloadTable string) (*study.Study, []study.Cell) {
	t.Helper()
	src := `[study]
name = "tool writes"
warmup = "1s"
duration = "1s"

[[target]]
name = "t"
url = "` + url + `"

[[workload]]
` + workloadTable
	st, err := study.Parse("tool.toml", []byte(src), Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	return st, cells
}

// runToolCell runs c as a study runs it and returns the run, the progress
// output and the run's error.
func runToolCell(t *testing.T, st *study.Study, c study.Cell, opt Options) (*result.Run, string, error) {
	t.Helper()
	var progress bytes.Buffer
	opt.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := New(st, opt).runCell(ctx, c)
	return run, progress.String(), err
}

// A redis-benchmark cell (warm-up and measured run) deletes the keys it
// wrote: SET's key:… and INCR's counter:…, in the cell's database.
func TestRedisBenchmarkCellLeavesNoKey(t *testing.T) {
	testenv.Tool(t, "redis-benchmark")
	url := testenv.RedisSpareDB(t, testenv.ValkeyURL(t))
	st, cells := toolCells(t, url, `tool = "redis-benchmark"
profile = ["set-only", "incr-only"]
key_maximum = 1000
clients = [2]
`)
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	for _, c := range cells {
		run, progress, err := runToolCell(t, st, c, Options{})
		if err != nil || run.Status != result.StatusOK {
			t.Fatalf("%s: %v\n%s", c.Params.String("profile"), err, progress)
		}
		if !strings.Contains(progress, "deleted the ") {
			t.Errorf("%s: the progress does not say the keys were deleted:\n%s", c.Params.String("profile"), progress)
		}
		if n := keyCount(t, kv); n != "0" {
			t.Fatalf("%s: %s keys left in the cell's database\n%s", c.Params.String("profile"), n, progress)
		}
	}
}

// A key of redis-benchmark's names that someone else wrote stops the cell
// before the tool runs (it would overwrite it): named, with --replace.
func TestRedisBenchmarkCellRefusesForeignKeys(t *testing.T) {
	testenv.Tool(t, "redis-benchmark")
	url := testenv.RedisSpareDB(t, testenv.ValkeyURL(t))
	st, cells := toolCells(t, url, `tool = "redis-benchmark"
profile = "set-only"
key_maximum = 1000
clients = [2]
`)
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	foreign := []byte("key:000000000500")
	do(t, kv, driver.KVCommand{Name: "SET", Key: foreign, Value: []byte("theirs")})
	t.Cleanup(func() { do(t, kv, driver.KVCommand{Name: "DEL", Key: foreign}) })
	run, progress, err := runToolCell(t, st, cells[0], Options{})
	if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "key:000000000500") || !strings.Contains(run.Error, "--replace") {
		t.Fatalf("run over a foreign key: %v, status %s, error %q\n%s", err, run.Status, run.Error, progress)
	}
	if strings.Contains(progress, "redis-benchmark -h") {
		t.Errorf("redis-benchmark ran:\n%s", progress)
	}
	if r := do(t, kv, driver.KVCommand{Name: "GET", Key: foreign}); string(r.Value) != "theirs" {
		t.Fatalf("the foreign key holds %q", r.Value)
	}
	if n := keyCount(t, kv); n != "1" {
		t.Fatalf("%s keys in the database, want the foreign one", n)
	}
}

func do(t *testing.T, kv driver.KV, c driver.KVCommand) driver.KVReply {
	t.Helper()
	r := make([]driver.KVReply, 1)
	if err := kv.Pipeline(context.Background(), []driver.KVCommand{c}, r); err != nil || r[0].Err != nil {
		t.Fatalf("%s: %v %v", c.Name, err, r[0].Err)
	}
	return r[0]
}

// keyCount is DBSIZE: the keys of the session's database.
func keyCount(t *testing.T, kv driver.KV) string {
	t.Helper()
	return string(do(t, kv, driver.KVCommand{Name: "DBSIZE"}).Value)
}

// A fio cell writes its files into a directory of its own inside the
// target's and removes it: a file of the name fio gives its first job's file
// (randrw.0.0) that was there before is neither overwritten nor removed,
// and nothing else is left.
func TestFioCellLeavesNoFile(t *testing.T) {
	testenv.Tool(t, "fio")
	dir := t.TempDir()
	theirs := filepath.Join(dir, "randrw.0.0")
	if err := os.WriteFile(theirs, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, cells := toolCells(t, "file://"+dir, `tool = "fio"
preset = "randrw"
size = "4M"
direct = false
ioengine = "psync"
clients = [2]
`)
	run, progress, err := runToolCell(t, st, cells[0], Options{})
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("%v\n%s", err, progress)
	}
	if !strings.Contains(progress, "--directory="+dir+"/fairbench-") {
		t.Errorf("fio did not run in a directory of the cell's:\n%s", progress)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "randrw.0.0" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the target directory holds %v after the cell, want only the file that was there", names)
	}
	if b, _ := os.ReadFile(theirs); string(b) != "theirs" {
		t.Fatalf("the file that was there holds %d bytes, not its own 6", len(b))
	}
}

// go-ycsb on Redis: a key under its table's prefix that was there before
// stops the cell before the load (go-ycsb would overwrite it); without one,
// the cell's records (load and run) are deleted after it.
func TestYcsbToolOnRedisLeavesNoKey(t *testing.T) {
	testenv.GoYCSB(t)
	url := testenv.RedisSpareDB(t, testenv.ValkeyURL(t))
	st, c := ycsbStudy(t, url, "")
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	foreign := []byte(adapter.YcsbTable + "/user42")
	do(t, kv, driver.KVCommand{Name: "HSET", Key: foreign, Args: [][]byte{[]byte("field0"), []byte("theirs")}})
	run, progress, err := runToolCell(t, st, c, Options{})
	if err == nil || !strings.Contains(run.Error, string(foreign)) || !strings.Contains(run.Error, "--replace") {
		t.Fatalf("a cell over a foreign key: %v, error %q\n%s", err, run.Error, progress)
	}
	if strings.Contains(progress, "load:") {
		t.Errorf("go-ycsb loaded:\n%s", progress)
	}
	if n := keyCount(t, kv); n != "1" {
		t.Fatalf("%s keys, want the foreign one", n)
	}
	do(t, kv, driver.KVCommand{Name: "DEL", Key: foreign})
	run, progress, err = runToolCell(t, st, c, Options{})
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("%v\n%s", err, progress)
	}
	if n := keyCount(t, kv); n != "0" {
		t.Fatalf("%s keys left after the cell\n%s", n, progress)
	}
}

// A tool cell's run records what the study declares about its target
// (cores, CPU, price per hour), as a native run does: the report's price
// table of a study of pgbench or mysqlslap cells reads it from there.
func TestToolCellRecordsTheTargetsDeclaredMachine(t *testing.T) {
	testenv.Tool(t, "redis-benchmark")
	url := testenv.RedisSpareDB(t, testenv.ValkeyURL(t))
	st, cells := toolCells(t, url, `tool = "redis-benchmark"
profile = "get-only"
key_maximum = 100
clients = [1]
`)
	st.Targets[0].Cores, st.Targets[0].CPU, st.Targets[0].PricePerHour, st.Targets[0].Notes = 8, "Graviton3", 0.0151, "burstable"
	run, progress, err := runToolCell(t, st, cells[0], Options{})
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("%v\n%s", err, progress)
	}
	if want := (result.Declared{Cores: 8, CPU: "Graviton3", PricePerHour: 0.0151, Notes: "burstable"}); run.Env.Declared != want {
		t.Errorf("declared %+v, want %+v", run.Env.Declared, want)
	}
}

// A pgbench cell's progress lines reach the watcher as pgbench prints them
// (the live page's chart while the tool runs): the warm-up run's marked as
// such, then the measured run's, each with pgbench's own rate.
func TestToolCellTicksReachTheWatcher(t *testing.T) {
	testenv.Tool(t, "pgbench")
	st, cells := toolCells(t, testenv.FreshPostgres(t), `tool = "pgbench"
mode = "select-only"
scale = 1
clients = [2]
`)
	// pgbench prints no progress line at its last second: 2 s of warm-up
	// give one at least.
	st.Warmup, st.Duration = 2*time.Second, 3*time.Second
	cells[0].Warmup, cells[0].Duration = 2*time.Second, 3*time.Second
	rec := &tickRecorder{}
	run, progress, err := runToolCell(t, st, cells[0], Options{Watch: rec})
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("%v\n%s", err, progress)
	}
	var warm, measured int
	for _, tk := range rec.ticks {
		if tk.Warmup {
			warm++
			if measured > 0 {
				t.Errorf("a warm-up reading after the measured run's")
			}
			continue
		}
		measured++
		if tk.Point.Rate <= 0 || tk.Elapsed <= 0 || tk.Clients != 2 {
			t.Errorf("measured reading %+v: want pgbench's rate, its time and the cell's 2 clients", tk)
		}
	}
	if warm == 0 || measured < 2 || measured > len(run.Series) {
		t.Errorf("%d warm-up and %d measured readings for a run of %d points:\n%s", warm, measured, len(run.Series), progress)
	}
}
