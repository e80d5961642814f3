package examples_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The managed-platforms example runs end to end on the test servers,
// shortened: TPC-C on 1 warehouse with 2 virtual users for 1 s, go-ycsb's
// workload A on 1 000 records, memtier for 1 s on 1 000 keys, OSB indexing
// 2 000 documents, SSB at scale 0.01 and ClickBench on 20 000 generated
// rows with 2 tries, one repetition; each engine's two platforms are two
// names of its test server (with databases, key prefixes and indexes of
// the test's own). The report holds the tables those articles print:
// TPC-C's NOPM and TPM with each transaction's p95/p99, memtier's with the
// average latency, YCSB's per-operation p95/p99, OSB's, and SSB's and
// ClickBench's per-query tables with their sums and geometric mean. The
// tables are compared with testdata/golden/managed-platforms*.{txt,md}.
func TestManagedPlatformsExampleRuns(t *testing.T) {
	st := parseExample(t, "managed-platforms.toml")
	if len(st.Targets) != 8 || len(st.Workloads) != 6 {
		t.Fatalf("want four engines on two platforms and six workloads, got %d targets and %d workloads", len(st.Targets), len(st.Workloads))
	}
	pg, redis, ch := testenv.FreshPostgres(t), testenv.RedisURL(t), testenv.FreshClickHouse(t)
	search := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, search)
	prefix := testenv.RedisKeyPrefix(t)
	if os.Getenv("FAIRBENCH_TEST_OSB") != "" {
		testenv.OSB(t) // the machine's one OSB run is this test's
	}
	for _, tg := range st.Targets {
		// Which wait states and counters a server reports in a few seconds
		// varies from run to run: the golden tables hold what does not.
		// The server view has tests of its own (cmd/fairbench/serverview_test.go).
		tg.ServerView = study.ServerViewOff
		switch engine, _, _ := strings.Cut(tg.Name, "-"); engine {
		case "pg":
			tg.URL = pg
		case "redis":
			tg.URL = redis
		case "search":
			tg.URL = search
		case "ch":
			tg.URL = ch
		default:
			t.Fatalf("unexpected target %q", tg.Name)
		}
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	for _, w := range st.Workloads {
		w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
		switch w.Name {
		case "tpcc":
			w.Params["warehouses"] = []any{int64(1)}
			w.Clients = []study.ClientLevel{{N: 2}}
		case "ycsb":
			w.Params["recordcount"] = []any{int64(1000)}
			w.Params["workload"] = []any{"a"}
			w.Clients = []study.ClientLevel{{N: 2}}
		case "memtier":
			w.Params["key_maximum"] = []any{int64(999)}
			w.Params["key_prefix"] = []any{prefix}
			w.Params["data_size"] = []any{int64(32)}
			w.Threads = 1
			w.Clients = []study.ClientLevel{{N: 2}}
		case "osb http_logs":
			w.Params["docs"] = []any{int64(2000)}
			w.Params["bulk_size"] = []any{int64(1000)}
			w.Params["index"] = []any{index}
			w.Clients = []study.ClientLevel{{N: 2}}
		case "ssb":
			w.Params["scale"] = []any{0.01}
			w.Params["tries"] = []any{int64(2)}
		case "clickbench":
			delete(w.Params, "source")
			w.Params["rows"] = []any{int64(20000)}
			w.Params["tries"] = []any{int64(2)}
		default:
			t.Fatalf("unexpected workload %s", w.Name)
		}
	}
	missing := dropMissingTools(t, st)
	path := runIntoStore(t, st, runner.Options{})
	text, md, _ := reports(t, path, "pg-x86,redis-x86,search-x86,ch-x86")
	checkGolden(t, "managed-platforms", missing, text, md)

	if len(missing) > 0 {
		return
	}
	tpcc := captionedRows(t, md, "Medians over the completed repetitions; NOPM")
	if want := "cell|runs|NOPM|TPM|tpmC|NEWORD p95 ms|NEWORD p99 ms|PAYMENT p95 ms|PAYMENT p99 ms"; !strings.HasPrefix(strings.Join(tpcc[0], "|"), want) || len(tpcc) != 3 {
		t.Errorf("TPC-C's table: %v, want %s… and a row per platform", tpcc, want)
	}
	ops := map[string]bool{}
	for _, row := range tableRows(t, md, "| target | clients | op | ops/s | avg ms | p50 ms | p95 ms | p99 ms |") {
		ops[row[0]+" "+row[2]] = true
	}
	for _, want := range []string{"pg-arm READ", "pg-arm UPDATE", "redis-arm get", "redis-arm set", "pg-arm payment"} {
		if !ops[want] {
			t.Errorf("no per-operation row %s: %v", want, ops)
		}
	}
	for _, q := range []string{"| Q4.3 |", "| Q42 |", "| sum |", "| geometric mean |"} {
		if !strings.Contains(md, q) {
			t.Errorf("the per-query tables lack %s", q)
		}
	}
}
