package searchparams

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

func TestGeneratedDocumentsAreHTTPLogsShapedAndReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteCorpus(&a, 2000, 7); err != nil {
		t.Fatal(err)
	}
	if err := WriteCorpus(&b, 2000, 7); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same seed wrote two different corpora")
	}
	var c bytes.Buffer
	_ = WriteCorpus(&c, 2000, 8)
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("another seed wrote the same corpus")
	}
	lines := strings.Split(strings.TrimSuffix(a.String(), "\n"), "\n")
	if len(lines) != 2000 {
		t.Fatalf("%d lines, want 2000", len(lines))
	}
	statuses := map[float64]int{}
	var prevTS float64
	for i, l := range lines {
		var d map[string]any
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if len(d) != 5 {
			t.Fatalf("line %d has fields %v, want http_logs' five", i+1, d)
		}
		ts := d["@timestamp"].(float64)
		if ts < logsStart || ts < prevTS {
			t.Fatalf("line %d: timestamp %v before %v", i+1, ts, prevTS)
		}
		prevTS = ts
		if ip := d["clientip"].(string); strings.Count(ip, ".") != 3 {
			t.Fatalf("line %d: clientip %q", i+1, ip)
		}
		if r := d["request"].(string); !strings.HasPrefix(r, "GET /") || !strings.HasSuffix(r, " HTTP/1.0") {
			t.Fatalf("line %d: request %q", i+1, r)
		}
		statuses[d["status"].(float64)]++
		// Document i alone gives the same line: a corpus is addressable.
		if i%397 == 0 && string(AppendLogDoc(nil, 7, int64(i))) != l {
			t.Fatalf("document %d generated alone differs", i)
		}
	}
	if statuses[200] < 1600 || statuses[304] == 0 || statuses[404] == 0 {
		t.Fatalf("statuses %v: want mostly 200 with some 304 and 404", statuses)
	}
}

func TestCheckCorpusNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.ndjson")
	bad := filepath.Join(dir, "b.ndjson")
	os.WriteFile(good, []byte("{\"a\":1}\n{\"a\":2}\n"), 0o644)
	os.WriteFile(bad, []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":\n{\"a\":4}\n"), 0o644)
	docs, size, err := CheckCorpus([]string{good})
	if err != nil || docs != 2 || size != 16 {
		t.Fatalf("good corpus: %d docs, %d bytes, %v", docs, size, err)
	}
	_, _, err = CheckCorpus([]string{good, bad})
	if err == nil || !strings.Contains(err.Error(), bad+":3:") {
		t.Fatalf("bad corpus: %v, want %s:3", err, bad)
	}
	os.WriteFile(bad, []byte("{\"a\":1}\n[1,2]\n"), 0o644)
	if _, _, err = CheckCorpus([]string{bad}); err == nil || !strings.Contains(err.Error(), bad+":2: not a JSON object") {
		t.Fatalf("array line: %v", err)
	}
	if _, _, err = CheckCorpus([]string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing file: %v", err)
	}
}

func values(t *testing.T, set map[string]any) params.Values {
	t.Helper()
	v := params.Values{}
	for k, x := range set {
		s, ok := params.Find(BulkSpecs(), k)
		if !ok {
			t.Fatalf("no parameter %s", k)
		}
		c, err := params.Coerce(s, x)
		if err != nil {
			t.Fatal(err)
		}
		v[k] = c
	}
	return params.WithDefaults(BulkSpecs(), v)
}

func TestIndexDefinition(t *testing.T) {
	def, err := IndexDefinition(values(t, map[string]any{"shards": 3, "replicas": 1, "refresh_interval": "30s", "codec": "best_compression"}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(def)
	for _, want := range []string{`"number_of_shards":3`, `"number_of_replicas":1`, `"refresh_interval":"30s"`, `"codec":"best_compression"`, `"clientip":{"type":"ip"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("definition %s lacks %s", b, want)
		}
	}
	// OSB's index.json (settings and mappings) gives its mappings.
	dir := t.TempDir()
	f := filepath.Join(dir, "index.json")
	os.WriteFile(f, []byte(`{"settings":{"index.number_of_shards":5},"mappings":{"properties":{"x":{"type":"keyword"}}}}`), 0o644)
	def, err = IndexDefinition(values(t, map[string]any{"mapping": f, "corpus": []any{"x.ndjson"}}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(def["mappings"])
	if string(b) != `{"properties":{"x":{"type":"keyword"}}}` {
		t.Errorf("mappings %s", b)
	}
	// A corpus without a mapping gets the engine's dynamic mapping.
	def, _ = IndexDefinition(values(t, map[string]any{"corpus": []any{"x.ndjson"}}))
	if _, ok := def["mappings"]; ok {
		t.Errorf("a corpus without a mapping got mappings %v", def["mappings"])
	}
	if _, err := IndexDefinition(values(t, map[string]any{"index": "Logs"})); err == nil || !strings.Contains(err.Error(), "lower case") {
		t.Errorf("upper-case index: %v", err)
	}
}
