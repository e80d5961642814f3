package tpcb_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// runStudy runs a study of the tpcb workload with the given parameters on one target.
// threads 0 leaves the runner's default (one thread per CPU).
func runStudy(t *testing.T, url string, params map[string][]any, clients, threads, maxTries int, opt runner.Options) ([]*result.Run, error) {
	t.Helper()
	// These tests count errors (serialization failures with one try can be
	// most transactions) over 2 s, where a loaded machine can leave a second
	// without a commit: the outage thresholds that would fail such a run are
	// tested in the runner and in cmd, so here any share of errors and of
	// dead time is accepted.
	every := 1.0
	st := &study.Study{Name: t.Name(), Duration: 2 * time.Second, Seed: 3, MaxErrorRatio: &every, MaxDeadRatio: &every,
		Targets: []*study.Target{{Name: "db", URL: url}},
		Workloads: []*study.Workload{{Name: "tpcb", Kind: "tpcb", Params: params,
			Clients: []study.ClientLevel{{N: clients}}, Threads: threads, MaxTries: maxTries}}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	opt.Sink = s
	r := runner.New(st, opt)
	if err := r.Preflight(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	err = r.Run(context.Background(), cells)
	if err != nil {
		for _, run := range s.Runs {
			t.Logf("run %v: %s %s", run.Params, run.Status, run.Error)
		}
	}
	return s.Runs, err
}

// prepare loads (or reuses) tpcb's data on url with the given parameters, as
// `fairbench load` does.
func prepare(t *testing.T, url string, params map[string][]any, replace bool) error {
	t.Helper()
	st := &study.Study{Name: "prep", Duration: time.Second,
		Targets:   []*study.Target{{Name: "db", URL: url}},
		Workloads: []*study.Workload{{Name: "tpcb", Kind: "tpcb", Params: params}}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	return runner.New(st, runner.Options{Replace: replace}).Prepare(context.Background(), cells[0])
}

// wantClientIO checks how the run's clients were driven, as recorded with it.
func wantClientIO(t *testing.T, r *result.Run, multiplexed bool) {
	t.Helper()
	want := "thread per client"
	if multiplexed {
		want = "event loops"
	}
	if io := r.Env.Client.IO; !strings.HasPrefix(io, want) {
		t.Fatalf("%d clients ran with client io %q, want %q", r.Clients, io, want)
	}
}

func sums(t *testing.T, url string) [4]int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var s [4]int64
	err = c.QueryRow(ctx, `SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(tbalance) FROM pgbench_tellers),
		(SELECT sum(bbalance) FROM pgbench_branches), (SELECT coalesce(sum(delta), 0) FROM pgbench_history)`).Scan(&s[0], &s[1], &s[2], &s[3])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// After tpcb-like runs in every query mode, with a thread per client and with
// the clients multiplexed on an event loop, the sums of account, teller and
// branch balances and of history deltas agree, and a fresh load has pgbench's
// row counts.
func TestPostgresTPCBLikeKeepsBalancesConsistent(t *testing.T) {
	url := testenv.FreshPostgres(t)
	// vacuum=false keeps history, so the check covers every run since the load.
	params := map[string][]any{"mode": {"tpcb-like"}, "scale": {int64(2)},
		"query_mode": {"simple", "extended", "prepared"}, "vacuum": {false}}
	var runs []*result.Run
	for _, threads := range []int{4, 1} { // 4 clients: a thread each, then all on one loop
		got, err := runStudy(t, url, params, 4, threads, 1, runner.Options{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("want 3 runs (one per query mode), got %d", len(got))
		}
		for _, r := range got {
			if r.Status != result.StatusOK || r.Summary.Transactions < 10 || r.Summary.Failed != 0 {
				t.Fatalf("%s, %d threads: status %s, %d transactions, %d failed: %s", r.Params["query_mode"], threads, r.Status, r.Summary.Transactions, r.Summary.Failed, r.Error)
			}
			wantClientIO(t, r, threads == 1)
		}
		runs = append(runs, got...)
	}
	s := sums(t, url)
	if s[0] != s[1] || s[0] != s[2] || s[0] != s[3] || s[3] == 0 {
		t.Fatalf("sums disagree: accounts %d tellers %d branches %d history %d", s[0], s[1], s[2], s[3])
	}
	ctx := context.Background()
	c, _ := pgx.Connect(ctx, url)
	defer c.Close(ctx)
	var accounts, tellers, branches, history int64
	c.QueryRow(ctx, `SELECT (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_tellers),
		(SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_history)`).Scan(&accounts, &tellers, &branches, &history)
	var total int64
	for _, r := range runs {
		total += r.Summary.Transactions
	}
	if accounts != 200_000 || tellers != 20 || branches != 2 {
		t.Fatalf("row counts %d/%d/%d, want pgbench's 200000/20/2 at scale 2", accounts, tellers, branches)
	}
	// Warm-up is zero here, so every committed transaction was measured: one history row each.
	if history < total {
		t.Fatalf("history has %d rows but %d transactions were counted", history, total)
	}
}

// pgbench's tables at the same scale are reused untouched; at another scale they
// are never dropped without --replace, and the error says so.
func TestPostgresReusesPgbenchTablesAndProtectsThem(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench not found: scripts/test-servers.sh installs it with PostgreSQL")
	}
	url := testenv.FreshPostgres(t)
	out, err := exec.Command(pgbench, "-i", "-s", "2", "-q", url).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 424242)"); err != nil {
		t.Fatal(err)
	}
	sentinel := func() int64 {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pgbench_history WHERE delta = 424242").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	prep := func(scale int64, replace bool) error {
		return prepare(t, url, map[string][]any{"scale": {scale}}, replace)
	}
	if err := prep(2, false); err != nil {
		t.Fatalf("same scale must be reused: %v", err)
	}
	if sentinel() != 1 {
		t.Fatal("reusing pgbench's tables changed them")
	}
	err = prep(3, false)
	if err == nil || !strings.Contains(err.Error(), "--replace") || !strings.Contains(err.Error(), "scale 2") {
		t.Fatalf("want an error naming scale 2 and --replace, got %v", err)
	}
	if sentinel() != 1 {
		t.Fatal("tables fairbench did not create were touched without --replace")
	}
	if err := prep(3, true); err != nil {
		t.Fatalf("with --replace: %v", err)
	}
	var branches int64
	c.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches").Scan(&branches)
	if branches != 3 || sentinel() != 0 {
		t.Fatalf("after --replace: %d branches (want 3), sentinel %d (want 0)", branches, sentinel())
	}
	// Now the data is fairbench's own: another scale reloads without --replace.
	if err := prep(1, false); err != nil {
		t.Fatalf("fairbench's own data at another scale must be reloaded: %v", err)
	}
	c.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches").Scan(&branches)
	if branches != 1 {
		t.Fatalf("after reload at scale 1: %d branches", branches)
	}

	// pgbench -i over fairbench's own load makes the tables pgbench's again,
	// though fairbench's record of its load is still in the database: they are
	// reused at their scale, protected at another, and its cleanup leaves them.
	if out, err := exec.Command(pgbench, "-i", "-s", "2", "-q", url).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	if _, err := c.Exec(ctx, "INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 424242)"); err != nil {
		t.Fatal(err)
	}
	err = prep(1, false)
	if err == nil || !strings.Contains(err.Error(), "scale 2") || !strings.Contains(err.Error(), "--scale 2") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("scale 1 over pgbench's new scale-2 tables: want a refusal naming scale 2, --scale 2 and --replace, got %v", err)
	}
	if err := prep(2, false); err != nil {
		t.Fatalf("pgbench's new tables at the asked scale must be reused: %v", err)
	}
	// Its cleanup leaves them, and says so (issue 49 item 8).
	if err := cleanup(t, url, 2); err == nil || !strings.Contains(err.Error(), "left alone: fairbench's marker does not say it created them") {
		t.Fatalf("cleanup of pgbench's tables: %v, want them named as left alone", err)
	}
	if sentinel() != 1 {
		t.Fatal("pgbench's new tables were reloaded or dropped")
	}
}

// cleanup runs the tpcb workload's Cleanup at the given scale on url.
// cleanup runs tpcb's cleanup on url: what it could not drop is its error.
func cleanup(t *testing.T, url string, scale int64) error {
	t.Helper()
	w, err := workload.Get("tpcb")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := w.New(params.WithDefaults(w.Params(), params.Values{"scale": scale}))
	if err != nil {
		t.Fatal(err)
	}
	return inst.(workload.Hooker).Hooks().Cleanup(context.Background(), connect(t, url))
}

// connect opens a connection to url through fairbench's driver, closed when the test ends.
func connect(t *testing.T, url string) driver.Conn { return testenv.Connect(t, url, driver.Options{}) }

// Under REPEATABLE READ, concurrent tpcb-like transactions hit serialization
// failures on the few branch rows: counted as failures with one try, retried
// with pgbench's --max-tries meaning otherwise.
func TestPostgresSerializationFailuresAreClassifiedAndRetried(t *testing.T) {
	url := testenv.WithQuery(t, testenv.FreshPostgres(t), "default_transaction_isolation", "repeatable read")
	p := map[string][]any{"mode": {"tpcb-like"}, "scale": {int64(1)}}
	runs, err := runStudy(t, url, p, 8, 0, 1, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one := runs[0]
	ser := int64(0)
	for _, op := range one.Ops {
		ser += op.Errors[result.ErrSerialization]
	}
	if ser == 0 || one.Summary.Failed != ser {
		t.Fatalf("max tries 1: %d serialization failures of %d failed (want > 0 and all of them)", ser, one.Summary.Failed)
	}
	runs, err = runStudy(t, url, p, 8, 0, 1000, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	many := runs[0].Summary
	if many.Retried == 0 || many.Retries < many.Retried {
		t.Fatalf("max tries 1000: retried %d, retries %d", many.Retried, many.Retries)
	}
	// Like pgbench, a transaction still being retried when the duration ends is not
	// retried further and counts as failed: at most one per client.
	if many.Failed > 8 {
		t.Fatalf("max tries 1000: %d failed of %d (more than one per client)", many.Failed, many.Transactions)
	}
	if sums(t, url)[0] != sums(t, url)[2] {
		t.Fatal("balances disagree after retried transactions")
	}
}

func TestPostgresTLSVersionAndCipherAreRecorded(t *testing.T) {
	url := testenv.WithQuery(t, testenv.PostgresURL(t), "sslmode", "require")
	ctx := context.Background()
	env, err := connect(t, url).(driver.Environment).Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tls := env.Extra["tls"].(map[string]any)
	if tls["enabled"] != true || !strings.HasPrefix(tls["version"].(string), "TLS 1.") || tls["cipher"] == "" {
		t.Fatalf("tls facts: %v", tls)
	}
	if !strings.Contains(env.Version, "PostgreSQL") {
		t.Fatalf("version: %v", env.Version)
	}
	settings := env.Settings
	if settings["shared_buffers"] == "" {
		t.Fatalf("settings miss shared_buffers: %v", settings)
	}
	plain := testenv.WithQuery(t, testenv.PostgresURL(t), "sslmode", "disable")
	env2, _ := connect(t, plain).(driver.Environment).Environment(ctx)
	if env2.Extra["tls"].(map[string]any)["enabled"] != false {
		t.Fatalf("sslmode=disable recorded as %v", env2.Extra["tls"])
	}
}

// The embedded SQLite target runs the same scripts and stays consistent.
func TestSQLiteTPCBLikeKeepsBalancesConsistent(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "t.db") + "?journal_mode=WAL"
	runs, err := runStudy(t, url, map[string][]any{"mode": {"tpcb-like", "select-only"}, "vacuum": {false},
		"query_mode": {"simple", "prepared"}}, 3, 0, 1, runner.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("want 4 runs, got %d", len(runs))
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Summary.Transactions == 0 || r.Summary.Failed != 0 {
			t.Fatalf("%v: %s %d ok %d failed %s", r.Params, r.Status, r.Summary.Transactions, r.Summary.Failed, r.Error)
		}
		if len(r.Deviations) == 0 {
			t.Fatal("SQLite runs must name their deviations from pgbench")
		}
	}
}

// pgbench -i's --unlogged-tables and -F reach the tables fairbench creates.
func TestPostgresUnloggedAndFillfactor(t *testing.T) {
	url := testenv.FreshPostgres(t)
	if err := prepare(t, url, map[string][]any{"unlogged": {true}, "fillfactor": {int64(80)}}, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var persistence string
	var options []string
	if err := c.QueryRow(ctx, "SELECT relpersistence::text, coalesce(reloptions, '{}') FROM pg_class WHERE relname = 'pgbench_accounts'").Scan(&persistence, &options); err != nil {
		t.Fatal(err)
	}
	if persistence != "u" || len(options) != 1 || options[0] != "fillfactor=80" {
		t.Fatalf("pgbench_accounts: persistence %q options %v, want unlogged with fillfactor=80", persistence, options)
	}
	var pk int
	c.QueryRow(ctx, "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text LIKE 'pgbench_%'").Scan(&pk)
	if pk != 3 {
		t.Fatalf("%d primary keys, want pgbench's 3", pk)
	}
}
