package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func openServerView(t *testing.T, raw string) driver.ServerSampler {
	t.Helper()
	cl := testenv.Open(t, raw, driver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sv, err := cl.(driver.ServerViewer).ServerView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close(context.Background()) })
	return sv
}

func sampleNow(t *testing.T, sv driver.ServerSampler) result.EngineSample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := sv.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// moved fails the test unless counter name grew by at least want.
func moved(t *testing.T, before, after result.EngineSample, name string, want float64) {
	t.Helper()
	a, ok := after.Counters[name]
	if !ok {
		t.Errorf("no counter %s in %v", name, after.Counters)
		return
	}
	if d := a - before.Counters[name]; d < want {
		t.Errorf("%s moved by %v, want at least %v", name, d, want)
	}
}

// The sampler's INFO counts what a session of the same client did: its SETs
// and GETs per command, its hits and misses, with per-command latency
// percentiles (Redis 7, Valkey) and memory and clients as gauges.
func TestServerViewCountsTheSessionsCommands(t *testing.T) {
	for name, raw := range map[string]string{"redis": testenv.RedisURL(t), "valkey": testenv.ValkeyURL(t)} {
		t.Run(name, func(t *testing.T) {
			p := testenv.RedisKeyPrefix(t)
			sv := openServerView(t, raw)
			if u := sv.Unavailable(); len(u) != 0 {
				t.Errorf("Unavailable on the test server: %q", u)
			}
			before := sampleNow(t, sv)
			kv := testenv.Connect(t, raw, driver.Options{}).(driver.KV)
			var cmds []driver.KVCommand
			for i := range 40 {
				cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", p, i), Value: []byte("v")})
			}
			for i := range 30 { // 20 hits, 10 misses
				cmds = append(cmds, driver.KVCommand{Name: "GET", Key: fmt.Appendf(nil, "%s%d", p, i+20)})
			}
			if err := kv.Pipeline(context.Background(), cmds, make([]driver.KVReply, len(cmds))); err != nil {
				t.Fatal(err)
			}
			after := sampleNow(t, sv)
			moved(t, before, after, "commandstats.cmdstat_set.calls", 40)
			moved(t, before, after, "commandstats.cmdstat_get.calls", 30)
			moved(t, before, after, "info.keyspace_hits", 20)
			moved(t, before, after, "info.keyspace_misses", 10)
			moved(t, before, after, "info.total_commands_processed", 70)
			if after.Counters["commandstats.cmdstat_set.usec"] <= 0 {
				t.Errorf("commandstats.cmdstat_set.usec = %v", after.Counters["commandstats.cmdstat_set.usec"])
			}
			if _, ok := after.Counters["info.used_cpu_user"]; !ok {
				t.Errorf("no info.used_cpu_user in %v", after.Counters)
			}
			if _, ok := after.Gauges["latencystats.latency_percentiles_usec_set.p99"]; !ok {
				t.Errorf("no SET p99 in %v", after.Gauges)
			}
			if after.Gauges["info.used_memory"] <= 0 || after.Gauges["info.connected_clients"] < 2 {
				t.Errorf("gauges: used_memory %v, connected_clients %v (the sampler and the session)",
					after.Gauges["info.used_memory"], after.Gauges["info.connected_clients"])
			}
			u := sv.Units()
			if u["commandstats.cmdstat_set.usec"] != "µs" || u["latencystats.latency_percentiles_usec_set.p99"] != "µs" ||
				u["info.used_memory"] != "bytes" || u["info.used_cpu_sys"] != "s" {
				t.Errorf("units: %v", u)
			}
			if len(after.Waits) != 0 {
				t.Errorf("Redis has no wait states, got %v", after.Waits)
			}
		})
	}
}

// In cluster mode every master is sampled and the counters are their sum: a
// session's SETs, spread over the masters by slot, are all counted.
func TestServerViewSumsTheClustersMasters(t *testing.T) {
	nodes := testenv.RedisCluster(t)
	p := testenv.RedisKeyPrefix(t)
	raw := "redis://" + nodes[0] + "?cluster=true"
	sv := openServerView(t, raw)
	if got := len(sv.(*infoSampler).addrs); got != len(nodes) {
		t.Fatalf("sampling %d masters, the cluster has %d", got, len(nodes))
	}
	before := sampleNow(t, sv)
	kv := testenv.Connect(t, raw, driver.Options{}).(driver.KV)
	var cmds []driver.KVCommand
	for i := range 60 {
		cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", p, i), Value: []byte("v")})
	}
	if err := kv.Pipeline(context.Background(), cmds, make([]driver.KVReply, len(cmds))); err != nil {
		t.Fatal(err)
	}
	after := sampleNow(t, sv)
	moved(t, before, after, "commandstats.cmdstat_set.calls", 60)
	if c := after.Gauges["info.connected_clients"]; c < float64(len(nodes)) {
		t.Errorf("connected_clients summed over the masters = %v, want at least the sampler's %d", c, len(nodes))
	}
}

// fakeRedis serves RESP on loopback: PING is answered PONG, AUTH and SELECT
// OK, every other
// command by answer (nil: never answered). Closing it closes every
// connection and refuses new ones.
type fakeRedis struct {
	addr string
	l    net.Listener
	mu   sync.Mutex
	cs   []net.Conn
}

func newFakeRedis(t *testing.T, answer func(args []string) []byte) *fakeRedis {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{addr: l.Addr().String(), l: l}
	t.Cleanup(f.close)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.cs = append(f.cs, c)
			f.mu.Unlock()
			go func() {
				rd := newReader(c)
				for {
					var cmd driver.KVReply // a command is an array of bulk strings, as a reply can be
					if _, err := rd.reply(&cmd); err != nil {
						return
					}
					args := make([]string, len(cmd.Elements))
					for i, e := range cmd.Elements {
						args[i] = string(e)
					}
					var out []byte
					switch strings.ToUpper(args[0]) {
					case "PING":
						out = []byte("+PONG\r\n")
					case "AUTH", "SELECT":
						out = []byte("+OK\r\n")
					default:
						out = answer(args)
					}
					if out != nil {
						c.Write(out)
					}
				}
			}()
		}
	}()
	return f
}

func (f *fakeRedis) close() {
	f.l.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.cs {
		c.Close()
	}
}

func bulk(s string) []byte { return fmt.Appendf(nil, "$%d\r\n%s\r\n", len(s), s) }

// An ACL user without +info gets an empty view that says which permission
// would fill it, not an error; a renamed INFO says so too.
func TestServerViewNamesTheMissingPermission(t *testing.T) {
	for _, tc := range []struct{ reply, want string }{
		{"-NOPERM User bench has no permissions to run the 'info' command\r\n", `ACL SETUSER bench +info`},
		{"-ERR unknown command 'INFO', with args beginning with: \r\n", "rename-command"},
	} {
		f := newFakeRedis(t, func([]string) []byte { return []byte(tc.reply) })
		sv := openServerView(t, "redis://bench:pw@"+f.addr+"/0")
		u := sv.Unavailable()
		if len(u) != 1 || !strings.Contains(u[0], tc.want) || strings.Contains(u[0], "pw") {
			t.Errorf("Unavailable = %q, want one line naming %q", u, tc.want)
		}
		if s := sampleNow(t, sv); len(s.Counters)+len(s.Gauges) != 0 {
			t.Errorf("sample of a refused INFO: %+v", s)
		}
	}
}

// A Redis 6 takes one INFO section: the sampler asks for all, and says that
// it has no latency percentiles.
func TestServerViewOnRedis6AsksForAll(t *testing.T) {
	text := "# Server\r\nredis_version:6.2.14\r\n# Stats\r\nkeyspace_hits:7\r\n# Commandstats\r\ncmdstat_get:calls=7,usec=21,usec_per_call=3.00\r\n"
	var mu sync.Mutex
	var asked [][]string
	f := newFakeRedis(t, func(args []string) []byte {
		mu.Lock()
		asked = append(asked, args)
		mu.Unlock()
		if len(args) > 2 {
			return []byte("-ERR syntax error\r\n")
		}
		return bulk(text)
	})
	sv := openServerView(t, "redis://"+f.addr)
	s := sampleNow(t, sv)
	if s.Counters["info.keyspace_hits"] != 7 || s.Counters["commandstats.cmdstat_get.calls"] != 7 || s.Counters["commandstats.cmdstat_get.usec"] != 21 {
		t.Errorf("sample: %v", s.Counters)
	}
	if _, ok := s.Counters["commandstats.cmdstat_get.usec_per_call"]; ok {
		t.Error("usec_per_call is a ratio, not a counter")
	}
	u := sv.Unavailable()
	if len(u) != 1 || !strings.Contains(u[0], "6.2.14") {
		t.Errorf("Unavailable = %q", u)
	}
	mu.Lock()
	defer mu.Unlock()
	if last := asked[len(asked)-1]; len(last) != 2 || last[1] != "all" {
		t.Errorf("last INFO asked %q, want INFO all", last)
	}
}

// A server that stops answering fails the sample at the context's deadline;
// one that went away fails it at once; neither hangs. An unreachable server
// fails ServerView itself.
func TestServerViewNeverHangs(t *testing.T) {
	mute := make(chan struct{})
	f := newFakeRedis(t, func([]string) []byte {
		select {
		case <-mute:
			return nil
		default:
			return bulk("# Latencystats\r\n")
		}
	})
	sv := openServerView(t, "redis://"+f.addr)
	close(mute)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := sv.Sample(ctx); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("sample of a mute server: %v, want the deadline", err)
		}
	case <-time.After(testenv.StopDeadline):
		t.Fatal("the sample of a mute server did not end at its deadline")
	}
	f.close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), testenv.StopDeadline)
	defer cancel2()
	if _, err := sv.Sample(ctx2); err == nil || ctx2.Err() != nil {
		t.Errorf("sample of a closed server: %v (context: %v)", err, ctx2.Err())
	}
	cl, err := Driver{}.Open(context.Background(), driver.Target{URL: testenv.RedisURL(t)}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*client)
	c.cfg.Addr = f.addr // gone now
	defer cl.Close(context.Background())
	if _, err := c.ServerView(ctx2); err == nil {
		t.Error("ServerView on a server that is gone succeeded")
	}
}

// Cluster sums: counters add up, percentiles and ratios take the largest.
func TestAddInfoSumsCountersAndTakesTheLargestPercentile(t *testing.T) {
	s := result.EngineSample{Counters: map[string]float64{}, Gauges: map[string]float64{}}
	addInfo(&s, info("keyspace_hits:3\r\nused_memory:100\r\nmem_fragmentation_ratio:1.5\r\nlatency_percentiles_usec_get:p50=1,p99=9\r\ncmdstat_get:calls=3,usec=9,failed_calls=1"))
	addInfo(&s, info("keyspace_hits:4\r\nused_memory:50\r\nmem_fragmentation_ratio:1.2\r\nlatency_percentiles_usec_get:p50=2,p99=4\r\ncmdstat_get:calls=5,usec=10,rejected_calls=2"))
	want := map[string]float64{"info.keyspace_hits": 7, "commandstats.cmdstat_get.calls": 8, "commandstats.cmdstat_get.usec": 19,
		"commandstats.cmdstat_get.failed_calls": 1, "commandstats.cmdstat_get.rejected_calls": 2}
	for k, v := range want {
		if s.Counters[k] != v {
			t.Errorf("%s = %v, want %v", k, s.Counters[k], v)
		}
	}
	wantG := map[string]float64{"info.used_memory": 150, "info.mem_fragmentation_ratio": 1.5,
		"latencystats.latency_percentiles_usec_get.p50": 2, "latencystats.latency_percentiles_usec_get.p99": 9}
	for k, v := range wantG {
		if s.Gauges[k] != v {
			t.Errorf("%s = %v, want %v", k, s.Gauges[k], v)
		}
	}
}

// An INFO answer larger than INFO can be is refused at its length, unread.
func TestServerViewBoundsTheAnswer(t *testing.T) {
	huge := false
	var mu sync.Mutex
	f := newFakeRedis(t, func([]string) []byte {
		mu.Lock()
		defer mu.Unlock()
		if huge {
			return fmt.Appendf(nil, "$%d\r\n", maxInfoReply+1) // and no bytes: the length alone is refused
		}
		return bulk("# Latencystats\r\n")
	})
	sv := openServerView(t, "redis://"+f.addr)
	mu.Lock()
	huge = true
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.StopDeadline)
	defer cancel()
	if _, err := sv.Sample(ctx); err == nil || !strings.Contains(err.Error(), "more than the") || ctx.Err() != nil {
		t.Errorf("an INFO of %d bytes: %v", maxInfoReply+1, err)
	}
}
