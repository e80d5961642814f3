package redis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

func openCluster(t *testing.T) *Client {
	t.Helper()
	nodes := testenv.RedisCluster(t)
	cl, err := Driver{}.Open(context.Background(), driver.Target{Name: "c", URL: "redis://" + nodes[0] + "?cluster=true"}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl.(*Client)
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
