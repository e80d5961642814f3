package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// runJSON is the part of run --json's document a script reads.
type runJSON struct {
	RunID     int64  `json:"run_id"`
	Results   string `json:"results"`
	Status    string `json:"status"`
	Kind      string `json:"kind"`
	TargetURL string `json:"target_url"`
	Headline  struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"headline"`
	Summary struct {
		Transactions int64   `json:"transactions"`
		Throughput   float64 `json:"throughput"`
		P99          float64 `json:"p99_us"`
	} `json:"summary"`
	Ops []struct {
		Name string   `json:"name"`
		P50  *float64 `json:"p50_us"`
		P99  *float64 `json:"p99_us"`
	} `json:"ops"`
	Errors     *int64   `json:"errors"`
	Deviations []string `json:"deviations"`
	Warnings   []any    `json:"warnings"`
}

// decodeRunJSON parses run --json's standard output: one JSON document and
// nothing else.
func decodeRunJSON(t *testing.T, o outcome) runJSON {
	t.Helper()
	if o.code != 0 {
		t.Fatalf("run --json: exit %d\n%s", o.code, o.stderr)
	}
	var doc runJSON
	var raw json.RawMessage
	if err := json.NewDecoder(strings.NewReader(o.stdout)).Decode(&raw); err != nil {
		t.Fatalf("run --json's output is not JSON: %v\n%s", err, o.stdout)
	}
	if rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(o.stdout), strings.TrimSpace(string(raw)))); rest != "" {
		t.Fatalf("run --json prints more than the JSON document on stdout: %q", rest)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// run --json prints the ad-hoc run's summary as one JSON document on
// stdout, the text summary on stderr (issue 40 item 10).
func TestRunJSONPrintsTheSummaryAsOneDocument(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", "sqlite:j.db", "--workload", "tpcb", "-T", "1", "--json")
	doc := decodeRunJSON(t, o)
	if doc.RunID <= 0 || doc.Results != "fairbench.db" || doc.Status != "ok" || doc.Kind != "tpcb" || doc.TargetURL != "sqlite:j.db" {
		t.Errorf("run, store, status, kind or target wrong: %+v", doc)
	}
	if doc.Summary.Transactions <= 0 || doc.Summary.Throughput <= 0 || doc.Summary.P99 <= 0 || doc.Headline.Value != doc.Summary.Throughput {
		t.Errorf("summary figures missing: %+v", doc)
	}
	if len(doc.Ops) != 1 || doc.Ops[0].Name != "tpcb-like" || doc.Ops[0].P50 == nil || doc.Ops[0].P99 == nil {
		t.Errorf("per-op latencies missing: %+v", doc.Ops)
	}
	if doc.Errors == nil || len(doc.Deviations) == 0 || doc.Warnings == nil {
		t.Errorf("errors, deviations (SQLite has some) or warnings missing: %+v", doc)
	}
	if !strings.Contains(o.stderr, "number of transactions actually processed") {
		t.Errorf("the text summary is not on stderr:\n%s", o.stderr)
	}
	if o := fairbench(t, dir, "run", "--json", "study.toml"); o.code == 0 || !strings.Contains(o.stderr, "report --format json") {
		t.Errorf("run --json with a study file: exit %d, %s", o.code, o.stderr)
	}
}

// The password of the target's URL is in no byte run --json prints.
func TestRunJSONShowsNoPassword(t *testing.T) {
	url := testenv.RedisAuthURL(t)
	password := testenv.Password(t, url)
	if password == "" {
		t.Fatal("the test URL carries no password to look for")
	}
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", url, "--workload", "kv", "-t", "1", "-c", "1", "--requests", "200",
		"--key-prefix", testenv.RedisKeyPrefix(t), "--key-maximum", "100", "--json")
	doc := decodeRunJSON(t, o)
	if doc.Kind != "kv" || doc.Summary.Transactions == 0 || !strings.HasPrefix(doc.TargetURL, "redis://") {
		t.Errorf("not the kv run: %+v", doc)
	}
	if strings.Contains(o.stdout+o.stderr, password) {
		t.Errorf("the password appears in run --json's output:\n%s\n%s", o.stdout, o.stderr)
	}
}
