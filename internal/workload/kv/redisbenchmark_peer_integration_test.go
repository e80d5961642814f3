package kv_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// privateRedis starts a redis-server of the test's own on a free loopback
// port, without persistence, and stops it when the test ends: its command
// counters (INFO commandstats) then count only this test's requests, which
// on the shared test servers other packages' tests, running in parallel,
// add to.
func privateRedis(t *testing.T) string {
	t.Helper()
	bin := testenv.Tool(t, "redis-server")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "redis://" + addr + "/0"
		}
		select {
		case err := <-exited:
			t.Fatalf("%s --port %s exited before it listened: %v", bin, port, err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s listens on no %s after 30 s: %v", bin, addr, err)
		}
	}
}

// The size of the runs beside redis-benchmark: connections, requests each
// (kv's requests; redis-benchmark's -n is their product), the batch, and
// the key range 0…benchKeyMaximum. redis-benchmark sends whole batches
// only, rounding -n up to a multiple of -P (12 008 requests at -P 16 are
// 12 016), so the product is a multiple of the batch here, and kv's last
// batch on each connection (3000 = 187 × 16 + 8) is cut short.
const (
	benchClients    = 4
	benchPerClient  = 3000
	benchPipeline   = 16
	benchKeyMaximum = 1000
	benchRequests   = benchClients * benchPerClient
)

// redisBenchmarkCell is a one-cell kv study on url, count-bound, of SETs
// (ratio 1:0, redis-benchmark -t set) or GETs (0:1, -t get) in batches:
// the native workload, or redis-benchmark's cell (tool = "redis-benchmark",
// which ignores key_prefix and writes key:000000001234).
func redisBenchmarkCell(url, tool, ratio, prefix string) string {
	line := `kind = "kv"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "kv beside redis-benchmark"
warmup = "0s"
duration = "120s"
[[target]]
name = "private redis"
url = "%s"
[[workload]]
%s
clients = [%d]
ratio = "%s"
pipeline = %d
pipeline_mode = "batch"
requests = %d
key_maximum = %d
data_size = 64
key_prefix = "%s"
`, url, line, benchClients, ratio, benchPipeline, benchPerClient, benchKeyMaximum, prefix)
}

// setEvenKeys SETs the keys of even number in 0…benchKeyMaximum, each named
// by name, so that GETs drawn uniformly from the range hit about half the
// time; it returns how many it wrote.
func setEvenKeys(t *testing.T, kv driver.KV, name func(n int) string) int {
	t.Helper()
	var cmds []driver.KVCommand
	for n := 0; n <= benchKeyMaximum; n += 2 {
		cmds = append(cmds, driver.KVCommand{Name: "SET", Key: []byte(name(n)), Value: []byte("x")})
	}
	replies := make([]driver.KVReply, len(cmds))
	if err := kv.Pipeline(context.Background(), cmds, replies); err != nil {
		t.Fatal(err)
	}
	for _, r := range replies {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return len(cmds)
}

// opCounts are a run's requests of each command, by its name in lower case
// (redis-benchmark's tests are SET and GET, kv's operations set and get).
func opCounts(r *result.Run) map[string]int64 {
	out := map[string]int64{}
	for _, op := range r.Ops {
		n := op.Count
		for _, e := range op.Errors {
			n += e
		}
		out[strings.ToLower(op.Name)] += n
	}
	return out
}

// redis-benchmark (-P: a batch of requests sent together, all replies
// awaited before the next) and fairbench's kv with pipeline_mode = batch,
// one after the other on a redis-server of the test's own, with the same
// parameters: 4 connections, batches of 16, 3 000 requests each
// (redis-benchmark -n 12 000), keys 0–1000, SETs (ratio 1:0, -t set) and
// then GETs (0:1, -t get). Each sends exactly the requests asked for: the
// count the tool reports (redis-benchmark's "requests completed", read by
// the adapter that imports it) and the server's own count of the command
// (INFO commandstats before and after the run), which counts none of the
// other command; fairbench's SET run adds exactly its marker's one GET and
// one SET (prefill.go). Before the GETs, the keys of even number are SET
// under each tool's names, and the server's keyspace hits count each
// tool's GETs that found a key: fairbench's own hits and misses are the
// server's exactly, and the share of hits is each tool's share of even
// keys in the range both draw from ([0, key_maximum]: the cell passes
// redis-benchmark -r key_maximum + 1, as -r n draws from [0, n); 501 of 1001) within 5
// binomial standard deviations (2.3 points on 12 000 GETs), and the two
// within 5 of their difference (3.2 points): keys drawn from another
// range, or not uniformly, are far outside. Rates are not compared: on a
// shared host they vary from one minute to the next (bench/kv.sh pairs
// them instead).
func TestKVAgreesWithRedisBenchmark(t *testing.T) {
	testenv.Tool(t, "redis-benchmark")
	url := privateRedis(t)
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	prefix := "fbtest-redis-benchmark-"
	type tool struct{ name, cell string }
	tools := []tool{{"redis-benchmark", "redis-benchmark"}, {"fairbench", ""}}
	for _, command := range []string{"set", "get"} {
		ratio, other := "1:0", "get"
		if command == "get" {
			ratio, other = "0:1", "set"
		}
		shares := map[string]float64{}
		for _, tl := range tools {
			// Each run's keys of its own: the GET runs' even keys are
			// written before the runs, under a prefix of their own.
			p := prefix + command + "-"
			var expected float64
			if command == "get" {
				if tl.cell == "" {
					expected = float64(setEvenKeys(t, kv, func(n int) string { return fmt.Sprintf("%s%d", p, n) })) / (benchKeyMaximum + 1)
				} else {
					expected = float64(setEvenKeys(t, kv, func(n int) string { return fmt.Sprintf("key:%012d", n) })) / (benchKeyMaximum + 1)
				}
			}
			before := serverStats(t, kv)
			run := runStudy(t, redisBenchmarkCell(url, tl.cell, ratio, p))
			after := serverStats(t, kv)
			delta := func(k string) int64 { return after[k] - before[k] }
			if n := requestCount(run); n != benchRequests {
				t.Errorf("%s %s: reported %d requests, want %d (%d connections × %d)", tl.name, command, n, benchRequests, benchClients, benchPerClient)
			}
			if ops := opCounts(run); ops[command] != benchRequests || ops[other] != 0 {
				t.Errorf("%s %s: reported %d %ss and %d %ss, want %d and none", tl.name, command, ops[command], command, ops[other], other, benchRequests)
			}
			var markerGet, markerSet int64
			if tl.cell == "" && command == "set" {
				markerGet, markerSet = 1, 1
			}
			wantCmd, wantOther := int64(benchRequests)+markerSet, markerGet
			if command == "get" {
				wantCmd, wantOther = benchRequests, 0
			}
			if got := delta(command); got != wantCmd {
				t.Errorf("%s %s: the server counted %d %ss, want %d", tl.name, command, got, command, wantCmd)
			}
			if got := delta(other); got != wantOther {
				t.Errorf("%s %s: the server counted %d %ss, want %d", tl.name, command, got, other, wantOther)
			}
			if command != "get" {
				continue
			}
			hits, misses := delta("keyspace_hits"), delta("keyspace_misses")
			if hits+misses != benchRequests {
				t.Errorf("%s get: the server counted %d hits + %d misses, want its %d GETs", tl.name, hits, misses, benchRequests)
			}
			if tl.cell == "" {
				if own, ownMisses := int64(run.Summary.Extra["hits"]), int64(run.Summary.Extra["misses"]); own != hits || ownMisses != misses {
					t.Errorf("fairbench get: recorded %d hits and %d misses, the server %d and %d", own, ownMisses, hits, misses)
				}
			}
			share := float64(hits) / float64(hits+misses)
			if tol := 5 * math.Sqrt(expected*(1-expected)/benchRequests); math.Abs(share-expected) > tol {
				t.Errorf("%s get: %.2f %% of the GETs hit, want %.2f ± %.2f %% (its share of the even keys)", tl.name, 100*share, 100*expected, 100*tol)
			}
			shares[tl.name] = share
		}
		if command == "get" {
			t.Logf("share of GETs that hit: redis-benchmark %.4f, fairbench %.4f", shares["redis-benchmark"], shares["fairbench"])
			if d, tol := math.Abs(shares["redis-benchmark"]-shares["fairbench"]), 5*math.Sqrt(2*0.25/benchRequests); d > tol {
				t.Errorf("the shares of GETs that hit differ by %.2f points, want at most %.2f", 100*d, 100*tol)
			}
		}
	}
}
