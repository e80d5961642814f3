package kv_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// serverStats reads INFO commandstats and stats: calls per command and the
// keyspace hits and misses.
func serverStats(t *testing.T, kv driver.KV) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, section := range []string{"commandstats", "stats"} {
		r := make([]driver.KVReply, 1)
		if err := kv.Pipeline(context.Background(), []driver.KVCommand{{Name: "INFO", Key: []byte(section)}}, r); err != nil || r[0].Err != nil {
			t.Fatalf("INFO %s: %v %v", section, err, r[0].Err)
		}
		for _, line := range strings.Split(string(r[0].Value), "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			if name, ok := strings.CutPrefix(k, "cmdstat_"); ok {
				calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
				out[name], _ = strconv.ParseInt(calls, 10, 64)
			} else if k == "keyspace_hits" || k == "keyspace_misses" {
				out[k], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	return out
}

func runStudy(t *testing.T, toml string) *result.Run {
	t.Helper()
	r, err := cellrun.One(t, toml, false)
	if err != nil || r.Status != result.StatusOK {
		t.Fatalf("run %+v: %v", r, err)
	}
	return r
}

// Same configuration, same server: the SETs and GETs fairbench counts are
// the calls the server counts (INFO commandstats), pipelined, within 0.1 %,
// and its hits and misses are the server's keyspace hits and misses. The
// run has no warm-up, so every request sent is in the measured phase, but
// for the pipelines in flight when the clock stops.
func TestCountsMatchTheServersOwn(t *testing.T) {
	// The servers no other test loads heavily (server counters are global,
	// and packages' tests run in parallel): Valkey, and the Redis with a
	// password.
	for name, url := range map[string]string{"redis": testenv.RedisAuthURL(t), "valkey": testenv.ValkeyURL(t)} {
		t.Run(name, func(t *testing.T) {
			p := testenv.RedisKeyPrefix(t)
			kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
			before := serverStats(t, kv)
			run := runStudy(t, fmt.Sprintf(`
[study]
name = "kv counts"
warmup = "0s"
duration = "2s"
[[target]]
name = "%s"
url = "%s"
[[workload]]
kind = "kv"
clients = [6]
threads = 2
pipeline = 16
ratio = "1:3"
key_prefix = "%s"
key_maximum = 3000
data_size = 100
`, name, url, p))
			after := serverStats(t, kv)
			ops := map[string]int64{}
			for _, op := range run.Ops {
				ops[op.Name] = op.Count
				for _, n := range op.Errors {
					ops[op.Name] += n
				}
			}
			inFlight := int64(6 * 16)
			for _, c := range []string{"set", "get"} {
				server := after[c] - before[c]
				if ops[c] == 0 || server < ops[c] || float64(server-ops[c]) > max(0.001*float64(server), float64(inFlight)) {
					t.Errorf("%s: fairbench counted %d, the server %d", c, ops[c], server)
				}
			}
			if got := ops["set"] * 3; got < ops["get"]*9/10 || got > ops["get"]*11/10 {
				t.Errorf("SET:GET %d:%d, want 1:3", ops["set"], ops["get"])
			}
			hits, misses := int64(run.Summary.Extra["hits"]), int64(run.Summary.Extra["misses"])
			sh, sm := after["keyspace_hits"]-before["keyspace_hits"], after["keyspace_misses"]-before["keyspace_misses"]
			if hits+misses != ops["get"] || hits == 0 || misses == 0 {
				t.Errorf("hits %d + misses %d, want the %d GETs, both > 0", hits, misses, ops["get"])
			}
			// The server's own counters include the pipelines in flight and
			// other tests' reads; fairbench's cannot exceed them.
			if sh < hits || sm < misses || sh-hits > inFlight+int64(float64(sh)*0.001) {
				t.Errorf("hits/misses: fairbench %d/%d, server %d/%d", hits, misses, sh, sm)
			}
			if run.Summary.Throughput <= 0 || run.Ops[0].Bytes == 0 {
				t.Errorf("throughput %v, bytes %d", run.Summary.Throughput, run.Ops[0].Bytes)
			}
		})
	}
}

// memtier's --requests: each connection sends exactly that many requests,
// the last pipeline cut short, and the run ends when all have.
func TestRequestsPerConnection(t *testing.T) {
	url := testenv.ValkeyURL(t)
	p := testenv.RedisKeyPrefix(t)
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	before := serverStats(t, kv)
	run := runStudy(t, fmt.Sprintf(`
[study]
name = "kv requests"
warmup = "0s"
duration = "60s"
[[target]]
name = "valkey"
url = "%s"
[[workload]]
kind = "kv"
clients = [5]
pipeline = 8
requests = 1003
key_prefix = "%s"
`, url, p))
	after := serverStats(t, kv)
	var n int64
	for _, op := range run.Ops {
		n += op.Count
	}
	// Beside the requests, the server counts fairbench's marker of the
	// range the run's SETs write: one GET, and one SET of a new marker.
	server := after["set"] + after["get"] - before["set"] - before["get"] - 2
	if n != 5*1003 || server != 5*1003 {
		t.Fatalf("fairbench recorded %d requests, the server counted %d besides the marker's GET and SET; want 5 × 1003", n, server)
	}
	if run.Duration.Seconds() > 30 {
		t.Fatalf("the run lasted %v: it did not end when the connections were done", run.Duration)
	}
}
