package clickbench_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/clickbench"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

// runCB runs one clickbench cell through the runner, as `fairbench run` does.
func runCB(t *testing.T, target, extra string) (*result.Run, error) {
	t.Helper()
	return cellrun.One(t, fmt.Sprintf("[[target]]\nname = \"t\"\nurl = %q\n[[workload]]\nkind = \"clickbench\"\ntries = 2\n%s\n", target, extra), false)
}

// checkAllQueries: every query ran both tries, or failed with the engine's
// error recorded (ClickBench's null); none is expected to fail on these
// engines. The run says its data is synthetic, and its ClickBench file too.
func checkAllQueries(t *testing.T, r *result.Run, rows int64) {
	t.Helper()
	if r.Status != result.StatusOK {
		t.Fatalf("run %s: %s", r.Status, r.Error)
	}
	if len(r.Summary.Queries) != 43 {
		t.Fatalf("%d queries", len(r.Summary.Queries))
	}
	for _, q := range r.Summary.Queries {
		if q.Tries[0] == nil && q.Error == "" {
			t.Errorf("%s: a null try without its reason", q.Name)
		}
		if q.Tries[0] == nil || q.Tries[1] == nil {
			t.Errorf("%s failed: %s", q.Name, q.Error)
		}
	}
	if !strings.Contains(strings.Join(r.Deviations, "\n"), fmt.Sprintf("synthetic hits (%d rows", rows)) {
		t.Errorf("deviations %q do not say the data is synthetic", r.Deviations)
	}
	var buf bytes.Buffer
	if err := queryset.WriteClickBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	var cb struct {
		Tags     []string     `json:"tags"`
		Comment  string       `json:"comment"`
		DataSize *int64       `json:"data_size"`
		LoadTime *float64     `json:"load_time"`
		Result   [][]*float64 `json:"result"`
	}
	if err := json.Unmarshal(buf.Bytes(), &cb); err != nil {
		t.Fatal(err)
	}
	if len(cb.Result) != 43 || !strings.Contains(strings.Join(cb.Tags, ","), "synthetic") || cb.DataSize == nil || cb.LoadTime == nil {
		t.Errorf("ClickBench file: %s", buf.String())
	}
}

func TestRunOnSQLite(t *testing.T) {
	if testenv.RaceDetector && testing.Short() {
		t.Skip("SQLite's 43 queries under the race detector: covered by the run without it")
	}
	r, err := runCB(t, "sqlite:"+filepath.Join(t.TempDir(), "cb.db"), "rows = 20000")
	if err != nil {
		t.Fatal(err)
	}
	checkAllQueries(t, r, 20000)
}

func TestRunOnPostgres(t *testing.T) {
	r, err := runCB(t, testenv.FreshPostgres(t), "rows = 20000")
	if err != nil {
		t.Fatal(err)
	}
	checkAllQueries(t, r, 20000)
}

// TestRunOnClickHouse18 runs the 18.16 dialect, with its two rewrites
// recorded as deviations of the run.
func TestRunOnClickHouse18(t *testing.T) {
	r, err := runCB(t, testenv.FreshClickHouse(t), "rows = 20000")
	if err != nil {
		t.Fatal(err)
	}
	checkAllQueries(t, r, 20000)
	devs := strings.Join(r.Deviations, "\n")
	for _, want := range []string{"Q28: ", "Q42: ", "hits: native types"} {
		if !strings.Contains(devs, want) {
			t.Errorf("deviations lack %q: %s", want, devs)
		}
	}
}

// A source line with a column missing stops the load with the file and the
// line; the next load of a good file replaces the half-loaded table.
func TestBadSourceLineNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	var rows [][]any
	src := clickbench.NewSynthetic(3, 1).Rows(clickbench.Chunk{Lo: 1, Hi: 3})
	for src.Next() {
		rows = append(rows, append([]any(nil), src.Values()...))
	}
	good := bytes.NewBuffer(writeTSV(rows))
	rows[2] = rows[2][:len(rows[2])-1]
	bad := bytes.NewBuffer(writeTSV(rows))
	badPath, goodPath := filepath.Join(dir, "hits.tsv"), filepath.Join(dir, "good", "hits.tsv")
	os.MkdirAll(filepath.Dir(goodPath), 0o755)
	os.WriteFile(badPath, bad.Bytes(), 0o644)
	os.WriteFile(goodPath, good.Bytes(), 0o644)
	target := "sqlite:" + filepath.Join(dir, "cb.db")
	r, err := runCB(t, target, fmt.Sprintf("source = %q\nqueries = [\"Q0\"]", badPath))
	if err == nil || !strings.Contains(r.Error, badPath+":3: 104 columns, hits has 105") {
		t.Fatalf("a line with 104 columns: %v / %s", err, r.Error)
	}
	r, err = runCB(t, target, fmt.Sprintf("source = %q\nqueries = [\"Q0\"]", goodPath))
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Queries[0].Rows != 1 || r.Env.Extra["workload"].(map[string]any)["source"] != goodPath {
		t.Errorf("after the good load: %+v, facts %v", r.Summary.Queries[0], r.Env.Extra["workload"])
	}
	w, _ := workload.Get("clickbench")
	p := map[string]any{}
	for _, s := range w.Params() {
		p[s.Name] = s.Default
	}
	p["source"] = filepath.Join(dir, "missing.parquet")
	if _, err := w.New(p); err == nil || !strings.Contains(err.Error(), "missing.parquet") {
		t.Errorf("a missing source: %v", err)
	}
}

func writeTSV(rows [][]any) []byte {
	var b []byte
	for _, r := range rows {
		b = clickbench.AppendTSV(b, r)
	}
	return b
}
