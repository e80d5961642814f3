package testenv

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
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
// test ends, the keys under it are deleted (SCAN MATCH and UNLINK, never a flush)
// on every test Redis, Valkey and cluster node the environment names; a
// server that cannot be reached then is only logged.
func RedisKeyPrefix(t testing.TB) string {
	t.Helper()
	prefix := "fbtest-" + randomHex(6) + "-"
	DeleteRedisKeysAtEnd(t, prefix)
	return prefix
}

// DeleteRedisKeysAtEnd deletes the keys under prefix when the test ends, as
// RedisKeyPrefix does its own: for the keys of a name the test chose under
// a workload's own prefix (ycsb's fb:ycsb:TABLE:).
func DeleteRedisKeysAtEnd(t testing.TB, prefix string) {
	t.Helper()
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

// deleteRedisKeys deletes the keys starting with prefix on one server; a
// cluster node deletes only its own keys, which are the ones its SCAN returns.
func deleteRedisKeys(s redisServer, prefix string) (int64, error) {
	o := redisOptions(&goredis.Options{Addr: s.addr})
	if s.url != "" {
		var err error
		if o, err = redisURLOptions(s.url, s.ca); err != nil {
			return 0, err
		}
	}
	c := goredis.NewClient(o)
	defer c.Close()
	ctx := context.Background() // each command has the options' time limits
	var n int64
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, globEscape(prefix)+"*", 1000).Result()
		if err != nil {
			return n, err
		}
		if len(keys) > 0 {
			// One UNLINK per key, pipelined: a cluster node refuses a
			// multi-key command over keys of different slots (CROSSSLOT).
			cmds, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
				for _, k := range keys {
					p.Unlink(ctx, k)
				}
				return nil
			})
			for _, cmd := range cmds {
				if ic, ok := cmd.(*goredis.IntCmd); ok {
					n += ic.Val()
				}
			}
			if err != nil {
				return n, err
			}
		}
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
}

// globEscape quotes SCAN MATCH's pattern characters in a literal prefix.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// redisOptions sets what every go-redis client of the test environment
// shares: RESP2 without CLIENT SETINFO, one attempt to connect and none to
// retry a command, 5 s to connect and 10 s per command.
func redisOptions(o *goredis.Options) *goredis.Options {
	o.Protocol, o.DisableIdentity, o.DialerRetries, o.MaxRetries = 2, true, 1, -1
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 5*time.Second, 10*time.Second, 10*time.Second
	return o
}

// redisURLOptions are the client options for a redis:// or rediss:// URL
// (user, password and database from the URL); for rediss, the server
// certificate must be signed by the CA in caFile and name the URL's host.
func redisURLOptions(raw, caFile string) (*goredis.Options, error) {
	o, err := goredis.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if o.TLSConfig != nil {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", caFile)
		}
		o.TLSConfig.RootCAs = pool
	}
	return redisOptions(o), nil
}

// spareRedisDB is the database number RedisSpareDB hands out: no other test
// uses it, and tests that do take it one at a time.
const spareRedisDB = 9

// RedisSpareDB returns rawURL (a test Redis or Valkey) with database
// spareRedisDB, for a test of a tool that has no key prefix
// (redis-benchmark writes key:…): the test holds it alone (a flock per
// server, across the packages' test processes) until it ends. The database
// must be empty when taken: a key there fails the test, which deletes
// nothing it did not write.
func RedisSpareDB(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	exclusive(t, "fairbench-test-redis-db-"+strings.ReplaceAll(u.Host, ":", "_")+".lock", "the spare database of "+u.Host)
	u.Path = fmt.Sprintf("/%d", spareRedisDB)
	o, err := redisURLOptions(u.String(), os.Getenv("FAIRBENCH_TEST_REDIS_CA"))
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	if n, err := c.DBSize(context.Background()).Result(); err != nil || n != 0 {
		t.Fatalf("the spare database %s of %s holds %d keys (%v): a test left them; they are not deleted here", u.Path, u.Host, n, err)
	}
	return u.String()
}
