package testenv

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisURL returns the URL of the test Redis 7 without a password
// (FAIRBENCH_TEST_REDIS, redis://127.0.0.1:6379/0).
func RedisURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_REDIS")
}

// RedisAuthURL returns the URL of the test Redis 7 that wants a password: it
// carries the ACL user and its password (FAIRBENCH_TEST_REDIS_AUTH).
func RedisAuthURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_REDIS_AUTH")
}

// ValkeyURL returns the URL of the test Valkey (FAIRBENCH_TEST_VALKEY).
func ValkeyURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_VALKEY")
}

// RedisTLS returns the rediss:// URL of the TLS-only test Redis and the CA
// certificate its server certificate is signed with (FAIRBENCH_TEST_REDIS_TLS,
// FAIRBENCH_TEST_REDIS_CA).
func RedisTLS(t testing.TB) (url, caFile string) {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_REDIS_TLS"), need(t, "FAIRBENCH_TEST_REDIS_CA")
}

// RedisCluster returns the host:port of each master of the test cluster
// (FAIRBENCH_TEST_REDIS_CLUSTER, comma-separated).
func RedisCluster(t testing.TB) []string {
	t.Helper()
	return strings.Split(need(t, "FAIRBENCH_TEST_REDIS_CLUSTER"), ",")
}

// Memtier returns the path of the memtier_benchmark that scripts/test-servers.sh
// builds (FAIRBENCH_TEST_MEMTIER).
func Memtier(t testing.TB) string {
	t.Helper()
	bin := need(t, "FAIRBENCH_TEST_MEMTIER")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("FAIRBENCH_TEST_MEMTIER: %v (scripts/test-servers.sh builds it)", err)
	}
	return bin
}

// RedisKeyPrefix returns a key prefix of the test's own, "fbtest-<12 hex>-",
// so that tests sharing a test server never touch each other's keys. When the
// test ends, the keys under it are deleted (SCAN MATCH and DEL, never a flush)
// on every test Redis, Valkey and cluster node the environment names; a
// server that cannot be reached then is only logged.
func RedisKeyPrefix(t testing.TB) string {
	t.Helper()
	prefix := "fbtest-" + randomHex(6) + "-"
	t.Cleanup(func() {
		for _, s := range redisTestServers() {
			n, err := deleteRedisKeys(s, prefix)
			if err != nil {
				t.Logf("deleting the keys %s* on %s: %v", prefix, s.name, err)
			} else if n > 0 && testing.Verbose() {
				t.Logf("deleted %d keys %s* on %s", n, prefix, s.name)
			}
		}
	})
	return prefix
}

// redisServer is one test server the key cleanup visits: a URL (with its CA
// for rediss) or a cluster node's address.
type redisServer struct {
	name, url, ca, addr string
}

func redisTestServers() []redisServer {
	var out []redisServer
	for _, name := range []string{"FAIRBENCH_TEST_REDIS", "FAIRBENCH_TEST_REDIS_AUTH", "FAIRBENCH_TEST_VALKEY", "FAIRBENCH_TEST_REDIS_TLS"} {
		if u := os.Getenv(name); u != "" {
			out = append(out, redisServer{name: name, url: u, ca: os.Getenv("FAIRBENCH_TEST_REDIS_CA")})
		}
	}
	if c := os.Getenv("FAIRBENCH_TEST_REDIS_CLUSTER"); c != "" {
		for _, addr := range strings.Split(c, ",") {
			out = append(out, redisServer{name: "cluster node " + addr, addr: addr})
		}
	}
	return out
}

// deleteRedisKeys deletes the keys starting with prefix (which must hold no
// glob characters) on one server; a cluster node deletes only its own keys,
// which are the ones its SCAN returns.
func deleteRedisKeys(s redisServer, prefix string) (int, error) {
	var c *respConn
	var err error
	if s.url != "" {
		c, err = dialRedisURL(s.url, s.ca)
	} else {
		c, err = dialResp(s.addr, nil)
	}
	if err != nil {
		return 0, err
	}
	defer c.Close()
	n, cursor := 0, "0"
	for {
		v, err := c.Do("SCAN", cursor, "MATCH", prefix+"*", "COUNT", "1000")
		if err != nil {
			return n, err
		}
		page, ok := v.([]any)
		if !ok || len(page) != 2 {
			return n, fmt.Errorf("SCAN answered %v", v)
		}
		keys, _ := page[1].([]any)
		for _, k := range keys {
			key, _ := k.(string)
			if _, err := c.Do("DEL", key); err != nil {
				return n, err
			}
			n++
		}
		if cursor, _ = page[0].(string); cursor == "0" || cursor == "" {
			return n, nil
		}
	}
}

// respConn is a minimal RESP2 client, enough for the key cleanup and for the
// tests of the test servers themselves, without a Redis library.
type respConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// respError is an error reply of the server ("WRONGPASS ...", "MOVED ...").
type respError string

func (e respError) Error() string { return string(e) }

// dialResp connects to addr, over TLS when tlsConf is not nil.
func dialResp(addr string, tlsConf *tls.Config) (*respConn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	var conn net.Conn
	var err error
	if tlsConf != nil {
		conn, err = tls.DialWithDialer(d, "tcp", addr, tlsConf)
	} else {
		conn, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	return &respConn{conn: conn, r: bufio.NewReader(conn)}, nil
}

// redisTLSConfig trusts only the CA in caFile and checks the certificate
// against host.
func redisTLSConfig(host, caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", caFile)
	}
	return &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12}, nil
}

// dialRedisURL connects to a redis:// or rediss:// URL: TLS checked against
// caFile for rediss, AUTH with the URL's credentials, SELECT of its database.
func dialRedisURL(raw, caFile string) (*respConn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	var tlsConf *tls.Config
	switch u.Scheme {
	case "redis":
	case "rediss":
		if tlsConf, err = redisTLSConfig(u.Hostname(), caFile); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: not a redis:// or rediss:// URL", u.Redacted())
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "6379")
	}
	c, err := dialResp(addr, tlsConf)
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		auth := []string{"AUTH"}
		if name := u.User.Username(); name != "" {
			auth = append(auth, name)
		}
		pw, _ := u.User.Password()
		if _, err := c.Do(append(auth, pw)...); err != nil {
			c.Close()
			return nil, fmt.Errorf("AUTH on %s: %w", u.Redacted(), err)
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" && db != "0" {
		if _, err := c.Do("SELECT", db); err != nil {
			c.Close()
			return nil, fmt.Errorf("SELECT %s on %s: %w", db, u.Redacted(), err)
		}
	}
	return c, nil
}

func (c *respConn) Close() error { return c.conn.Close() }

// Do sends one command and reads its reply: a string (simple or bulk), an
// int64, nil (a null), or a []any of those; an error reply is returned as a
// respError.
func (c *respConn) Do(args ...string) (any, error) {
	if err := c.conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		return nil, err
	}
	v, err := c.read()
	if err != nil {
		return nil, err
	}
	if e, ok := v.(respError); ok {
		return nil, e
	}
	return v, nil
}

// read reads one reply; error replies are values here (an array may hold them).
func (c *respConn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("malformed RESP line %q", line)
	}
	kind, rest := line[0], line[1:len(line)-2]
	switch kind {
	case '+':
		return rest, nil
	case '-':
		return respError(rest), nil
	case ':':
		return strconv.ParseInt(rest, 10, 64)
	case '$':
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return nil, err // $-1 is a null
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return nil, err // *-1 is a null
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = c.read(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown RESP reply type %q", line)
}
