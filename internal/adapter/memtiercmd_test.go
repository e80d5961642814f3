package adapter

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
)

func TestBuildMemtier(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "")
	for _, tc := range []struct {
		name string
		inv  Invocation
		set  map[string]any
		want string // argv joined by spaces
	}{
		{"defaults", Invocation{URL: "redis://127.0.0.1:6391/0", Clients: 4, Duration: 2 * time.Second}, nil,
			"memtier_benchmark --protocol=redis -s 127.0.0.1 -p 6391 -t 1 -c 4 --ratio=1:10 -d 32 --pipeline=1 --key-pattern=R:R --key-maximum=10000000 --key-prefix=memtier- --distinct-client-seed --test-time=2 --print-percentiles=50,95,99,99.9"},
		{"threads, db, set-only, json", Invocation{URL: "redis://db.example:7000/3", Clients: 8, Threads: 2, Duration: 5 * time.Second, LogDir: "/tmp/x"},
			map[string]any{"profile": "set-only", "pipeline": int64(16), "data_size": int64(100), "distinct_client_seed": false},
			"memtier_benchmark --protocol=redis -s db.example -p 7000 --select-db=3 -t 2 -c 4 --ratio=1:0 -d 100 --pipeline=16 --key-pattern=R:R --key-maximum=10000000 --key-prefix=memtier- --test-time=5 --print-percentiles=50,95,99,99.9 --json-out-file=/tmp/x/memtier.json"},
		{"tls, cluster, incr, requests", Invocation{URL: "rediss://r.example:6380?cluster=true&ca=/etc/ca.pem&skip_verify=true&timeout=2.5s", Clients: 2, Duration: time.Second},
			map[string]any{"profile": "incr-only", "requests": int64(1000), "key_pattern": "Z:Z", "key_zipf_exp": 0.9},
			"memtier_benchmark --protocol=redis -s r.example -p 6380 --cluster-mode --tls --cacert=/etc/ca.pem --tls-skip-verify --connection-timeout=3 -t 1 -c 2 --command=INCR __key__ -d 32 --pipeline=1 --key-pattern=Z:Z --key-maximum=10000000 --key-prefix=memtier- --key-zipf-exp=0.9 --distinct-client-seed --requests=1000 --print-percentiles=50,95,99,99.9"},
		{"commands, rate, range", Invocation{URL: "redis://h", Clients: 4, Duration: time.Second, Rate: 400},
			map[string]any{"command": []any{"SET __key__ __data__", "GET __key__"}, "command_ratio": []any{"1", "4"}, "command_key_pattern": []any{"R", "G"},
				"data_size_range": "32-512", "key_stddev": 100.0},
			"memtier_benchmark --protocol=redis -s h -t 1 -c 4 --rate-limiting=100 --command=SET __key__ __data__ --command-ratio=1 --command-key-pattern=R --command=GET __key__ --command-ratio=4 --command-key-pattern=G --data-size-range=32-512 --pipeline=1 --key-pattern=R:R --key-maximum=10000000 --key-prefix=memtier- --key-stddev=100 --distinct-client-seed --test-time=1 --print-percentiles=50,95,99,99.9"},
		{"random data", Invocation{URL: "redis://h", Clients: 1, Duration: time.Second}, map[string]any{"random_data": true},
			"memtier_benchmark --protocol=redis -s h -t 1 -c 1 --ratio=1:10 -d 32 --random-data --pipeline=1 --key-pattern=R:R --key-maximum=10000000 --key-prefix=memtier- --distinct-client-seed --test-time=1 --print-percentiles=50,95,99,99.9"},
	} {
		c, err := buildMemtier(Invocation{URL: tc.inv.URL, Clients: tc.inv.Clients, Threads: tc.inv.Threads, Duration: tc.inv.Duration,
			Rate: tc.inv.Rate, LogDir: tc.inv.LogDir, Params: kvValues(t, tc.set)})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		eq(t, tc.name, strings.Join(c.Argv, " "), tc.want)
		if len(c.Env) != 0 {
			t.Errorf("%s: env %v", tc.name, c.Env)
		}
	}
}

func TestBuildMemtierRefuses(t *testing.T) {
	t.Setenv("REDISCLI_AUTH", "")
	for _, tc := range []struct {
		name string
		inv  Invocation
		set  map[string]any
		want string
	}{
		{"password", Invocation{URL: "redis://default:s3cret@h:6379", Clients: 1}, nil, "takes a password only on its command line"},
		{"bare password", Invocation{URL: "redis://s3cret@h:6379", Clients: 1}, nil, "takes a password only on its command line"},
		{"uneven clients", Invocation{URL: "redis://h", Clients: 5, Threads: 2}, nil, "clients = 5 is not a multiple of threads = 2"},
		{"rmw", Invocation{URL: "redis://h", Clients: 1}, map[string]any{"profile": "rmw"}, "no memtier_benchmark equivalent"},
		{"batch", Invocation{URL: "redis://h", Clients: 1}, map[string]any{"pipeline": int64(16), "pipeline_mode": "batch"}, "memtier_benchmark keeps a window of --pipeline requests per connection"},
		{"scheme", Invocation{URL: "postgres://h/db", Clients: 1}, nil, "redis:// or rediss://"},
		{"query key", Invocation{URL: "redis://h?tls=1", Clients: 1}, nil, `target URL parameter "tls"`},
		{"ca without tls", Invocation{URL: "redis://h?ca=/x", Clients: 1}, nil, "write rediss://"},
		{"cluster db", Invocation{URL: "redis://h/2?cluster=true", Clients: 1}, nil, "only database 0"},
		{"ratios", Invocation{URL: "redis://h", Clients: 1}, map[string]any{"command": []any{"GET __key__"}, "command_ratio": []any{"1", "2"}}, "2 entries for 1 commands"},
		{"profile and command", Invocation{URL: "redis://h", Clients: 1}, map[string]any{"profile": "get-only", "command": []any{"GET __key__"}}, "give one of them"},
		{"rate", Invocation{URL: "redis://h", Clients: 3, Rate: 100}, nil, "multiple of clients"},
		{"latency limit", Invocation{URL: "redis://h", Clients: 1, LatencyLimit: time.Millisecond}, nil, "no latency limit"},
	} {
		inv := tc.inv
		inv.Duration = time.Second
		inv.Params = kvValues(t, tc.set)
		_, err := buildMemtier(inv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
	t.Setenv("REDISCLI_AUTH", "s3cret")
	if _, err := buildMemtier(Invocation{URL: "redis://h", Clients: 1, Duration: time.Second, Params: kvValues(t, nil)}); err == nil || !strings.Contains(err.Error(), "REDISCLI_AUTH") {
		t.Errorf("REDISCLI_AUTH: %v", err)
	}
}

// A study cell can run memtier_benchmark with the kv parameters.
func TestMemtierCatalog(t *testing.T) {
	tool, ok := Lookup("memtier_benchmark")
	if !ok || tool.Kind != "kv" || tool.Build == nil {
		t.Fatalf("Lookup: %+v %v; want a runnable tool of kind kv", tool, ok)
	}
	if !slices.Contains(Readable(), "memtier_benchmark") {
		t.Fatal("not among the readable tools")
	}
	// The kv kind is the native workload's: a memtier cell has its
	// parameters, declared once in kvparams; the adapter registers that
	// same list for a build without the native workloads, none of its own.
	namesOf := func(specs []params.Spec) string {
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
		}
		return strings.Join(names, ",")
	}
	if own, ok := KindParams("kv"); !ok || namesOf(own) != namesOf(kvparams.Specs()) {
		t.Errorf("kind kv's parameters for tool cells are %q (registered: %v), not kvparams'", namesOf(own), ok)
	}
	eq(t, "kv parameters", namesOf(kvparams.Specs()), "profile,ratio,pipeline,pipeline_mode,data_size,data_size_range,key_pattern,key_minimum,key_maximum,key_prefix,key_stddev,key_median,key_zipf_exp,command,command_ratio,command_key_pattern,distinct_client_seed,requests,prefill,random_data")
}
