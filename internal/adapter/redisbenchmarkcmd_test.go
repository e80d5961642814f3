package adapter

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuildRedisBenchmarkKV(t *testing.T) {
	for _, tc := range []struct {
		set  map[string]any
		want string // the argv after the host, or an error part
	}{
		{map[string]any{"profile": "set-only", "data_size": int64(64), "pipeline": int64(4), "pipeline_mode": "batch", "key_maximum": int64(1000)}, "-c 10 -n 160000 -P 4 -d 64 -r 1000 -t set"},
		{map[string]any{"profile": "set-only", "pipeline": int64(4)}, `error: redis-benchmark's -P sends batches and waits for all their replies: set pipeline_mode = "batch"`},
		{map[string]any{"ratio": "0:1"}, "-c 10 -n 40000 -P 1 -d 32 -r 10000000 -t get"},
		{map[string]any{"profile": "incr-only", "requests": int64(100)}, "-c 10 -n 1000 -P 1 -d 32 -r 10000000 -t incr"},
		{nil, `error: ratio "1:10" mixes SET and GET`},
		{map[string]any{"profile": "get-heavy"}, "error: redis-benchmark runs one command per test"},
		{map[string]any{"profile": "rmw"}, "error: redis-benchmark runs one command per test"},
		{map[string]any{"command": []any{"INCR __key__"}}, "error: redis-benchmark cannot run the kv parameter command"},
		{map[string]any{"profile": "set-only", "key_pattern": "G:G"}, "error: redis-benchmark draws keys uniformly"},
		{map[string]any{"profile": "set-only", "random_data": true}, "error: redis-benchmark writes 'x' bytes only"},
	} {
		c, err := buildRedisBenchmark(Invocation{URL: "redis://:s3cret@127.0.0.1:6391", Clients: 10, Duration: 2 * time.Second, Params: kvValues(t, tc.set)})
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = strings.Join(c.Argv[5:], " ")
			eq(t, "host", strings.Join(c.Argv[:5], " "), "redis-benchmark -h 127.0.0.1 -p 6391")
			if !slices.Equal(c.Env, []string{"REDISCLI_AUTH=s3cret"}) || strings.Contains(strings.Join(c.Argv, " "), "s3cret") {
				t.Errorf("password: argv %v env %v", c.Argv, c.Env)
			}
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
	inv := Invocation{URL: "redis://127.0.0.1:6391/9", Clients: 1, Duration: time.Second, Params: kvValues(t, map[string]any{"profile": "incr-only", "key_maximum": int64(1000)})}
	c, err := buildRedisBenchmark(inv)
	if err != nil || !strings.Contains(strings.Join(c.Argv, " "), " --dbnum 9 ") {
		t.Fatalf("argv %v, %v; want --dbnum 9", c.Argv, err)
	}
	fp, err := redisBenchmarkWrites(inv)
	if err != nil || fp.Keys.String() != "counter:000000000000…counter:000000000999" {
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
