package adapter

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
)

// osbParams are bulkindex's parameters at their defaults (a small corpus),
// with over applied.
func osbParams(over map[string]any) params.Values {
	p := params.WithDefaults(searchparams.BulkSpecs(), params.Values{"docs": int64(1000), "bulk_size": int64(500)})
	for k, v := range over {
		p[k] = v
	}
	return p
}

// osbBuild builds the command into a fresh private directory and returns it
// with the directory.
func osbBuild(t *testing.T, inv Invocation) (Command, string) {
	t.Helper()
	inv.LogDir = t.TempDir()
	c, err := buildOSB(inv)
	if err != nil {
		t.Fatal(err)
	}
	return c, inv.LogDir
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// osbSchedule returns workload.json's documents entries and its bulk task.
func osbSchedule(t *testing.T, dir string) (docs []map[string]any, task map[string]any, ops []string) {
	t.Helper()
	w := readJSON(t, filepath.Join(dir, osbWorkloadDir, "workload.json"))
	for _, d := range w["corpora"].([]any)[0].(map[string]any)["documents"].([]any) {
		docs = append(docs, d.(map[string]any))
	}
	for _, s := range w["schedule"].([]any) {
		op := s.(map[string]any)["operation"].(map[string]any)
		ops = append(ops, op["operation-type"].(string))
		if op["operation-type"] == "bulk" {
			task = s.(map[string]any)
		}
	}
	return docs, task, ops
}

func TestOSBToolIsRunnable(t *testing.T) {
	tool, ok := Lookup("opensearch-benchmark")
	if !ok || tool.Build == nil || tool.AttachLogDir == nil || !tool.OwnWarmup {
		t.Fatalf("opensearch-benchmark: runnable %v, logs %v, own warm-up %v", tool.Build != nil, tool.AttachLogDir != nil, tool.OwnWarmup)
	}
	eq(t, "kind", tool.Kind, bulkIndexKind)
	eq(t, "executable", tool.Executable(), "opensearch-benchmark")
	if !strings.Contains(tool.Install, "scripts/install-osb.sh") {
		t.Errorf("install hint %q", tool.Install)
	}
}

func TestBuildOSBGeneratedCorpus(t *testing.T) {
	const pw = "s3cr:t,pw"
	inv := Invocation{URL: "opensearch://admin:s3cr%3At%2Cpw@127.0.0.1:9241", Clients: 4, Duration: time.Minute,
		Warmup: 5 * time.Second, Params: osbParams(map[string]any{"docs": int64(1234), "seed": int64(7), "bulk_size": int64(100),
			"ingest_percentage": 50.0, "time_limit": 90 * time.Second, "refresh_interval": "30s"})}
	c, dir := osbBuild(t, inv)
	all := strings.Join(append(slices.Clone(c.Argv), c.Env...), " ")
	if strings.Contains(all, "s3cr") {
		t.Errorf("the password is on the command line or in the environment: %q %q", c.Argv, c.Env)
	}
	id, err := os.ReadFile(filepath.Join(dir, osbRunIDFile))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "argv", strings.Join(c.Argv, " "), "opensearch-benchmark run --pipeline=benchmark-only --offline "+
		"--target-hosts=127.0.0.1:9241 --workload-path="+filepath.Join(dir, "workload")+
		" --client-options="+filepath.Join(dir, "client-options.json")+" --test-run-id="+strings.TrimSpace(string(id))+
		" --results-format=markdown --results-file="+filepath.Join(dir, "results.md"))
	eq(t, "env", strings.Join(c.Env, " "), "BENCHMARK_HOME="+dir+" BENCHMARK_RUNNING_IN_DOCKER=true")

	// The client options: the password here only, in a file only the user reads.
	opts := readJSON(t, filepath.Join(dir, osbClientOptions))
	want := map[string]any{"default": map[string]any{"timeout": 60.0, "basic_auth_user": "admin", "basic_auth_password": pw}}
	if !reflect.DeepEqual(opts, want) {
		t.Errorf("client options %v, want %v", opts, want)
	}
	for _, f := range []string{osbClientOptions, "workload/workload.json", "workload/index.json", "workload/corpus-1.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v %v, want 0600", f, st.Mode().Perm(), err)
		}
	}

	// The corpus: WriteCorpus's documents, counted.
	var gen bytes.Buffer
	if err := searchparams.WriteCorpus(&gen, 1234, 7); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "workload", "corpus-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, gen.Bytes()) {
		t.Errorf("the corpus file is not WriteCorpus(1234 docs, seed 7)")
	}
	docs, task, ops := osbSchedule(t, dir)
	eq(t, "schedule", strings.Join(ops, " "), "delete-index create-index cluster-health bulk refresh")
	wantDocs := []map[string]any{{"source-file": "corpus-1.json", "document-count": 1234.0,
		"uncompressed-bytes": float64(len(got)), "target-index": "fairbench-logs"}}
	if !reflect.DeepEqual(docs, wantDocs) {
		t.Errorf("documents %v, want %v", docs, wantDocs)
	}
	if n := bytes.Count(got, []byte("\n")); n != 1234 {
		t.Errorf("%d lines", n)
	}
	wantTask := map[string]any{"clients": 4.0, "warmup-time-period": 5.0, "time-period": 90.0,
		"operation": map[string]any{"name": "bulk", "operation-type": "bulk", "bulk-size": 100.0, "ingest-percentage": 50.0}}
	if !reflect.DeepEqual(task, wantTask) {
		t.Errorf("bulk task %v, want %v", task, wantTask)
	}
	// index.json: the native workload's definition, with its marker.
	idx := readJSON(t, filepath.Join(dir, "workload", "index.json"))
	def, err := searchparams.IndexDefinition(inv.Params)
	if err != nil {
		t.Fatal(err)
	}
	def["mappings"].(map[string]any)["_meta"] = map[string]any{"fairbench": map[string]any{"workload": "bulkindex",
		"corpus": "generated http_logs documents (seed 7)", "documents": 617}}
	wantIdx, _ := json.Marshal(def)
	var wantIdxMap map[string]any
	json.Unmarshal(wantIdx, &wantIdxMap)
	if !reflect.DeepEqual(idx, wantIdxMap) {
		t.Errorf("index.json %v, want %v", idx, wantIdxMap)
	}
	if got := idx["settings"].(map[string]any)["index"].(map[string]any)["refresh_interval"]; got != "30s" {
		t.Errorf("refresh_interval %v", got)
	}
}

func TestBuildOSBCorpusFiles(t *testing.T) {
	src := t.TempDir()
	a := filepath.Join(src, "a.json")
	b := filepath.Join(src, "b.ndjson")
	os.WriteFile(a, []byte("{\"x\":1}\n{\"x\":2}\n{\"x\": \"three\"}\n"), 0o644)
	os.WriteFile(b, []byte("{\"y\":1}\r\n{}\r\n"), 0o644)
	c, dir := osbBuild(t, Invocation{URL: "opensearch://127.0.0.1:9241", Clients: 2,
		Params: osbParams(map[string]any{"corpus": []string{a, b}, "mode": "index-update", "conflict_probability": 40.0})})
	eq(t, "hosts", c.Argv[4], "--target-hosts=127.0.0.1:9241")
	docs, task, _ := osbSchedule(t, dir)
	want := []map[string]any{
		{"source-file": "corpus-1.json", "document-count": 3.0, "uncompressed-bytes": 31.0, "target-index": "fairbench-logs"},
		{"source-file": "corpus-2.json", "document-count": 2.0, "uncompressed-bytes": 13.0, "target-index": "fairbench-logs"},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("documents %v, want %v", docs, want)
	}
	for i, f := range []string{a, b} {
		link := filepath.Join(dir, "workload", docs[i]["source-file"].(string))
		if to, err := os.Readlink(link); err != nil || to != f {
			t.Errorf("%s links to %q (%v), want %s", link, to, err, f)
		}
	}
	meta := readJSON(t, filepath.Join(dir, "workload", "index.json"))["mappings"].(map[string]any)["_meta"]
	wantMeta := map[string]any{"fairbench": map[string]any{"workload": "bulkindex", "corpus": "a.json, b.ndjson", "documents": 5.0}}
	if !reflect.DeepEqual(meta, wantMeta) {
		t.Errorf("index marker %v, want %v", meta, wantMeta)
	}
	op := task["operation"].(map[string]any)
	if op["conflicts"] != "random" || op["conflict-probability"] != 40.0 || op["on-conflict"] != "index" {
		t.Errorf("index-update: bulk operation %v", op)
	}
	if _, ok := task["time-period"]; ok {
		t.Errorf("time-period without time-limit: %v", task)
	}
	opts := readJSON(t, filepath.Join(dir, osbClientOptions))
	if !reflect.DeepEqual(opts, map[string]any{"default": map[string]any{"timeout": 60.0}}) {
		t.Errorf("client options %v", opts)
	}
	// index-append: no conflicts.
	_, dir = osbBuild(t, Invocation{URL: "opensearch://127.0.0.1:9241", Clients: 2, Params: osbParams(map[string]any{"corpus": []string{a}})})
	_, task, _ = osbSchedule(t, dir)
	if _, ok := task["operation"].(map[string]any)["conflicts"]; ok {
		t.Errorf("index-append with conflicts: %v", task)
	}
}

func TestBuildOSBBadCorpus(t *testing.T) {
	src := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"text.json", "{\"a\":1}\nhello\n", "text.json:2: not a JSON object"},
		{"array.json", "{\"a\":1}\n{\"a\":2}\n[1,2]\n", "array.json:3: not a JSON object"},
		{"broken.json", "{\"a\":1\n", "broken.json:1: not a JSON object"},
		{"blank.json", "{\"a\":1}\n\n{\"a\":2}\n", "blank.json:2: an empty line"},
		{"cut.json", "{\"a\":1}\n{\"a\":2}", "cut.json:2: the last line has no line break"},
		{"empty.json", "", "empty.json: no documents"},
	} {
		f := filepath.Join(src, tc.name)
		os.WriteFile(f, []byte(tc.text), 0o644)
		_, err := buildOSB(Invocation{URL: "opensearch://127.0.0.1:9241", Clients: 1, LogDir: t.TempDir(),
			Params: osbParams(map[string]any{"corpus": []string{f}})})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// A missing file stops the study before it starts (no LogDir yet).
	_, err := buildOSB(Invocation{URL: "opensearch://127.0.0.1:9241", Clients: 1,
		Params: osbParams(map[string]any{"corpus": []string{filepath.Join(src, "nope.json")}})})
	if err == nil || !strings.Contains(err.Error(), "nope.json") {
		t.Errorf("missing corpus file: %v", err)
	}
}

func TestOSBTargets(t *testing.T) {
	t.Setenv("OPENSEARCH_PASSWORD", "")
	t.Setenv("OPENSEARCH_API_KEY", "")
	tg, err := parseOSBTarget("opensearchs://u:p%40ss@h1:9201,h2,[::1]:9300/?ca=/etc/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "hosts", strings.Join(tg.hosts, ","), "h1:9201,h2:9200,[::1]:9300")
	want := map[string]any{"timeout": 60, "use_ssl": true, "ca_certs": "/etc/ca.pem", "basic_auth_user": "u", "basic_auth_password": "p@ss"}
	if !reflect.DeepEqual(tg.options, want) {
		t.Errorf("options %v, want %v", tg.options, want)
	}
	for raw, want := range map[string]map[string]any{
		"opensearch://h?tls=true&insecure=true": {"timeout": 60, "use_ssl": true, "verify_certs": false, "ssl_show_warn": false},
		"opensearchs://h?tls=false":             {"timeout": 60},
		"opensearch://h:9241":                   {"timeout": 60},
	} {
		if tg, err := parseOSBTarget(raw); err != nil || !reflect.DeepEqual(tg.options, want) {
			t.Errorf("%s: options %v (%v), want %v", raw, tg.options, err, want)
		}
	}
	// A user without a password: OPENSEARCH_PASSWORD's, as the driver's.
	t.Setenv("OPENSEARCH_PASSWORD", "from-env")
	if tg, err = parseOSBTarget("opensearchs://admin@h"); err != nil || tg.options["basic_auth_password"] != "from-env" {
		t.Errorf("OPENSEARCH_PASSWORD: %v %v", tg.options, err)
	}
	t.Setenv("OPENSEARCH_PASSWORD", "")
	// OSB has no API keys.
	t.Setenv("OPENSEARCH_API_KEY", "k")
	if _, err = parseOSBTarget("opensearchs://h"); err == nil || !strings.Contains(err.Error(), "takes no API key") {
		t.Errorf("OPENSEARCH_API_KEY: %v", err)
	}
	t.Setenv("OPENSEARCH_API_KEY", "")
	for raw, want := range map[string]string{
		"postgres://h/db":                   "opensearch:// or opensearchs://",
		"elasticsearch://h":                 "opensearch:// or opensearchs://",
		"opensearch://h?ca=/x.pem":          "insecure and ca need TLS",
		"opensearch://h?insecure=true":      "insecure and ca need TLS",
		"opensearchs://h?insecure=maybe":    "use true or false",
		"opensearch://h?timeout=5":          `parameter "timeout"`,
		"opensearch://h?api_key=abc":        "takes no API key",
		"opensearch://u@h":                  "a user and its password (in the URL or in OPENSEARCH_PASSWORD)",
		"opensearch://h/logs":               "unexpected path /logs",
		"opensearch://h:0":                  "not a TCP port",
		"opensearch://h1:9200,,h2":          "an empty host",
		"opensearch://":                     "no host",
		"opensearch://h:9200/?x=1&tls=true": `parameter "x"`,
	} {
		if _, err := parseOSBTarget(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", raw, err, want)
		}
	}
}

func TestBuildOSBRefuses(t *testing.T) {
	base := Invocation{URL: "opensearch://127.0.0.1:9241", Clients: 2, Params: osbParams(nil)}
	for want, change := range map[string]func(*Invocation){
		"take no rate":          func(i *Invocation) { i.Rate = 100 },
		"no latency limit":      func(i *Invocation) { i.LatencyLimit = time.Second },
		"remove max_tries":      func(i *Invocation) { i.MaxTries = 3 },
		"remove threads":        func(i *Invocation) { i.Threads = 2 },
		"at least one client":   func(i *Invocation) { i.Clients = 0 },
		"retries = 2":           func(i *Invocation) { i.Params["retries"] = int64(2) },
		"ingest_percentage = 0": func(i *Invocation) { i.Params["ingest_percentage"] = 0.0 },
		`mode = "index-delete"`: func(i *Invocation) { i.Params["mode"] = "index-delete" },
		"index name without {":  func(i *Invocation) { i.Params["index"] = "logs-{{x}}" },
	} {
		inv := base
		inv.Params = osbParams(nil)
		change(&inv)
		if _, err := buildOSB(inv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	// The specs refuse what is out of range before a builder sees it.
	for name, v := range map[string]any{searchparams.BulkSize: int64(0), searchparams.ConflictProbability: -1.0} {
		spec, _ := params.Find(searchparams.BulkSpecs(), name)
		if _, err := params.Coerce(spec, v); err == nil || !strings.Contains(err.Error(), name+" must be at least") {
			t.Errorf("%s = %v: %v; want the spec to refuse it", name, v, err)
		}
	}
	// docs = 0 is refused when the corpus is written.
	inv := base
	inv.Params = osbParams(map[string]any{"docs": int64(0)})
	inv.LogDir = t.TempDir()
	if _, err := buildOSB(inv); err == nil || !strings.Contains(err.Error(), "docs = 0") {
		t.Errorf("docs = 0: %v", err)
	}
}

// A private directory whose path holds ',' or ':' (from TMPDIR) would make
// OSB read --client-options as key:value pairs, never opening the file with
// the password and the CA: refused at the study's check, before anything is
// written, and at the run.
func TestBuildOSBRefusesAClientOptionsPathOSBWouldNotRead(t *testing.T) {
	inv := Invocation{URL: "opensearchs://admin:pw-1234@127.0.0.1:9241", Clients: 2, Params: osbParams(nil)}
	for _, sep := range []string{":", ","} {
		tmp := filepath.Join(t.TempDir(), "a"+sep+"b")
		t.Setenv("TMPDIR", tmp)
		for _, logDir := range []string{"", tmp} {
			inv.LogDir = logDir
			_, err := buildOSB(inv)
			if err == nil || !strings.Contains(err.Error(), "set TMPDIR to a directory without them") || strings.Contains(err.Error(), "pw-1234") {
				t.Errorf("private directory %q under TMPDIR=%s: %v", logDir, tmp, err)
			}
		}
		if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want nothing written", tmp, err)
		}
	}
}

// The run read from the console is replaced by this run's test_run.json,
// found by the id Build gave the run.
func TestAttachOSBLogDir(t *testing.T) {
	console, err := os.ReadFile("testdata/opensearch-benchmark/console.txt")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := parseOSB("console", string(console))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, osbRunIDFile), []byte("07b519e2-00d1-4a23-98f8-a34f81e4256f\n"), 0o600)
	// Not there: the console's run stays, and says so.
	if err := attachOSBLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	if d := runs[0].Deviations; !strings.Contains(d[len(d)-1], "console summary") {
		t.Errorf("deviations %q", d)
	}
	tr, err := os.ReadFile("testdata/opensearch-benchmark/test_run-1.json")
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, ".osb", "benchmarks", "test-runs", "07b519e2-00d1-4a23-98f8-a34f81e4256f")
	os.MkdirAll(runDir, 0o700)
	os.WriteFile(filepath.Join(runDir, "test_run.json"), tr, 0o600)
	if err := attachOSBLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	want, _ := parseOSBJSON("test_run.json", string(tr))
	if !reflect.DeepEqual(runs[0], want[0]) {
		t.Errorf("the run is not test_run.json's")
	}
	if runs[0].Duration <= 0 || runs[0].Summary.Metric == nil || runs[0].Summary.Metric.Value <= 0 {
		t.Errorf("duration %v, metric %+v", runs[0].Duration, runs[0].Summary.Metric)
	}
	// Another run's test_run.json under this run's id is refused.
	os.WriteFile(filepath.Join(dir, osbRunIDFile), []byte("3f7b12c7-225d-4189-b31b-efd4e9000a08\n"), 0o600)
	other := filepath.Join(dir, ".osb", "benchmarks", "test-runs", "3f7b12c7-225d-4189-b31b-efd4e9000a08")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "test_run.json"), tr, 0o600)
	if err := attachOSBLogDir(runs, dir); err == nil || !strings.Contains(err.Error(), "expected") {
		t.Errorf("a test_run.json of another run: %v", err)
	}
}
