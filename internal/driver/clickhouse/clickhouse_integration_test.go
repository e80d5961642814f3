package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// freshDB creates a database of the test's own on the test server and returns
// a session on it.
func freshDB(t *testing.T) (*conn, string) {
	t.Helper()
	base := testenv.ClickHouseURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	name := "fbtest_" + hex.EncodeToString(b)
	admin := open(t, base)
	if err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return open(t, u.String()), u.String()
}

func open(t *testing.T, raw string) *conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := Driver{}.Open(ctx, driver.Target{URL: raw}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	s, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*conn)
}

type seqRows struct {
	i, n int64
	v    []any
}

func (r *seqRows) Next() bool { r.i++; return r.i <= r.n }
func (r *seqRows) Values() []any {
	r.v[0], r.v[1], r.v[2], r.v[3] = r.i, fmt.Sprintf("g%d", r.i%10), fmt.Sprintf("%d.%02d", r.i%100, r.i%100), "2024-01-02"
	return r.v
}

func TestClickHouse(t *testing.T) {
	s, _ := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var _ driver.Analytics = s
	var _ driver.SQL = s
	var _ driver.BulkLoader = s
	if err := s.Exec(ctx, "CREATE TABLE t (id UInt64, grp String, amount Decimal(10, 2), day Date) ENGINE = MergeTree ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	const n = 100_000
	loaded, err := s.BulkLoad(ctx, "t", []string{"id", "grp", "amount", "day"}, &seqRows{n: n, v: make([]any, 4)}, false)
	if err != nil || loaded != n {
		t.Fatalf("BulkLoad: %d rows, %v", loaded, err)
	}
	if c, err := s.QueryInt64(ctx, "SELECT count() FROM t WHERE id > $1", 50_000); err != nil || c != n-50_000 {
		t.Fatalf("count: %d %v", c, err)
	}

	got := map[string]uint64{}
	st, err := s.Analyze(ctx, "SELECT grp, count() AS c, sum(id) FROM t GROUP BY grp ORDER BY grp", func(v []any) error {
		got[v[0].(string)] = v[1].(uint64)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 10 || len(got) != 10 || got["g3"] != n/10 {
		t.Fatalf("Analyze: stats %+v, groups %v", st, got)
	}
	// 18.16 reports the rows it scanned in progress packets.
	if st.RowsRead != n || st.BytesRead <= 0 {
		t.Errorf("server-reported read: %+v, want RowsRead %d", st, n)
	}
	t.Logf("QueryStats %+v", st)
	if st2, err := s.Analyze(ctx, "SELECT id FROM t", nil); err != nil || st2.Rows != n {
		t.Fatalf("Analyze without each: %+v %v", st2, err)
	}

	rows, err := s.Query(ctx, "SELECT grp, amount, day FROM t WHERE id = $1", 42)
	if err != nil {
		t.Fatal(err)
	}
	var grp, amount string
	var day time.Time
	if !rows.Next() {
		t.Fatal("no row", rows.Err())
	}
	if err := rows.Scan(&grp, &amount, &day); err != nil || grp != "g2" || amount != "42.42" || day.Format("2006-01-02") != "2024-01-02" {
		t.Fatalf("row: %q %q %v %v", grp, amount, day, err)
	}
	rows.Close()

	env, err := s.Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if env.Engine != "clickhouse" || !strings.HasPrefix(env.Version, "18.16.1") || env.Extra["max_threads"] == nil || env.Extra["max_memory_usage"] == nil {
		t.Errorf("environment %v", env)
	}
	t.Logf("environment %v", env)

	_, err = s.Analyze(ctx, "SELECT * FROM no_such_table", nil)
	if err == nil || s.Classify(err) != result.ErrOther || !strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("missing table: %v (class %s)", err, s.Classify(err))
	}
}

func TestClickHouseErrors(t *testing.T) {
	base := testenv.ClickHouseURL(t)
	s := open(t, base)
	qctx, qcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer qcancel()
	// Code 159 TIMEOUT_EXCEEDED.
	q := "SELECT count() FROM system.numbers WHERE sleep(0.1) = 0 SETTINGS max_execution_time = 1, max_block_size = 1"
	if _, err := s.Analyze(qctx, q, nil); err == nil || s.Classify(err) != result.ErrTimeout {
		t.Errorf("%s: %v, class %s", q, err, s.Classify(err))
	}
	// Code 241 MEMORY_LIMIT_EXCEEDED. 18.16 ignores max_memory_usage in a
	// query's SETTINGS clause; the client sends it with the query instead.
	q = "SELECT groupArray(number) FROM numbers(10000000)"
	mctx := ch.Context(qctx, ch.WithSettings(ch.Settings{"max_memory_usage": 1000000}))
	if _, err := s.Analyze(mctx, q, nil); err == nil || s.Classify(err) != result.ErrThrottled {
		t.Errorf("%s: %v, class %s", q, err, s.Classify(err))
	}

	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	const pw = "not-the-pw-4711"
	u.User = url.UserPassword("default", pw)
	u.Host = dead
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Driver{}.Open(ctx, driver.Target{URL: u.String()}, driver.Options{})
	if err == nil {
		t.Fatal("dead port: no error")
	}
	if classify(err) != result.ErrConnection {
		t.Errorf("dead port: class %s for %v", classify(err), err)
	}
	if strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("dead port error: %v", err)
	}

	// A wrong password on the live server: the message must not carry it.
	live, _ := url.Parse(base)
	live.User = url.UserPassword("default", pw)
	_, err = Driver{}.Open(ctx, driver.Target{URL: live.String()}, driver.Options{})
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if strings.Contains(err.Error(), pw) {
		t.Errorf("error shows the password: %v", err)
	}
	t.Logf("wrong password: %v", err)
}

// TestClickHousePasswordHidden: what a session with a password reports and
// fails with never carries the password.
func TestClickHousePasswordHidden(t *testing.T) {
	raw := testenv.ClickHouseAuthURL(t)
	pw := testenv.Password(t, raw)
	s := open(t, raw)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env, err := s.Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fmt.Sprint(env), pw) {
		t.Errorf("environment shows the password: %v", env)
	}
	_, err = s.Analyze(ctx, "SELECT * FROM no_such_table", nil)
	if err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("query error: %v", err)
	}
	u, _ := url.Parse(raw)
	u.Path = "/no_such_db"
	_, err = Driver{}.Open(ctx, driver.Target{URL: u.String()}, driver.Options{})
	if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("open of a missing database: %v", err)
	}
}

// TestPasswordFromTheEnvironment: a URL without a password takes
// CLICKHOUSE_PASSWORD, as clickhouse-client does; its errors hide it too.
func TestPasswordFromTheEnvironment(t *testing.T) {
	raw := testenv.ClickHouseAuthURL(t)
	pw := testenv.Password(t, raw)
	u, _ := url.Parse(raw)
	u.User = url.User(u.User.Username())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.Setenv("CLICKHOUSE_PASSWORD", "")
	if _, err := (Driver{}).Open(ctx, driver.Target{URL: u.String()}, driver.Options{}); err == nil {
		t.Fatal("a user with a password connected without one")
	}
	t.Setenv("CLICKHOUSE_PASSWORD", pw)
	s := open(t, u.String())
	if _, err := s.Analyze(ctx, "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_db"
	_, err := Driver{}.Open(ctx, driver.Target{URL: u.String()}, driver.Options{})
	if err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("open of a missing database: %v", err)
	}
}
