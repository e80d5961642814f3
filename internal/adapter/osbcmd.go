package adapter

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
)

// A study cell with tool = "opensearch-benchmark" runs OpenSearch Benchmark
// (OSB) 2.4.0 for a bulkindex cell: one `opensearch-benchmark run
// --pipeline=benchmark-only --offline` of a local workload that fairbench
// writes from the cell's parameters into the run's private directory
// (Invocation.LogDir, mode 0700, removed after the run):
//
//   - workload/index.json: the native workload's index definition
//     (searchparams: shards, replicas, refresh_interval, codec, the mapping
//     file's or http_logs' mappings) with fairbench's marker in its _meta,
//     so that the index OSB makes is fairbench's as the native one is;
//   - workload/workload.json: one index (the parameter index), one corpus,
//     and the schedule delete-index, create-index, cluster-health (yellow,
//     retried until it succeeds), the bulk task (bulk-size, the cell's
//     clients, warmup-time-period = the cell's warm-up, ingest-percentage,
//     time-period = time-limit when set; for mode = "index-update" conflicts
//     "random" with conflict-probability and on-conflict "index", Rally's and
//     OSB's index-update), then refresh;
//   - the corpus: each file of the parameter corpus linked into workload/
//     (corpus-1.json, …: OSB writes its .offset table beside the file it
//     reads, here beside the link, never beside the user's file), one
//     documents entry per file with its document-count and uncompressed-bytes
//     counted here (OSB refuses a file whose size differs); every line must be
//     one JSON object, else the cell stops at FILE:LINE. Without corpus files,
//     searchparams.WriteCorpus writes docs documents of the given seed into
//     workload/corpus-1.json, the same documents the native workload indexes.
//
// OSB keeps its configuration, logs and test runs under $BENCHMARK_HOME/.osb
// (osbenchmark/paths.py): fairbench sets BENCHMARK_HOME to the private
// directory and gives the run an id of its own (--test-run-id), so the
// test_run.json it reads is this run's, at
// LogDir/.osb/benchmarks/test-runs/ID/test_run.json. attachOSBLogDir reads it
// with the importer (osb.go); the console summary, which OSB prints without a
// terminal only with BENCHMARK_RUNNING_IN_DOCKER=true (set), is the fallback
// when it is missing. OSB still creates ~/.benchmark and the link ~/.osb in
// the user's home (paths.benchmark_confdir does so whatever BENCHMARK_HOME
// says), but puts nothing of the run there.
//
// Target: opensearch://[user[:password]@]host[:port][,host2[:port2]…] (port
// 9200) → --target-hosts, the password from OPENSEARCH_PASSWORD when the URL
// has a user without one (api_key and OPENSEARCH_API_KEY are refused: OSB
// has no API keys); opensearchs:// or ?tls=true sets use_ssl, ?ca=FILE →
// ca_certs and ?insecure=true → verify_certs false: the OpenSearch driver's
// grammar, so that one target serves native and OSB cells. OSB's client options
// go in a JSON file in the private directory (--client-options=FILE: OSB
// reads a value ending in .json without ',' or ':' as a file,
// osbenchmark/utils/opts.py), the user and password as basic_auth_user and
// basic_auth_password: OSB takes them nowhere else than in the client
// options (its command line, or that file), and not from its environment.
// The file is 0600 in the 0700 directory, removed after the run; OSB masks
// the password in its log and writes no client option into test_run.json.
//
// Refused: a rate, a latency limit, retries (OSB can only send a whole _bulk
// request again, retry-on-error, which indexes its accepted documents a
// second time), max_tries and threads. The cell's duration is not OSB's to
// keep: the bulk task ends when the corpus (× ingest-percentage) is indexed
// or time-limit has passed, as the native workload's run does.
//
// OSB lets one benchmark run at a time on a machine (it refuses to start
// while another opensearch-benchmark process runs) and starts its actor
// system on local ports: cells run one after another anyway.

// osbVersion is the OpenSearch Benchmark fairbench runs and was tested with.
const osbVersion = "2.4.0"

var osbInstall = "OpenSearch Benchmark " + osbVersion + " is needed: scripts/install-osb.sh DIR installs it into a Python venv DIR/osb-" +
	osbVersion + " (pip install opensearch-benchmark==" + osbVersion + ") and prints the path of its opensearch-benchmark; put its directory on the PATH"

// The password (or API key) of a target URL with a user and no password, as
// the OpenSearch driver reads them.
const (
	osbPasswordEnv = "OPENSEARCH_PASSWORD"
	osbAPIKeyEnv   = "OPENSEARCH_API_KEY"
)

// File names in the run's private directory.
const (
	osbWorkloadDir   = "workload"
	osbClientOptions = "client-options.json"
	osbRunIDFile     = "test-run-id"
	osbResultsFile   = "results.md"
	osbBulkTask      = "bulk"
)

// osbTarget is a target URL as OSB's hosts and client options.
type osbTarget struct {
	hosts   []string // host:port
	options map[string]any
}

// parseOSBTarget reads the OpenSearch driver's URL grammar
// (internal/driver/opensearch, url.go):
// opensearch[s]://[user[:password]@]host[:port][,host[:port]…][/][?tls=&ca=&insecure=],
// split by hand as the driver does (net/url refuses a list of hosts with
// ports).
func parseOSBTarget(raw string) (*osbTarget, error) {
	t := &osbTarget{options: map[string]any{"timeout": 60}}
	scheme, rest, ok := strings.Cut(raw, "://")
	tls := false
	switch strings.ToLower(scheme) {
	case "opensearch":
	case "opensearchs":
		tls = true
	default:
		if !ok {
			scheme = raw
		}
		return nil, fmt.Errorf("opensearch-benchmark needs an opensearch:// or opensearchs:// target, not %s", scheme)
	}
	rest, rawQuery, _ := strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	if path != "" {
		return nil, fmt.Errorf("target URL: unexpected path /%s: the index is the parameter index", path)
	}
	user, pw, hasUser, hasPW := "", "", false, false
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		var err error
		u, p, withPW := strings.Cut(authority[:at], ":")
		authority = authority[at+1:]
		if user, err = url.PathUnescape(u); err != nil {
			return nil, fmt.Errorf("target URL: the user is not validly percent-encoded")
		}
		if withPW {
			if pw, err = url.PathUnescape(p); err != nil {
				return nil, fmt.Errorf("target URL: the password is not validly percent-encoded")
			}
		}
		hasUser, hasPW = true, withPW
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("target URL: query: %v", err)
	}
	for k := range q {
		switch k {
		case "tls", "ca", "insecure":
		case "api_key":
			return nil, fmt.Errorf("target URL: OpenSearch Benchmark 2.4 (opensearch-py) takes no API key: give the target a user (opensearchs://user@host) and its password in %s", osbPasswordEnv)
		default:
			return nil, fmt.Errorf("target URL parameter %q: opensearch-benchmark cells understand tls, ca and insecure", k)
		}
	}
	boolParam := func(name string, def bool) (bool, error) {
		v := q.Get(name)
		if v == "" {
			return def, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("target URL: %s=%q: use true or false", name, v)
		}
		return b, nil
	}
	if tls, err = boolParam("tls", tls); err != nil {
		return nil, err
	}
	insecure, err := boolParam("insecure", false)
	if err != nil {
		return nil, err
	}
	if (insecure || q.Get("ca") != "") && !tls {
		return nil, fmt.Errorf("target URL: insecure and ca need TLS: use opensearchs:// or add tls=true")
	}
	if authority == "" {
		return nil, fmt.Errorf("target URL: no host: write opensearch://host[:9200]")
	}
	for _, h := range strings.Split(authority, ",") {
		host, port := h, "9200"
		// A port follows the last colon, except inside an IPv6 literal's brackets.
		if i := strings.LastIndex(h, ":"); i >= 0 && i > strings.LastIndex(h, "]") {
			host, port = h[:i], h[i+1:]
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if host == "" {
			return nil, fmt.Errorf("target URL: an empty host in %q", authority)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("target URL: port %q of %s is not a TCP port", port, host)
		}
		t.hosts = append(t.hosts, net.JoinHostPort(host, port))
	}
	if tls {
		t.options["use_ssl"] = true
		if insecure {
			t.options["verify_certs"] = false
			t.options["ssl_show_warn"] = false
		}
		if ca := q.Get("ca"); ca != "" {
			abs, err := filepath.Abs(ca)
			if err != nil {
				return nil, fmt.Errorf("target URL: ca=%s: %w", ca, err)
			}
			t.options["ca_certs"] = abs
		}
	}
	if hasUser {
		// A study file names the user and leaves the password to the
		// environment, as the driver reads it.
		if !hasPW {
			pw = os.Getenv(osbPasswordEnv)
		}
		if user == "" || pw == "" {
			return nil, fmt.Errorf("target URL: opensearch-benchmark needs a user and its password (in the URL or in %s)", osbPasswordEnv)
		}
		t.options["basic_auth_user"] = user
		t.options["basic_auth_password"] = pw
	} else if os.Getenv(osbAPIKeyEnv) != "" {
		return nil, fmt.Errorf("%s is set, but OpenSearch Benchmark 2.4 (opensearch-py) takes no API key: give the target a user (opensearchs://user@host) and its password in %s", osbAPIKeyEnv, osbPasswordEnv)
	}
	return t, nil
}

func buildOSB(inv Invocation) (Command, error) {
	t, err := parseOSBTarget(inv.URL)
	if err != nil {
		return Command{}, err
	}
	if inv.Clients < 1 {
		return Command{}, fmt.Errorf("opensearch-benchmark needs at least one client")
	}
	switch {
	case inv.Rate > 0:
		return Command{}, fmt.Errorf("opensearch-benchmark cells take no rate (OSB's target-throughput is per task in requests, not documents): remove rate")
	case inv.LatencyLimit > 0:
		return Command{}, fmt.Errorf("opensearch-benchmark has no latency limit: remove latency_limit")
	case inv.MaxTries > 1:
		return Command{}, fmt.Errorf("opensearch-benchmark does not retry failed documents: remove max_tries")
	case inv.Threads > 0:
		return Command{}, fmt.Errorf("opensearch-benchmark runs each client as its own asyncio task: remove threads")
	}
	p := inv.Params
	if r := searchparams.DecodeBulk(p).Retries; r > 0 {
		return Command{}, fmt.Errorf("%s = %d: opensearch-benchmark can only send a whole _bulk request again (retry-on-error), "+
			"which indexes its accepted documents a second time; use %s = 0 for an OSB cell", searchparams.Retries, r, searchparams.Retries)
	}
	if _, err := osbWorkload(p, inv, nil); err != nil {
		return Command{}, err
	}
	files := p.Strings(searchparams.CorpusFiles)
	for _, f := range files {
		if st, err := os.Stat(f); err != nil {
			return Command{}, fmt.Errorf("corpus: %w", err)
		} else if !st.Mode().IsRegular() {
			return Command{}, fmt.Errorf("corpus: %s is not a regular file", f)
		}
	}
	id, err := osbRunID()
	if err != nil {
		return Command{}, err
	}
	dir := inv.LogDir
	if dir == "" {
		// The study's check before it starts: nothing is written.
		dir = filepath.Join(os.TempDir(), "fairbench-opensearch-benchmark")
	}
	if strings.ContainsAny(dir, ",:") {
		// OSB reads --client-options as a file only when the value has
		// neither (osbenchmark/utils/opts.py, to_dict); else it parses the
		// path as key:value pairs and connects without the password and CA.
		return Command{}, fmt.Errorf("the run's private directory %s holds ',' or ':', with which OpenSearch Benchmark would read "+
			"--client-options as key:value pairs instead of the file that holds the password and TLS settings: set TMPDIR to a directory without them", dir)
	}
	if inv.LogDir != "" {
		if err := writeOSBFiles(dir, id, t, p, inv); err != nil {
			return Command{}, err
		}
	}
	argv := []string{"opensearch-benchmark", "run", "--pipeline=benchmark-only", "--offline",
		"--target-hosts=" + strings.Join(t.hosts, ","),
		"--workload-path=" + filepath.Join(dir, osbWorkloadDir),
		"--client-options=" + filepath.Join(dir, osbClientOptions),
		"--test-run-id=" + id,
		"--results-format=markdown", "--results-file=" + filepath.Join(dir, osbResultsFile)}
	env := []string{"BENCHMARK_HOME=" + dir, "BENCHMARK_RUNNING_IN_DOCKER=true"}
	return Command{Argv: argv, Env: env}, nil
}

// osbRunID is a random UUID (version 4) for --test-run-id.
func osbRunID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// osbDocs is one documents entry of the workload's corpus.
type osbDocs struct {
	SourceFile        string `json:"source-file"`
	DocumentCount     int64  `json:"document-count"`
	UncompressedBytes int64  `json:"uncompressed-bytes"`
	TargetIndex       string `json:"target-index"`
}

// osbWorkload is workload.json for the cell's parameters and corpus.
func osbWorkload(p params.Values, inv Invocation, docs []osbDocs) (map[string]any, error) {
	index := p.String(searchparams.Index)
	if index == "" || strings.ContainsAny(index, "{}%#") {
		// OSB renders workload.json with Jinja2.
		return nil, fmt.Errorf("index = %q: opensearch-benchmark cells need an index name without {, }, %% or #", index)
	}
	b := searchparams.DecodeBulk(p)
	// The spec takes 0 %, which indexes nothing; OSB refuses it.
	if b.IngestPercentage <= 0 {
		return nil, fmt.Errorf("%s = %g: OSB takes more than 0 and at most 100", searchparams.IngestPercentage, b.IngestPercentage)
	}
	bulk := map[string]any{"name": osbBulkTask, "operation-type": "bulk", "bulk-size": b.Size, "ingest-percentage": b.IngestPercentage}
	switch m := b.Mode; m {
	case searchparams.ModeAppend:
	case searchparams.ModeUpdate:
		bulk["conflicts"] = "random"
		bulk["conflict-probability"] = b.ConflictProbability
		bulk["on-conflict"] = "index"
	default:
		return nil, fmt.Errorf("%s = %q: opensearch-benchmark cells run %s or %s", searchparams.Mode, m, searchparams.ModeAppend, searchparams.ModeUpdate)
	}
	task := map[string]any{"operation": bulk, "clients": inv.Clients, "warmup-time-period": int64(inv.Warmup.Round(time.Second) / time.Second)}
	if tl := b.TimeLimit; tl > 0 {
		task["time-period"] = max(int64(tl.Round(time.Second)/time.Second), 1)
	}
	return map[string]any{
		"version":     2,
		"description": "fairbench bulkindex cell",
		"indices":     []any{map[string]any{"name": index, "body": "index.json"}},
		"corpora":     []any{map[string]any{"name": "fairbench-corpus", "documents": docs}},
		"schedule": []any{
			map[string]any{"operation": map[string]any{"operation-type": "delete-index"}},
			map[string]any{"operation": map[string]any{"operation-type": "create-index"}},
			map[string]any{"operation": map[string]any{"operation-type": "cluster-health", "index": index,
				"request-params": map[string]any{"wait_for_status": "yellow"}, "retry-until-success": true}},
			task,
			map[string]any{"operation": map[string]any{"operation-type": "refresh", "index": index}},
		},
	}, nil
}

// writeOSBFiles writes the workload, the corpus (or its links) and the
// client options into dir.
func writeOSBFiles(dir, id string, t *osbTarget, p params.Values, inv Invocation) error {
	wl := filepath.Join(dir, osbWorkloadDir)
	if err := os.MkdirAll(wl, 0o700); err != nil {
		return err
	}
	corpus, err := searchparams.NewCorpus(p)
	if err != nil {
		return err
	}
	var docs []osbDocs
	if len(corpus.Files) > 0 {
		for i, f := range corpus.Files {
			abs, err := filepath.Abs(f)
			if err != nil {
				return fmt.Errorf("corpus: %w", err)
			}
			n, size, err := osbCorpusFile(abs)
			if err != nil {
				return err
			}
			corpus.Total += n
			name := fmt.Sprintf("corpus-%d.json", i+1)
			if err := os.Symlink(abs, filepath.Join(wl, name)); err != nil {
				return fmt.Errorf("corpus: %w", err)
			}
			docs = append(docs, osbDocs{SourceFile: name, DocumentCount: n, UncompressedBytes: size, TargetIndex: corpus.Index})
		}
	} else {
		if corpus.Docs < 1 {
			return fmt.Errorf("docs = %d: the generated corpus needs at least one document", corpus.Docs)
		}
		name := "corpus-1.json"
		size, err := writeGeneratedCorpus(filepath.Join(wl, name), corpus.Docs, corpus.Seed)
		if err != nil {
			return err
		}
		docs = append(docs, osbDocs{SourceFile: name, DocumentCount: corpus.Docs, UncompressedBytes: size, TargetIndex: corpus.Index})
	}
	w, err := osbWorkload(p, inv, docs)
	if err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(wl, "workload.json"), w); err != nil {
		return err
	}
	def, err := corpus.MarkedDefinition()
	if err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(wl, "index.json"), def); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir, osbClientOptions), map[string]any{"default": t.options}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, osbRunIDFile), []byte(id+"\n"), 0o600)
}

// osbCorpusFile checks a corpus file as the native workload does
// (searchparams.CheckCorpus: one JSON object per line, else FILE:LINE) and
// returns its lines and size in bytes: OSB's document-count and
// uncompressed-bytes. OSB reads lines up to their line break: a last line
// without one would run into the next line of its _bulk body, so it is
// refused.
func osbCorpusFile(path string) (lines, size int64, err error) {
	lines, _, err = searchparams.CheckCorpus([]string{path})
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return 0, 0, fmt.Errorf("corpus %s: %w", path, err)
	}
	if last[0] != '\n' {
		return 0, 0, fmt.Errorf("corpus %s:%d: the last line has no line break (OpenSearch Benchmark would join it with the next line of its _bulk body): end the file with one", path, lines)
	}
	return lines, st.Size(), nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// writeGeneratedCorpus writes docs generated documents into path and returns
// its size, checking that it holds one document per line.
func writeGeneratedCorpus(path string, docs int64, seed uint64) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	cw := &lineCounter{w: bufio.NewWriterSize(f, 1<<20)}
	err = searchparams.WriteCorpus(cw, docs, seed)
	if err == nil {
		err = cw.w.(*bufio.Writer).Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("writing the corpus: %w", err)
	}
	if cw.lines != docs || !cw.lastNL {
		return 0, fmt.Errorf("the generated corpus has %d lines for %d documents", cw.lines, docs)
	}
	return cw.n, nil
}

type lineCounter struct {
	w      io.Writer
	n      int64
	lines  int64
	lastNL bool
}

func (c *lineCounter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.lines += int64(bytes.Count(b[:n], []byte{'\n'}))
	if n > 0 {
		c.lastNL = b[n-1] == '\n'
	}
	return n, err
}

// attachOSBLogDir replaces the run parsed from OSB's console summary by the
// one this run's test_run.json holds (BENCHMARK_HOME is dir, the run's id is
// in dir/test-run-id), which adds the task's duration, OSB's version and the
// cluster's. Without it the console's run stays, and says so.
func attachOSBLogDir(runs []*result.Run, dir string) error {
	if len(runs) != 1 {
		return fmt.Errorf("OSB's test_run.json needs exactly one run to replace, got %d", len(runs))
	}
	b, err := boundfile.Read(filepath.Join(dir, osbRunIDFile), 4<<10, "OSB's run id")
	if err != nil {
		return fmt.Errorf("the run's id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	path := filepath.Join(dir, ".osb", "benchmarks", "test-runs", id, "test_run.json")
	b, err = boundfile.Read(path, maxOutput, "OSB's test_run.json")
	if errors.Is(err, os.ErrNotExist) {
		runs[0].Deviations = append(runs[0].Deviations, "read from OSB's console summary: its test_run.json was not found")
		return nil
	}
	if err != nil {
		return err
	}
	jr, err := parseOSBJSON("test_run.json", string(b))
	if err != nil {
		return err
	}
	if got, _ := jr[0].Env.Extra["osb"].(map[string]any)["test-run-id"].(string); got != id {
		return fmt.Errorf("%s: test run %q, expected %q", path, got, id)
	}
	if err := validRun(path, jr[0]); err != nil {
		return err
	}
	*runs[0] = *jr[0]
	return nil
}
