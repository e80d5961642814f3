package redis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

func openCluster(t *testing.T) *client {
	t.Helper()
	nodes := testenv.RedisCluster(t)
	cl, err := Driver{}.Open(context.Background(), driver.Target{Name: "c", URL: "redis://" + nodes[0] + "?cluster=true"}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl.(*client)
}

// Every key lands on the node that owns its slot: a plain (non-cluster)
// connection to that node reads it back without a redirection.
func TestClusterKeysLandOnTheirSlotsNode(t *testing.T) {
	c := openCluster(t)
	p := testenv.RedisKeyPrefix(t)
	s, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var cmds []driver.KVCommand
	for i := range 300 {
		cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", p, i), Value: []byte("v")})
	}
	replies := make([]driver.KVReply, len(cmds))
	if err := s.(driver.KV).Pipeline(context.Background(), cmds, replies); err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	slots := c.slots.Load()
	for i, r := range replies {
		if r.Err != nil || r.Redirect != "" {
			t.Fatalf("SET %s: %+v", cmds[i].Key, r)
		}
		addr := slots[keySlot(cmds[i].Key)]
		perNode[addr]++
		n, err := dialNode(context.Background(), c.cfg, addr, false)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]driver.KVReply, 1)
		err = n.pipeline([]driver.KVCommand{{Name: "GET", Key: cmds[i].Key}}, got)
		n.close()
		if err != nil || got[0].Err != nil || string(got[0].Value) != "v" {
			t.Fatalf("GET %s on its slot's node %s: %+v %v", cmds[i].Key, addr, got[0], err)
		}
	}
	if len(perNode) != 3 {
		t.Errorf("300 keys went to %d nodes, want all 3: %v", len(perNode), perNode)
	}
}

// A slot map gone stale (a resharding the session has not seen) is repaired
// by the MOVED reply: the command is answered by the right node, counted as
// redirected, and the shared map points there from then on.
func TestClusterFollowsMOVED(t *testing.T) {
	c := openCluster(t)
	p := testenv.RedisKeyPrefix(t)
	key := []byte(p + "moved")
	slot := keySlot(key)
	right := c.slots.Load()[slot]
	var wrong string
	for _, a := range testenv.RedisCluster(t) {
		if a != right {
			wrong = a
			break
		}
	}
	c.moveSlot(slot, wrong)
	s, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	replies := make([]driver.KVReply, 2)
	err = s.(driver.KV).Pipeline(context.Background(), []driver.KVCommand{{Name: "SET", Key: key, Value: []byte("1")}, {Name: "GET", Key: key}}, replies)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		if r.Err != nil || r.Redirect != "moved" {
			t.Fatalf("reply %d: %+v, want an answer after a MOVED", i, r)
		}
	}
	if string(replies[1].Value) != "1" {
		t.Fatalf("GET after MOVED: %q", replies[1].Value)
	}
	if got := c.slots.Load()[slot]; got != right && !strings.HasSuffix(got, right[strings.LastIndex(right, ":"):]) {
		t.Fatalf("slot %d maps to %s after MOVED, want %s", slot, got, right)
	}
	// The next pipeline goes straight to the right node.
	if err := s.(driver.KV).Pipeline(context.Background(), []driver.KVCommand{{Name: "GET", Key: key}}, replies[:1]); err != nil || replies[0].Redirect != "" {
		t.Fatalf("after the map was repaired: %+v %v", replies[0], err)
	}
}

// moveSlot migrates slot from one master to another as redis-cli --cluster
// reshard does: IMPORTING on the target, MIGRATING on the source, MIGRATE of
// its keys, then the new owner announced to every master.
func reshard(t *testing.T, nodes map[string]*goredis.Client, ids map[string]string, slot int, from, to string) {
	t.Helper()
	ctx := context.Background()
	host, port, _ := strings.Cut(to, ":")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("resharding slot %d from %s to %s: %v", slot, from, to, err)
		}
	}
	must(nodes[to].Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", ids[from]).Err())
	must(nodes[from].Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", ids[to]).Err())
	for {
		keys, err := nodes[from].ClusterGetKeysInSlot(ctx, slot, 100).Result()
		must(err)
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		must(nodes[from].Do(ctx, args...).Err())
	}
	for _, a := range []string{to, from} {
		must(nodes[a].Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", ids[to]).Err())
	}
	for a, n := range nodes {
		if a != to && a != from {
			must(n.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", ids[to]).Err())
		}
	}
}

// A resharding while clients write and read the slot: the clients follow
// ASK during the migration and MOVED after it, count both, see no error, and
// the shared slot map ends up naming the new owner.
func TestClusterFollowsAReshardingMidRun(t *testing.T) {
	c := openCluster(t)
	ctx := context.Background()
	nodes, ids := map[string]*goredis.Client{}, map[string]string{}
	for _, a := range testenv.RedisCluster(t) {
		n := goredis.NewClient(&goredis.Options{Addr: a, Protocol: 2, DisableIdentity: true})
		t.Cleanup(func() { n.Close() })
		id, err := n.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			t.Fatal(err)
		}
		nodes[a], ids[a] = n, id
	}
	p := testenv.RedisKeyPrefix(t)
	tag := p + "reshard"
	slot := keySlot([]byte(tag))
	from := c.slots.Load()[slot]
	var to string
	for a := range nodes {
		if a != from {
			to = a
			break
		}
	}
	if _, ok := nodes[from]; !ok {
		t.Fatalf("slot %d's owner %s is not one of the test nodes", slot, from)
	}
	t.Cleanup(func() { reshard(t, nodes, ids, slot, to, from) })

	var moved, ask, failed, ok atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Session(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close(ctx)
			cmds := make([]driver.KVCommand, 8)
			replies := make([]driver.KVReply, 8)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				for j := range cmds {
					key := fmt.Appendf(nil, "{%s}%d-%d", tag, w, (i*8+j)%500)
					if j%2 == 0 {
						cmds[j] = driver.KVCommand{Name: "SET", Key: key, Value: []byte("v")}
					} else {
						cmds[j] = driver.KVCommand{Name: "GET", Key: key}
					}
				}
				if err := s.(driver.KV).Pipeline(ctx, cmds, replies); err != nil {
					t.Error(err)
					return
				}
				for _, r := range replies {
					switch {
					case r.Err != nil:
						failed.Add(1)
						t.Logf("error reply: %v", r.Err)
					default:
						ok.Add(1)
					}
					switch r.Redirect {
					case "moved":
						moved.Add(1)
					case "ask":
						ask.Add(1)
					}
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	reshard(t, nodes, ids, slot, from, to)
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("slot %d %s → %s: %d replies, %d MOVED, %d ASK, %d errors", slot, from, to, ok.Load(), moved.Load(), ask.Load(), failed.Load())
	if failed.Load() != 0 || moved.Load() == 0 || ok.Load() == 0 {
		t.Fatalf("%d errors, %d MOVED followed: want none and some", failed.Load(), moved.Load())
	}
	if got := c.slots.Load()[slot]; got != to {
		t.Fatalf("the slot map names %s for slot %d, want %s", got, slot, to)
	}
}

// ScanPrefix walks every master of a cluster: it sees each of 300 keys
// spread over the slots (SCAN may return one twice, when a node rehashes
// meanwhile), and no key outside the prefix; KeyCount sums the masters'
// DBSIZE.
func TestClusterScanPrefixSeesEveryMaster(t *testing.T) {
	c := openCluster(t)
	p := testenv.RedisKeyPrefix(t)
	s, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var cmds []driver.KVCommand
	for i := range 300 {
		cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", p, i), Value: []byte("v")})
	}
	cmds = append(cmds, driver.KVCommand{Name: "SET", Key: []byte(strings.TrimSuffix(p, "-") + "+outside"), Value: []byte("v")})
	t.Cleanup(func() { c.admin.Del(context.Background(), strings.TrimSuffix(p, "-")+"+outside") })
	if err := s.(driver.KV).Pipeline(context.Background(), cmds, make([]driver.KVReply, len(cmds))); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	if err := s.(driver.KVPrefixScanner).ScanPrefix(context.Background(), p, func(keys []string) bool {
		for _, k := range keys {
			seen[k] = true
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 300 {
		t.Errorf("ScanPrefix saw %d keys, want 300", len(seen))
	}
	for k := range seen {
		if !strings.HasPrefix(k, p) {
			t.Errorf("ScanPrefix(%s) saw %s", p, k)
		}
	}
	if n, err := s.(driver.KVKeyCounter).KeyCount(context.Background()); err != nil || n < 301 {
		t.Errorf("KeyCount = %d, %v; want at least the 301 keys written", n, err)
	}
}
