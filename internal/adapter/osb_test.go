package adapter

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

func osbFixture(t *testing.T, name string) *result.Run {
	t.Helper()
	p := filepath.Join("testdata", "opensearch-benchmark", name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tool, runs, err := parse(p, string(b))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "opensearch-benchmark" || len(runs) != 1 {
		t.Fatalf("%s: %s, %d runs", name, tool.Name, len(runs))
	}
	return runs[0]
}

func within(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// Each format of one OSB run imports the same throughput and percentiles as
// its test_run.json: run 1 wrote markdown, run 2 csv, run
// 3 markdown and the console table (on a terminal).
func TestOSBFormatsAgreeWithTestRunJSON(t *testing.T) {
	for _, c := range []struct {
		json, other string
		rel         float64 // every format but the JSON rounds to 6 significant digits
	}{
		{"test_run-1.json", "results.md", 1e-5},
		{"test_run-2.json", "results.csv", 1e-5},
		{"test_run-3.json", "results-3.md", 1e-5},
		{"test_run-3.json", "console.txt", 1e-5},
	} {
		j, o := osbFixture(t, c.json), osbFixture(t, c.other)
		for _, r := range []*result.Run{j, o} {
			if r.Kind != bulkIndexKind || r.Headline().Name != "documents/s" || r.Headline().Value != r.Summary.Throughput {
				t.Errorf("%s: kind %s, headline %+v", c.other, r.Kind, r.Headline())
			}
		}
		pairs := [][2]float64{
			{j.Summary.Throughput, o.Summary.Throughput},
			{j.Summary.P50, o.Summary.P50},
			{j.Summary.Max, o.Summary.Max},
		}
		for i, p := range pairs {
			if p[0] <= 0 || !within(p[0], p[1], c.rel) {
				t.Errorf("%s vs %s: value %d: %v vs %v", c.json, c.other, i, p[0], p[1])
			}
		}
		if len(j.Ops) != 1 || len(o.Ops) != 1 || o.Ops[0].Name != "bulk-index" {
			t.Errorf("%s: ops %v, want the bulk task alone", c.other, o.Ops)
		}
		for _, task := range []string{"match-all", "term"} {
			if _, ok := o.Env.Extra["osb"].(map[string]any)["tasks"].(map[string]any)[task]; !ok {
				t.Errorf("%s: no figures of %s in the environment", c.other, task)
			}
		}
	}
	// The figures themselves, as test_run-1.json holds them.
	r := osbFixture(t, "test_run-1.json")
	if r.Summary.Throughput != 1945.93525796259 || r.Summary.P50 != 334.8659349976515*1000 || r.ToolVersion != "opensearch-benchmark 2.4.0" {
		t.Errorf("test_run-1.json: %v docs/s, p50 %v µs, %s", r.Summary.Throughput, r.Summary.P50, r.ToolVersion)
	}
	if r.StartedAt.IsZero() || r.Env.Extra["osb"].(map[string]any)["summary"].(map[string]any)["Doc count"] != float64(20000) {
		t.Errorf("test_run-1.json: started %v, env %v", r.StartedAt, r.Env.Extra["osb"])
	}
}

// A console captured without a terminal has only OSB's banner: refused with
// what to import instead; a broken table row names its line.
func TestOSBBadInput(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "opensearch-benchmark", "refused", "console-md.txt"))
	if _, _, err := parse("console-md.txt", string(b)); err == nil || !strings.Contains(err.Error(), "test_run.json") {
		t.Errorf("banner-only console: %v", err)
	}
	csv, _ := os.ReadFile(filepath.Join("testdata", "opensearch-benchmark", "results.csv"))
	lines := strings.Split(string(csv), "\n")
	lines[5] = "Min cumulative merge time across primary shards,,zero,min"
	if _, _, err := parse("results.csv", strings.Join(lines, "\n")); err == nil || !strings.Contains(err.Error(), "results.csv:6") {
		t.Errorf("a bad value: %v", err)
	}
}

// test_run.json ends without a line break, as OSB writes it: damage inside
// it is named as invalid JSON at its offset and line, not taken for a cut;
// a document that really is cut short says so.
func TestOSBJSONDamageIsNotTruncation(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "opensearch-benchmark", "test_run-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	at := strings.Index(doc, `"pipeline"`)
	garbageLine := strings.Count(doc[:at], "\n") + 1
	cutAt := strings.Index(doc, `"latency"`)
	for _, c := range []struct {
		name, text, want string
	}{
		{"garbage.json", doc[:at] + "#!garbage " + doc[at:], "garbage.json:" + itoa(garbageLine) + ": test_run.json: invalid JSON at offset " + itoa(at+1) + ": invalid character '#'"},
		{"type.json", strings.Replace(doc, `"error_rate": 0.0,`, `"error_rate": "none",`, 1), `test_run.json: at offset`},
		{"tail.json", doc + "}", "test_run.json: text after the JSON document at offset"},
		{"cut.json", doc[:cutAt], "test_run.json ends at byte " + itoa(cutAt) + " before its JSON document closes: the output is truncated"},
	} {
		_, _, err := parse(c.name, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if c.name != "cut.json" && err != nil && strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s: damage reported as a cut: %v", c.name, err)
		}
	}
}
