package adapter

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuildRedisBenchmarkKV(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "") // redis-benchmark would not read it
	for _, tc := range []struct {
		set  map[string]any
		want string // the argv after the host, or an error part
	}{
		{map[string]any{"profile": "set-only", "data_size": int64(64), "pipeline": int64(4), "pipeline_mode": "batch", "key_maximum": int64(1000)}, "-c 10 -n 160000 -P 4 -d 64 -r 1001 -t set"},
		{map[string]any{"profile": "set-only", "pipeline": int64(4)}, `error: redis-benchmark's -P sends batches and waits for all their replies: set pipeline_mode = "batch"`},
		{map[string]any{"ratio": "0:1"}, "-c 10 -n 40000 -P 1 -d 32 -r 10000001 -t get"},
		{map[string]any{"profile": "incr-only", "requests": int64(100)}, "-c 10 -n 1000 -P 1 -d 32 -r 10000001 -t incr"},
		{nil, `error: ratio "1:10" mixes SET and GET`},
		{map[string]any{"profile": "get-heavy"}, "error: redis-benchmark runs one command per test"},
		{map[string]any{"profile": "rmw"}, "error: redis-benchmark runs one command per test"},
		{map[string]any{"command": []any{"INCR __key__"}}, "error: redis-benchmark cannot run the kv parameter command"},
		{map[string]any{"profile": "set-only", "key_pattern": "G:G"}, "error: redis-benchmark draws keys uniformly"},
		{map[string]any{"profile": "set-only", "random_data": true}, "error: redis-benchmark writes 'x' bytes only"},
	} {
		c, err := buildRedisBenchmark(Invocation{URL: "redis://127.0.0.1:6391", Clients: 10, Duration: 2 * time.Second, Params: kvValues(t, tc.set)})
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = strings.Join(c.Argv[5:], " ")
			eq(t, "host", strings.Join(c.Argv[:5], " "), "redis-benchmark -h 127.0.0.1 -p 6391")
		}
		if !strings.HasPrefix(got, tc.want) && !strings.Contains(got, strings.TrimPrefix(tc.want, "error: ")) {
			t.Errorf("%v: %s, want %s", tc.set, got, tc.want)
		}
	}
}

// The target's database goes to --dbnum: fairbench checks and deletes the
// cell's keys there, and redis-benchmark must write them there too (not in
// database 0). The keys it may write are its own names, which -r numbers.
func TestRedisBenchmarkDatabaseAndKeys(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "") // redis-benchmark would not read it
	inv := Invocation{URL: "redis://127.0.0.1:6391/9", Clients: 1, Duration: time.Second, Params: kvValues(t, map[string]any{"profile": "incr-only", "key_maximum": int64(1000)})}
	c, err := buildRedisBenchmark(inv)
	if err != nil || !strings.Contains(strings.Join(c.Argv, " "), " --dbnum 9 ") {
		t.Fatalf("argv %v, %v; want --dbnum 9", c.Argv, err)
	}
	fp, err := redisBenchmarkWrites(inv)
	if err != nil || fp.Keys.String() != "counter:000000000000…counter:000000001000" {
		t.Fatalf("keys %s, %v", fp.Keys, err)
	}
	// key_maximum 0 (redis-benchmark without -r, one literal key:__rand_int__)
	// is refused with the kv parameters' domain (at least 1, as memtier's).
	inv.Params = kvValues(t, map[string]any{"profile": "get-only"})
	if fp, err = redisBenchmarkWrites(inv); err != nil || !fp.Keys.Empty() {
		t.Fatalf("GET writes %s, %v", fp.Keys, err)
	}
	inv.URL = "redis://127.0.0.1:6391/x"
	if _, err := buildRedisBenchmark(inv); err == nil {
		t.Fatal("database x accepted")
	}
}

// redis-benchmark speaks to Valkey as to Redis: a valkey:// target runs,
// valkeys:// with --tls, as memtier_benchmark's cells already do.
func TestBuildRedisBenchmarkAcceptsValkey(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "") // redis-benchmark would not read it
	p := kvValues(t, map[string]any{"profile": "set-only"})
	for url, tls := range map[string]bool{"valkey://127.0.0.1:6381": false, "valkeys://127.0.0.1:6381": true} {
		c, err := buildRedisBenchmark(Invocation{URL: url, Clients: 2, Duration: time.Second, Params: p})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if slices.Contains(c.Argv, "--tls") != tls || !slices.Contains(c.Argv, "6381") {
			t.Errorf("%s: %v", url, c.Argv)
		}
	}
	if _, err := buildRedisBenchmark(Invocation{URL: "mysql://h/db", Clients: 1, Params: p}); err == nil {
		t.Error("a mysql:// target was accepted")
	}
}

// redis-benchmark 7 takes a password only as -a (or inside -u), on the
// command line that ps shows and fairbench stores, and reads no
// REDISCLI_AUTH (it then ran unauthenticated into NOAUTH): a target with
// credentials, or REDISCLI_AUTH set, is refused before the cell runs,
// naming fairbench's own kv workload, and no command holds the password.
func TestRedisBenchmarkRefusesAPasswordItCouldOnlyTakeOnItsCommandLine(t *testing.T) {
	p := kvValues(t, map[string]any{"profile": "set-only"})
	for _, url := range []string{"redis://:s3cret@127.0.0.1:6391", "redis://fbuser:s3cret@127.0.0.1:6391/0", "rediss://fbuser@127.0.0.1:6391"} {
		c, err := buildRedisBenchmark(Invocation{URL: url, Clients: 2, Duration: time.Second, Params: p})
		if err == nil || !strings.Contains(err.Error(), "only on its command line") || !strings.Contains(err.Error(), "fairbench's own kv workload") {
			t.Errorf("%s: argv %v env %v, %v; want a refusal naming the kv workload", url, c.Argv, c.Env, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the refusal shows the password: %v", url, err)
		}
	}
	t.Setenv("REDISCLI_AUTH", "s3cret")
	_, err := buildRedisBenchmark(Invocation{URL: "redis://127.0.0.1:6391", Clients: 2, Duration: time.Second, Params: p})
	if err == nil || !strings.Contains(err.Error(), "REDISCLI_AUTH is set") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("REDISCLI_AUTH: %v; want a refusal saying redis-benchmark does not read it", err)
	}
}

// A rediss:// target's ca and skip_verify (the Redis driver's keys) become
// --cacert and --insecure; a key redis-benchmark has no flag for is refused
// rather than dropped.
func TestBuildRedisBenchmarkTLSKeys(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "") // redis-benchmark would not read it
	p := kvValues(t, map[string]any{"profile": "get-only"})
	for url, want := range map[string]string{
		"rediss://127.0.0.1:6382/0?ca=/tmp/ca.crt":      "--tls --cacert /tmp/ca.crt -c",
		"valkeys://127.0.0.1:6382?skip_verify=true":     "--tls --insecure -c",
		"redis://127.0.0.1:6382?ca=/tmp/ca.crt":         "error: target URL: ca and skip_verify need TLS",
		"rediss://127.0.0.1:6382?cluster=true":          `error: target URL parameter "cluster": redis-benchmark cells understand ca, client, skip_verify`,
		"rediss://127.0.0.1:6382?skip_verify=sometimes": "error: target URL: skip_verify=sometimes",
		"redis://127.0.0.1:6382?client=fast":            "-p 6382 -c",
	} {
		c, err := buildRedisBenchmark(Invocation{URL: url, Clients: 2, Duration: time.Second, Params: p})
		got := strings.Join(c.Argv, " ")
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
	}
}
