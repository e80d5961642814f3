package testenv

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// The servers scripts/test-servers.sh starts must be there and be what their
// variables say: checked with go-redis directly, not through fairbench's own
// driver, so that a driver bug cannot hide a server set up wrong (or the other
// way round).

// dialURL connects to a redis:// or rediss:// URL (see redisURLOptions) and
// checks the connection with a PING.
func dialURL(t *testing.T, raw, caFile string) *goredis.Client {
	t.Helper()
	o, err := redisURLOptions(raw, caFile)
	if err != nil {
		t.Fatalf("connecting to %s: %v", redacted(raw), err)
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("connecting to %s: %v", redacted(raw), err)
	}
	return c
}

// dialAddr is a client of addr in clear text without credentials.
func dialAddr(t *testing.T, addr string) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(redisOptions(&goredis.Options{Addr: addr}))
	t.Cleanup(func() { c.Close() })
	return c
}

func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}

// must returns the reply of a command that must succeed.
func must[T any](t *testing.T, cmd interface {
	Result() (T, error)
	Args() []any
}) T {
	t.Helper()
	v, err := cmd.Result()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args(), err)
	}
	return v
}

// fields parses INFO and CLUSTER INFO text into name → value.
func fields(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m
}

func TestRedisServerIsRedis7(t *testing.T) {
	ctx := t.Context()
	c := dialURL(t, RedisURL(t), "")
	info := fields(must(t, c.Info(ctx, "server")))
	if v := info["redis_version"]; !strings.HasPrefix(v, "7.") {
		t.Errorf("redis_version %q, want 7.x", v)
	}
	if info["server_name"] == "valkey" || info["valkey_version"] != "" {
		t.Errorf("FAIRBENCH_TEST_REDIS is a Valkey (%q)", info["valkey_version"])
	}
	if got := must(t, c.Ping(ctx)); got != "PONG" {
		t.Errorf("PING: %q", got)
	}
}

func TestValkeyServerIsValkey(t *testing.T) {
	ctx := t.Context()
	c := dialURL(t, ValkeyURL(t), "")
	info := fields(must(t, c.Info(ctx, "server")))
	if info["server_name"] != "valkey" || !strings.HasPrefix(info["valkey_version"], "9.") {
		t.Errorf("server_name %q valkey_version %q, want valkey 9.x", info["server_name"], info["valkey_version"])
	}
	t.Logf("Valkey %s, mem_allocator %s", info["valkey_version"], fields(must(t, c.Info(ctx, "memory")))["mem_allocator"])
}

func TestRedisAuthServerChecksPasswords(t *testing.T) {
	ctx := t.Context()
	raw := RedisAuthURL(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	user, pw := u.User.Username(), Password(t, raw)
	if user == "" || user == "default" {
		t.Fatalf("FAIRBENCH_TEST_REDIS_AUTH names user %q, want an ACL user of its own", user)
	}

	// One connection of its own, so that AUTH holds for the commands after it.
	c := dialAddr(t, u.Host).Conn()
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(ctx).Err(); !goredis.HasErrorPrefix(err, "NOAUTH") {
		t.Errorf("PING without a password: %v, want NOAUTH", err)
	}
	if err := c.AuthACL(ctx, user, "wrong-"+pw).Err(); !goredis.HasErrorPrefix(err, "WRONGPASS") {
		t.Errorf("AUTH with a wrong password: %v, want WRONGPASS", err)
	}
	if got, err := c.AuthACL(ctx, user, pw).Result(); err != nil || got != "OK" {
		t.Fatalf("AUTH with the right password: %q %v", got, err)
	}
	if got := must(t, c.ACLWhoAmI(ctx)); got != user {
		t.Errorf("ACL WHOAMI %q, want %q", got, user)
	}

	// Full access: the URL's own dial path (AUTH, SELECT) and a write.
	c2 := dialURL(t, raw, "")
	key := RedisKeyPrefix(t) + "k"
	if must(t, c2.Set(ctx, key, "v", 0)) != "OK" || must(t, c2.Get(ctx, key)) != "v" {
		t.Errorf("SET/GET as %s failed", user)
	}
}

func TestRedisTLSServerAnswersOnlyOverTLS(t *testing.T) {
	ctx := t.Context()
	raw, ca := RedisTLS(t)
	o, err := redisURLOptions(raw, ca)
	if err != nil {
		t.Fatal(err)
	}
	var conn *tls.Conn // the client's connection, for its TLS state
	dial := goredis.NewDialer(o)
	o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if tc, ok := nc.(*tls.Conn); ok {
			conn = tc
		}
		return nc, err
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	if got := must(t, c.Ping(ctx)); got != "PONG" {
		t.Errorf("PING over TLS: %q", got)
	}
	if conn == nil {
		t.Fatal("the rediss:// client did not connect over TLS")
	}
	st := conn.ConnectionState()
	if !st.HandshakeComplete || st.Version < tls.VersionTLS12 {
		t.Errorf("TLS handshake complete %v, version %x", st.HandshakeComplete, st.Version)
	}
	if v := fields(must(t, c.Info(ctx, "server")))["redis_version"]; !strings.HasPrefix(v, "7.") {
		t.Errorf("redis_version %q, want 7.x", v)
	}

	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Without the test CA the certificate must not verify.
	if tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", u.Host, &tls.Config{ServerName: u.Hostname()}); err == nil {
		tc.Close()
		t.Error("the TLS server's certificate verifies without the test CA")
	}
	// In clear text the port does not answer PING.
	if got, _ := dialAddr(t, u.Host).Ping(ctx).Result(); got == "PONG" {
		t.Error("the TLS port answers PING in clear text")
	}
}

func TestRedisClusterHasThreeMastersCoveringAllSlots(t *testing.T) {
	ctx := t.Context()
	addrs := RedisCluster(t)
	if len(addrs) != 3 {
		t.Fatalf("FAIRBENCH_TEST_REDIS_CLUSTER names %d nodes, want 3", len(addrs))
	}
	for _, addr := range addrs {
		info := fields(must(t, dialAddr(t, addr).ClusterInfo(ctx)))
		if info["cluster_state"] != "ok" || info["cluster_size"] != "3" || info["cluster_slots_assigned"] != "16384" || info["cluster_known_nodes"] != "3" {
			t.Errorf("%s: cluster_state %s, size %s, slots assigned %s, known nodes %s; want ok, 3, 16384, 3",
				addr, info["cluster_state"], info["cluster_size"], info["cluster_slots_assigned"], info["cluster_known_nodes"])
		}
	}

	// CLUSTER SLOTS: each range of slots with its master first.
	var masters []string
	slots := 0
	for _, r := range must(t, dialAddr(t, addrs[0]).ClusterSlots(ctx)) {
		if len(r.Nodes) == 0 {
			t.Fatalf("CLUSTER SLOTS range %d-%d without a node", r.Start, r.End)
		}
		masters = append(masters, r.Nodes[0].Addr)
		slots += r.End - r.Start + 1
	}
	slices.Sort(masters)
	masters = slices.Compact(masters) // a master may hold several ranges
	want := slices.Clone(addrs)
	slices.Sort(want)
	if !slices.Equal(masters, want) || slots != 16384 {
		t.Errorf("masters %v with %d slots, want %v with 16384", masters, slots, want)
	}
}

func TestRedisKeyPrefixDeletesOnlyItsKeys(t *testing.T) {
	ctx := t.Context()
	c := dialURL(t, RedisURL(t), "")
	outer := RedisKeyPrefix(t)
	if !regexp.MustCompile(`^fbtest-[0-9a-f]{12}-$`).MatchString(outer) {
		t.Fatalf("prefix %q, want fbtest-<12 hex>-", outer)
	}
	must(t, c.Set(ctx, outer+"survivor", "1", 0))

	var inner string
	t.Run("inner", func(t *testing.T) {
		inner = RedisKeyPrefix(t)
		if inner == outer {
			t.Fatal("two tests got the same prefix")
		}
		for i := range 2500 { // more than one SCAN page
			must(t, c.Set(ctx, inner+strconv.Itoa(i), "x", 0))
		}
		must(t, c.HSet(ctx, inner+"hash", "f", "v"))
	})
	if n := must(t, c.Exists(ctx, inner+"0", inner+"2499", inner+"hash")); n != 0 {
		t.Errorf("%d keys of the ended subtest are left", n)
	}
	if keys, _, err := c.Scan(ctx, 0, inner+"*", 100000).Result(); err != nil || len(keys) != 0 {
		t.Errorf("SCAN after the cleanup: %v %v", keys, err)
	}
	if n := must(t, c.Exists(ctx, outer+"survivor")); n != 1 {
		t.Error("the cleanup of another prefix deleted this test's key")
	}
}

func TestRedisKeyPrefixDeletesClusterKeys(t *testing.T) {
	ctx := t.Context()
	addrs := RedisCluster(t)
	// A cluster client writes each key on the master that owns its slot.
	cc := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: addrs, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { cc.Close() })
	var prefix string
	t.Run("writer", func(t *testing.T) {
		prefix = RedisKeyPrefix(t)
		for i := range 30 { // spread over the three masters
			if err := cc.Set(ctx, prefix+strconv.Itoa(i), "x", 0).Err(); err != nil {
				t.Fatalf("SET %s on the cluster: %v", prefix+strconv.Itoa(i), err)
			}
		}
	})
	for _, addr := range addrs {
		keys, _, err := dialAddr(t, addr).Scan(ctx, 0, prefix+"*", 100000).Result()
		if err != nil || len(keys) != 0 {
			t.Errorf("%s after the cleanup: %v %v", addr, keys, err)
		}
	}
}

// Memtier is checked once this branch builds it (scripts/install-memtier.sh);
// from then on a missing FAIRBENCH_TEST_MEMTIER fails under
// FAIRBENCH_REQUIRE_SERVERS=1 like any other.
func TestMemtierRuns(t *testing.T) {
	if _, err := os.Stat("../../scripts/install-memtier.sh"); err != nil {
		t.Skip("scripts/install-memtier.sh is not on this branch")
	}
	out, err := exec.Command(Memtier(t), "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "memtier_benchmark") {
		t.Errorf("memtier_benchmark --version: %v\n%s", err, out)
	}
}
