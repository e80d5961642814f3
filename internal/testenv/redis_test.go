package testenv

import (
	"crypto/tls"
	"errors"
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
)

// The servers scripts/test-servers.sh starts must be there and be what their
// variables say: checked over raw RESP, so that a driver bug cannot hide a
// server set up wrong (or the other way round).

func dialURL(t *testing.T, raw, caFile string) *respConn {
	t.Helper()
	c, err := dialRedisURL(raw, caFile)
	if err != nil {
		t.Fatalf("connecting to %s: %v", redacted(raw), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func dialAddr(t *testing.T, addr string) *respConn {
	t.Helper()
	c, err := dialResp(addr, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}

// do runs a command that must succeed and returns its reply as a string.
func do(t *testing.T, c *respConn, args ...string) string {
	t.Helper()
	v, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case nil:
		return ""
	}
	t.Fatalf("%s: reply %v is not a string", strings.Join(args, " "), v)
	return ""
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
	c := dialURL(t, RedisURL(t), "")
	info := fields(do(t, c, "INFO", "server"))
	if v := info["redis_version"]; !strings.HasPrefix(v, "7.") {
		t.Errorf("redis_version %q, want 7.x", v)
	}
	if info["server_name"] == "valkey" || info["valkey_version"] != "" {
		t.Errorf("FAIRBENCH_TEST_REDIS is a Valkey (%q)", info["valkey_version"])
	}
	if got := do(t, c, "PING"); got != "PONG" {
		t.Errorf("PING: %q", got)
	}
}

func TestValkeyServerIsValkey(t *testing.T) {
	c := dialURL(t, ValkeyURL(t), "")
	info := fields(do(t, c, "INFO", "server"))
	if info["server_name"] != "valkey" || !strings.HasPrefix(info["valkey_version"], "9.") {
		t.Errorf("server_name %q valkey_version %q, want valkey 9.x", info["server_name"], info["valkey_version"])
	}
	t.Logf("Valkey %s, mem_allocator %s", info["valkey_version"], fields(do(t, c, "INFO", "memory"))["mem_allocator"])
}

func TestRedisAuthServerChecksPasswords(t *testing.T) {
	raw := RedisAuthURL(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	user, pw := u.User.Username(), Password(t, raw)
	if user == "" || user == "default" {
		t.Fatalf("FAIRBENCH_TEST_REDIS_AUTH names user %q, want an ACL user of its own", user)
	}

	c := dialAddr(t, u.Host)
	var re respError
	if _, err := c.Do("PING"); !errors.As(err, &re) || !strings.HasPrefix(string(re), "NOAUTH") {
		t.Errorf("PING without a password: %v, want NOAUTH", err)
	}
	if _, err := c.Do("AUTH", user, "wrong-"+pw); !errors.As(err, &re) || !strings.HasPrefix(string(re), "WRONGPASS") {
		t.Errorf("AUTH with a wrong password: %v, want WRONGPASS", err)
	}
	if got := do(t, c, "AUTH", user, pw); got != "OK" {
		t.Fatalf("AUTH with the right password: %q", got)
	}
	if got := do(t, c, "ACL", "WHOAMI"); got != user {
		t.Errorf("ACL WHOAMI %q, want %q", got, user)
	}

	// Full access: the URL's own dial path (AUTH, SELECT) and a write.
	c2 := dialURL(t, raw, "")
	key := RedisKeyPrefix(t) + "k"
	if do(t, c2, "SET", key, "v") != "OK" || do(t, c2, "GET", key) != "v" {
		t.Errorf("SET/GET as %s failed", user)
	}
}

func TestRedisTLSServerAnswersOnlyOverTLS(t *testing.T) {
	raw, ca := RedisTLS(t)
	c := dialURL(t, raw, ca)
	if got := do(t, c, "PING"); got != "PONG" {
		t.Errorf("PING over TLS: %q", got)
	}
	st := c.conn.(*tls.Conn).ConnectionState()
	if !st.HandshakeComplete || st.Version < tls.VersionTLS12 {
		t.Errorf("TLS handshake complete %v, version %x", st.HandshakeComplete, st.Version)
	}
	if v := fields(do(t, c, "INFO", "server"))["redis_version"]; !strings.HasPrefix(v, "7.") {
		t.Errorf("redis_version %q, want 7.x", v)
	}

	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Without the test CA the certificate must not verify.
	if c, err := dialResp(u.Host, &tls.Config{ServerName: u.Hostname()}); err == nil {
		c.Close()
		t.Error("the TLS server's certificate verifies without the test CA")
	}
	// In clear text the port does not answer PING.
	plain, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.SetDeadline(time.Now().Add(3 * time.Second)) //nolint:errcheck // a failed read below says enough
	plain.Write([]byte("PING\r\n"))                    //nolint:errcheck
	buf := make([]byte, 64)
	if n, _ := plain.Read(buf); strings.Contains(string(buf[:n]), "PONG") {
		t.Error("the TLS port answers PING in clear text")
	}
}

func TestRedisClusterHasThreeMastersCoveringAllSlots(t *testing.T) {
	addrs := RedisCluster(t)
	if len(addrs) != 3 {
		t.Fatalf("FAIRBENCH_TEST_REDIS_CLUSTER names %d nodes, want 3", len(addrs))
	}
	for _, addr := range addrs {
		info := fields(do(t, dialAddr(t, addr), "CLUSTER", "INFO"))
		if info["cluster_state"] != "ok" || info["cluster_size"] != "3" || info["cluster_slots_assigned"] != "16384" || info["cluster_known_nodes"] != "3" {
			t.Errorf("%s: cluster_state %s, size %s, slots assigned %s, known nodes %s; want ok, 3, 16384, 3",
				addr, info["cluster_state"], info["cluster_size"], info["cluster_slots_assigned"], info["cluster_known_nodes"])
		}
	}

	var masters []string
	slots := 0
	for _, line := range strings.Split(strings.TrimSpace(do(t, dialAddr(t, addrs[0]), "CLUSTER", "NODES")), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.Contains(f[2], "master") {
			continue
		}
		masters = append(masters, strings.SplitN(f[1], "@", 2)[0])
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") { // a slot being migrated
				continue
			}
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil {
				t.Fatalf("CLUSTER NODES slot range %q", r)
			}
			slots += b - a + 1
		}
	}
	slices.Sort(masters)
	want := slices.Clone(addrs)
	slices.Sort(want)
	if !slices.Equal(masters, want) || slots != 16384 {
		t.Errorf("masters %v with %d slots, want %v with 16384", masters, slots, want)
	}
}

func TestRedisKeyPrefixDeletesOnlyItsKeys(t *testing.T) {
	c := dialURL(t, RedisURL(t), "")
	outer := RedisKeyPrefix(t)
	if !regexp.MustCompile(`^fbtest-[0-9a-f]{12}-$`).MatchString(outer) {
		t.Fatalf("prefix %q, want fbtest-<12 hex>-", outer)
	}
	do(t, c, "SET", outer+"survivor", "1")

	var inner string
	t.Run("inner", func(t *testing.T) {
		inner = RedisKeyPrefix(t)
		if inner == outer {
			t.Fatal("two tests got the same prefix")
		}
		for i := range 2500 { // more than one SCAN page
			do(t, c, "SET", inner+strconv.Itoa(i), "x")
		}
		do(t, c, "HSET", inner+"hash", "f", "v")
	})
	if n := do(t, c, "EXISTS", inner+"0", inner+"2499", inner+"hash"); n != "0" {
		t.Errorf("%s keys of the ended subtest are left", n)
	}
	if v, err := c.Do("SCAN", "0", "MATCH", inner+"*", "COUNT", "100000"); err != nil || len(v.([]any)[1].([]any)) != 0 {
		t.Errorf("SCAN after the cleanup: %v %v", v, err)
	}
	if n := do(t, c, "EXISTS", outer+"survivor"); n != "1" {
		t.Error("the cleanup of another prefix deleted this test's key")
	}
}

// clusterSet writes key on the cluster node that owns it (following MOVED).
func clusterSet(t *testing.T, addr, key, value string) {
	t.Helper()
	_, err := dialAddr(t, addr).Do("SET", key, value)
	var re respError
	if errors.As(err, &re) && strings.HasPrefix(string(re), "MOVED ") {
		f := strings.Fields(string(re))
		_, err = dialAddr(t, f[len(f)-1]).Do("SET", key, value)
	}
	if err != nil {
		t.Fatalf("SET %s on the cluster: %v", key, err)
	}
}

func TestRedisKeyPrefixDeletesClusterKeys(t *testing.T) {
	addrs := RedisCluster(t)
	var prefix string
	t.Run("writer", func(t *testing.T) {
		prefix = RedisKeyPrefix(t)
		for i := range 30 { // spread over the three masters
			clusterSet(t, addrs[0], prefix+strconv.Itoa(i), "x")
		}
	})
	for _, addr := range addrs {
		v, err := dialAddr(t, addr).Do("SCAN", "0", "MATCH", prefix+"*", "COUNT", "100000")
		if err != nil || len(v.([]any)[1].([]any)) != 0 {
			t.Errorf("%s after the cleanup: %v %v", addr, v, err)
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
