package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	batchv1 "k8s.io/api/batch/v1"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sigs.k8s.io/yaml"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/testenv"
)

// generatorsStudy writes a study of one tpcb cell on n load generators.
func generatorsStudy(t *testing.T, dir, target string, clients, n int, duration string) string {
	t.Helper()
	path := filepath.Join(dir, "study.toml")
	text := fmt.Sprintf(`[study]
name = "scale-out"
repetitions = 1
warmup = "0s"
duration = %q
seed = 7

[[target]]
name = "db"
url = %q

[[workload]]
name = "tpcb"
kind = "tpcb"
scale = 1
clients = %d
generators = %d
`, duration, target, clients, n)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// onlyRun reads the one run of a results store, with its generators' parts.
func onlyRun(t *testing.T, results string) (*result.Run, []store.Part) {
	t.Helper()
	runs := runsIn(t, results)
	if len(runs) != 1 {
		t.Fatalf("%d runs stored, want the one merged run (partial runs are not runs)", len(runs))
	}
	s, err := store.OpenExisting(results)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	parts, ok, err := s.PartsOfRun(context.Background(), runs[0].ID)
	if err != nil || !ok {
		t.Fatalf("no partial runs for run %d: %v", runs[0].ID, err)
	}
	return runs[0], parts
}

// runStudyText writes a study file into dir, runs it into a results file,
// and returns its one merged run, which must be ok, with the parts.
func runStudyText(t *testing.T, dir, text string) (*result.Run, []store.Part) {
	t.Helper()
	path := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results.db")
	o := fairbench(t, dir, "run", path, "--results", results)
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	run, parts := onlyRun(t, results)
	if run.Status != result.StatusOK {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	return run, parts
}

// checkMerged asserts what a merged run of n generators must be: its
// clients and operations the sums of its parts', each generator's share of
// the clients, and percentiles read from one histogram holding every
// latency the generators recorded.
func checkMerged(t *testing.T, run *result.Run, parts []store.Part, clients, n int) {
	t.Helper()
	if run.Status != result.StatusOK {
		t.Fatalf("merged run %s: %s", run.Status, run.Error)
	}
	if len(parts) != n {
		t.Fatalf("%d partial runs, want %d", len(parts), n)
	}
	var sum, sumClients int64
	all := hist.New()
	slots := map[int64]bool{}
	for _, p := range parts {
		if p.Status != store.PartDone || p.Run == nil {
			t.Fatalf("generator %d: part %s %q", p.Generator, p.Status, p.Error)
		}
		sum += p.Run.Summary.Transactions
		sumClients += int64(p.Run.Clients)
		if p.Run.Clients < clients/n || p.Run.Clients > clients/n+1 {
			t.Errorf("generator %d ran %d clients: not an even share of %d over %d", p.Generator, p.Run.Clients, clients, n)
		}
		if g := p.Run.Env.LoadGenerator; g != nil {
			slots[int64(g.FirstSlot)] = true
		}
		for _, op := range p.Run.Ops {
			h, err := hist.Decode(op.Histogram)
			if err != nil {
				t.Fatal(err)
			}
			all.Merge(h)
		}
	}
	if len(slots) != n {
		t.Errorf("generators' first client slots %v: want %d distinct shares", slots, n)
	}
	if run.Summary.Transactions != sum || sum == 0 {
		t.Errorf("merged run: %d transactions, the parts %d", run.Summary.Transactions, sum)
	}
	if int64(run.Clients) != sumClients || run.Clients != clients {
		t.Errorf("merged run: %d clients, parts %d, cell %d", run.Clients, sumClients, clients)
	}
	if all.TotalCount() != sum {
		t.Errorf("the parts' histograms hold %d latencies, their counts %d", all.TotalCount(), sum)
	}
	for _, q := range []struct {
		name string
		got  float64
		p    float64
	}{{"p50", run.Summary.P50, 50}, {"p95", run.Summary.P95, 95}, {"p99", run.Summary.P99, 99}} {
		if want := float64(all.ValueAtQuantile(q.p)); q.got != want {
			t.Errorf("merged %s = %v µs, one histogram of every latency says %v", q.name, q.got, want)
		}
	}
	gens := run.Env.LoadGenerators
	if len(gens) != n {
		t.Fatalf("env load_generators: %v, want %d entries", gens, n)
	}
	for i, g := range gens {
		if g.Index != i {
			t.Errorf("load_generators[%d] is generator %v", i, g.Index)
		}
		if g.Throughput == nil || g.CPUPercent == nil || g.Host == "" {
			t.Errorf("load_generators[%d] lacks throughput, cpu_percent or host: %+v", i, g)
		}
	}
}

// Two local generators through an embedded results file on the embedded
// target: the mechanism without any server.
func TestTwoLocalGeneratorsOnSQLite(t *testing.T) {
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, "sqlite:"+filepath.Join(dir, "bench.db"), 4, 2, "4s")
	results := filepath.Join(dir, "results.db")
	o := fairbench(t, dir, "run", studyFile, "--results", results)
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	// While the generators measure, the coordinator shows the cell's
	// per-second totals, added up from what each generator published.
	if all := o.stdout + o.stderr; !regexp.MustCompile(`(?m)^  2 load generators: [0-9.]+ s, [1-9][0-9.]* tps`).MatchString(all) {
		t.Errorf("no per-second total of the two generators in the coordinator's output:\n%s", all)
	}
	run, parts := onlyRun(t, results)
	checkMerged(t, run, parts, 4, 2)
	// What each generator measured, for a reader: a line each, and the
	// partial runs themselves as JSON.
	o = fairbench(t, dir, "store", "parts", fmt.Sprint(run.ID), "--results", results)
	if o.code != 0 || strings.Count(o.stdout, " done ") != 2 {
		t.Errorf("store parts: exit %d, want a line per generator, both done:\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "store", "parts", fmt.Sprint(run.ID), "--results", results, "--json")
	var decoded []store.Part
	if err := json.Unmarshal([]byte(o.stdout), &decoded); err != nil || len(decoded) != 2 || decoded[1].Run == nil || decoded[1].Run.Clients != 2 {
		t.Errorf("store parts --json: %v: %d parts", err, len(decoded))
	}
	o = fairbench(t, dir, "store", "parts", fmt.Sprint(run.ID+1), "--results", results)
	assertOneLineError(t, o, fmt.Sprintf("run %d", run.ID+1), "no partial runs")
	db, err := sql.Open("sqlite", filepath.Join(dir, "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var history int64
	if err := db.QueryRow("SELECT count(*) FROM pgbench_history").Scan(&history); err != nil {
		t.Fatal(err)
	}
	if history != run.Summary.Transactions {
		t.Errorf("pgbench_history holds %d rows, the merged run counts %d transactions", history, run.Summary.Transactions)
	}
}

// pgResults returns a PostgreSQL results store in a schema of its own,
// dropped after the test.
func pgResults(t *testing.T, prefix string) string {
	t.Helper()
	base := testenv.PostgresURL(t)
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	schema := prefix + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`) //nolint:errcheck // best effort
			c.Close(ctx)
		}
	})
	return testenv.WithQuery(t, base, "schema", schema)
}

// The acceptance of issue 28: four generators as four local processes on
// loopback, one PostgreSQL target, one PostgreSQL results store. The merged
// run's transactions are the parts' sum and the server's own count (one
// pgbench_history row per transaction), its percentiles those of one
// histogram fed every latency.
func TestFourLocalGeneratorsOnPostgres(t *testing.T) {
	target := testenv.FreshPostgres(t)
	results := pgResults(t, "fbgen_")
	pw := testenv.Password(t, target)
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, target, 8, 4, "3s")
	o := fairbench(t, dir, "run", studyFile, "--results", results)
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if strings.Contains(o.stdout+o.stderr, pw) {
		t.Errorf("the password shows in the output")
	}
	run, parts := onlyRun(t, results)
	checkMerged(t, run, parts, 8, 4)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var history int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&history); err != nil {
		t.Fatal(err)
	}
	if history != run.Summary.Transactions {
		t.Errorf("pgbench_history holds %d rows, the merged run counts %d transactions", history, run.Summary.Transactions)
	}
	for _, p := range parts {
		if env, err := json.Marshal(p.Run.Env); err != nil || strings.Contains(string(env), pw) {
			t.Errorf("generator %d's environment holds the password", p.Generator)
		}
	}
}

// A generator killed during the run fails the cell with its number and
// host; the other generators' partial runs stay in the store.
func TestKilledGeneratorFailsTheCellByName(t *testing.T) {
	target := testenv.FreshPostgres(t)
	results := pgResults(t, "fbkill_")
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, target, 4, 4, "60s")
	s := startUntil(t, dir, "load generators start at", "run", studyFile, "--results", results, "--generator-stale", "3s")
	st, err := store.OpenExisting(results)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	sess, ok, err := st.FindSession(ctx, 0, "")
	if err != nil || !ok {
		t.Fatalf("no open coordination session: %v", err)
	}
	gens, err := st.Generators(ctx, sess.ID)
	if err != nil || len(gens) != 4 {
		t.Fatalf("generators %v: %v", gens, err)
	}
	time.Sleep(time.Second)
	victim := gens[2]
	if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing generator 2 (pid %d): %v", victim.PID, err)
	}
	code, took := s.stop(t, nil)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, s.errText())
	}
	if took > 45*time.Second {
		t.Errorf("the coordinator took %s to notice the dead generator and end", took)
	}
	want := fmt.Sprintf("load generator 2 (%s, pid %d) sent no heartbeat", victim.Host, victim.PID)
	if !strings.Contains(s.errText(), want) {
		t.Errorf("stderr does not name the dead generator (%q):\n%s", want, s.errText())
	}
	run, parts := onlyRun(t, results)
	if run.Status != result.StatusFailed || !strings.Contains(run.Error, want) {
		t.Errorf("stored run %s %q: want failed, naming generator 2", run.Status, run.Error)
	}
	kept := 0
	for _, p := range parts {
		if p.Generator == 2 {
			if p.Run != nil {
				t.Errorf("the killed generator has a partial run")
			}
			continue
		}
		if p.Run != nil && p.Run.Summary.Transactions > 0 {
			kept++
		}
	}
	if kept != 3 {
		t.Errorf("%d of the 3 live generators' partial runs were kept with their transactions: %+v", kept, parts)
	}
}

// The Kubernetes shape on one machine: the coordinator starts no generator
// (--remote-generators); two 'fairbench generator' processes numbered by
// JOB_COMPLETION_INDEX, as an Indexed Job's pods are, find its session
// through the study and the store.
func TestRemoteGeneratorsJoinThroughTheStore(t *testing.T) {
	target := testenv.FreshPostgres(t)
	results := pgResults(t, "fbremote_")
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, target, 4, 2, "2s")
	var gens []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 2 {
		c := exec.Command(binary, "generator", studyFile, "--results", results, "--wait", "1m")
		c.Env = append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill() })
		gens, outs = append(gens, c), append(outs, &b)
	}
	o := fairbench(t, dir, "run", studyFile, "--results", results, "--remote-generators")
	if o.code != 0 {
		t.Fatalf("coordinator: exit %d\n%s\ngenerator 0:\n%s", o.code, o.stderr, outs[0])
	}
	for i, c := range gens {
		if err := c.Wait(); err != nil {
			t.Errorf("generator %d: %v\n%s", i, err, outs[i])
		}
		if !strings.Contains(outs[i].String(), "the coordinator closed session") {
			t.Errorf("generator %d did not see the session end:\n%s", i, outs[i])
		}
	}
	run, parts := onlyRun(t, results)
	checkMerged(t, run, parts, 4, 2)
}

// Generators on other machines need a store they all reach.
func TestRemoteGeneratorsNeedASharedStore(t *testing.T) {
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, "sqlite:"+filepath.Join(dir, "b.db"), 4, 2, "1s")
	o := fairbench(t, dir, "run", studyFile, "--results", filepath.Join(dir, "r.db"), "--remote-generators")
	assertOneLineError(t, o, "--remote-generators", "postgres://")
	o = fairbench(t, dir, "generator", studyFile, "--results", filepath.Join(dir, "r.db"))
	assertOneLineError(t, o, "JOB_COMPLETION_INDEX")
}

// YCSB's operationcount is the cell's: two generators do half each, and the
// merged run does exactly operationcount operations. A workload with
// inserts is refused before anything runs: each generator would insert the
// same keys.
func TestYCSBOperationCountIsSharedByGenerators(t *testing.T) {
	dir := t.TempDir()
	study := fmt.Sprintf(`[study]
name = "ycsb on generators"
repetitions = 1
warmup = "0s"
duration = "2m"

[[target]]
name = "db"
url = "sqlite:%s"

[[workload]]
name = "ycsb"
kind = "ycsb"
workload = "WL"
recordcount = 500
operationcount = 1001
clients = 3
generators = 2
`, filepath.Join(dir, "y.db"))
	run, parts := runStudyText(t, dir, strings.Replace(study, "WL", "b", 1))
	var ops, sum int64
	for _, op := range run.Ops {
		ops += op.Count
	}
	for _, p := range parts {
		for _, op := range p.Run.Ops {
			sum += op.Count
		}
	}
	if ops != 1001 || sum != 1001 {
		t.Errorf("merged run %d operations, parts %d: want operationcount 1001", ops, sum)
	}
	path := filepath.Join(dir, "d.toml")
	if err := os.WriteFile(path, []byte(strings.Replace(study, "WL", "d", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", path, "--results", filepath.Join(dir, "r2.db"))
	if o.code != 1 || !strings.Contains(o.stderr, "insertproportion = 0.05 on 2 load generators") {
		t.Errorf("workload d on 2 generators: exit %d\n%s", o.code, o.stderr)
	}
}

// The commands the rendered pods run are ones this binary accepts: each
// Job's container args, with --help added, parse and print the command's
// help instead of an unknown-flag error.
func TestRenderedPodCommandsParse(t *testing.T) {
	dir := t.TempDir()
	studyFile := generatorsStudy(t, dir, "postgres://bench@db.bench.svc/bench", 8, 4, "10s")
	out, err := runK8s(t, "render", studyFile, "--generators", "4", "--image", "img:1", "--results", "postgres://fb@stats.bench.svc/fb")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out, "\n---\n")
	seen := 0
	for _, doc := range docs {
		if !strings.Contains(doc, "kind: Job") {
			continue
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(doc), &job); err != nil {
			t.Fatal(err)
		}
		args := job.Spec.Template.Spec.Containers[0].Args
		// The study path is the pod's: point it at this test's copy.
		for i, a := range args {
			if a == "/etc/fairbench/study.toml" {
				args[i] = studyFile
			}
		}
		o := fairbench(t, dir, append(args, "--help")...)
		if o.code != 0 || !strings.Contains(o.stdout, "Usage:") {
			t.Errorf("%s: %v: exit %d\n%s%s", job.Name, args, o.code, o.stdout, o.stderr)
		}
		seen++
	}
	if seen != 2 {
		t.Fatalf("%d Jobs rendered, want the generators' and the coordinator's", seen)
	}
}

// Bulk indexing on two load generators: each indexes its share of the
// corpus, and the coordinator's count check, with the generators' tallies
// added, finds the index holding the corpus exactly once; on every engine
// and release the tests have.
func TestBulkIndexCorpusIsSharedByGenerators(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, _ testenv.SearchNode, node string) { bulkIndexOnGenerators(t, node) })
}

func bulkIndexOnGenerators(t *testing.T, node string) {
	index := testenv.OpenSearchIndex(t, node)
	dir := t.TempDir()
	study := fmt.Sprintf(`[study]
name = "bulk on generators"
repetitions = 1
warmup = "0s"
duration = "5m"

[[target]]
name = "os"
url = %q

[[workload]]
name = "bulk"
kind = "bulkindex"
docs = 20000
bulk_size = 1000
index = %q
shards = 1
replicas = 0
clients = 4
generators = 2
`, node, index)
	run, parts := runStudyText(t, dir, study)
	var items, sum int64
	for _, op := range run.Ops {
		items += op.Items
	}
	for _, p := range parts {
		var n int64
		for _, op := range p.Run.Ops {
			n += op.Items
		}
		if n != 10000 {
			t.Errorf("generator %d indexed %d documents, want its share 10000", p.Generator, n)
		}
		sum += n
	}
	if items != 20000 || sum != 20000 {
		t.Errorf("merged run %d documents, parts %d: want the corpus once, 20000", items, sum)
	}
	if n := testenv.SearchCount(t, node, index); n != 20000 {
		t.Errorf("index %s holds %d documents, want 20000", index, n)
	}
}
