package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// Cluster mode, as memtier's --cluster-mode: each key goes to the master that
// owns its slot (CRC16 of the key, or of its {hash tag}, modulo 16384); a
// session holds one connection per node; a MOVED reply updates the shared
// slot map and the command is sent again to the node named, an ASK reply
// sends it once with ASKING; both are counted in the reply (Redirect).

const numSlots = 16384

// slotMap maps each slot to its master's address.
type slotMap [numSlots]string

var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// keySlot is the cluster slot of key (CRC16/XMODEM, hash tags honoured).
func keySlot(key []byte) int {
	if s := bytes.IndexByte(key, '{'); s >= 0 {
		if e := bytes.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for _, b := range key {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b]
	}
	return int(crc) % numSlots
}

// loadSlots reads the slot map with CLUSTER SLOTS.
func (c *client) loadSlots(ctx context.Context) error {
	slots, err := c.admin.ClusterSlots(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLUSTER SLOTS on %s: %v (is cluster mode enabled there? drop cluster=true otherwise)", c.cfg.Addr, err)
	}
	m := new(slotMap)
	covered := 0
	for _, s := range slots {
		if len(s.Nodes) == 0 {
			continue
		}
		for i := s.Start; i <= s.End && i < numSlots; i++ {
			m[i] = s.Nodes[0].Addr
			covered++
		}
	}
	if covered < numSlots {
		return fmt.Errorf("the cluster at %s serves %d of %d slots: it is not ready (cluster_state?)", c.cfg.Addr, covered, numSlots)
	}
	c.slots.Store(m)
	return nil
}

// moveSlot records that slot now lives at addr, copying the map so that
// sessions reading the old one are never raced.
func (c *client) moveSlot(slot int, addr string) {
	for {
		old := c.slots.Load()
		if old[slot] == addr {
			return
		}
		m := *old
		m[slot] = addr
		if c.slots.CompareAndSwap(old, &m) {
			return
		}
	}
}

// clusterSession is one worker's connections to the masters of a cluster.
type clusterSession struct {
	c *client
	// mu guards nodes' writes (the owner's) against Interrupt's reads (the
	// runner's goroutine); the owner reads without it.
	mu    sync.Mutex
	nodes map[string]*node
	// per-pipeline scratch: each node's commands and their positions
	byNode map[string]*batch
	order  []string
}

type batch struct {
	cmds    []driver.KVCommand
	idx     []int
	replies []driver.KVReply
	start   time.Time
}

func (s *clusterSession) node(ctx context.Context, addr string) (*node, error) {
	if n := s.nodes[addr]; n != nil && n.broken == nil {
		return n, nil
	}
	if n := s.nodes[addr]; n != nil {
		n.close()
	}
	n, err := dialNode(ctx, s.c.cfg, addr, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		delete(s.nodes, addr)
		return nil, scrub(err, s.c.cfg)
	}
	s.nodes[addr] = n
	return n, nil
}

// Pipeline implements driver.KV: the commands are split by node, every
// node's share is written before any reply is read, and each reply is timed
// from its node's write.
func (s *clusterSession) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	slots := s.c.slots.Load()
	if s.byNode == nil {
		s.byNode = map[string]*batch{}
	}
	s.order = s.order[:0]
	for _, b := range s.byNode {
		b.cmds, b.idx = b.cmds[:0], b.idx[:0]
	}
	for i := range cmds {
		addr := slots[keySlot(cmds[i].Key)]
		b := s.byNode[addr]
		if b == nil {
			b = &batch{}
			s.byNode[addr] = b
		}
		if len(b.cmds) == 0 {
			s.order = append(s.order, addr)
		}
		b.cmds = append(b.cmds, cmds[i])
		b.idx = append(b.idx, i)
	}
	for _, addr := range s.order {
		n, err := s.node(ctx, addr)
		if err != nil {
			return err
		}
		b := s.byNode[addr]
		if b.start, err = n.send(b.cmds); err != nil {
			return err
		}
	}
	for _, addr := range s.order {
		b := s.byNode[addr]
		b.replies = append(b.replies[:0], make([]driver.KVReply, len(b.cmds))...)
		if err := s.nodes[addr].receive(b.cmds, b.replies, b.start); err != nil {
			return err
		}
		for j, i := range b.idx {
			replies[i] = b.replies[j]
		}
	}
	for i := range replies {
		if err := s.redirect(ctx, &cmds[i], &replies[i]); err != nil {
			return err
		}
	}
	return nil
}

// redirect follows a MOVED or ASK reply (up to 5 hops), keeping the latency
// of the whole detour from the first send.
func (s *clusterSession) redirect(ctx context.Context, cmd *driver.KVCommand, r *driver.KVReply) error {
	for hop := 0; hop < 5; hop++ {
		var se *serverError
		if !errors.As(r.Err, &se) {
			return nil
		}
		kind := se.prefix()
		if kind != "MOVED" && kind != "ASK" {
			return nil
		}
		f := strings.Fields(se.Msg)
		if len(f) != 3 {
			return nil
		}
		slot, err := strconv.Atoi(f[1])
		if err != nil || slot < 0 || slot >= numSlots {
			return nil
		}
		addr := f[2]
		if strings.HasPrefix(addr, ":") { // a node that does not know its own IP
			host, _, _ := strings.Cut(s.c.cfg.Addr, ":")
			addr = host + addr
		}
		if kind == "MOVED" {
			s.c.moveSlot(slot, addr)
		}
		n, err := s.node(ctx, addr)
		if err != nil {
			return err
		}
		sent := r.Latency
		one := []driver.KVCommand{*cmd}
		if kind == "ASK" {
			one = []driver.KVCommand{{Name: "ASKING"}, *cmd}
		}
		out := make([]driver.KVReply, len(one))
		if err := n.pipeline(one, out); err != nil {
			return err
		}
		last := out[len(out)-1]
		bytes := r.Bytes
		*r = last
		r.Latency += sent
		r.Bytes += bytes
		r.Redirect = strings.ToLower(kind)
	}
	return nil
}

// Close implements driver.Conn.
func (s *clusterSession) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, n := range s.nodes {
		if err := n.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Classify implements driver.Conn.
func (s *clusterSession) Classify(err error) result.ErrorClass { return classify(err) }

// Interrupt implements driver.Interrupter. The runner calls it from another
// goroutine; closing the sockets is what makes a blocked read return.
func (s *clusterSession) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.nodes {
		n.interrupt()
	}
}

// ClientPath implements driver.Path.
func (s *clusterSession) ClientPath() string {
	return "wire (RESP2, cluster mode, each reply timed as it arrives)"
}

// DeletePrefix implements driver.KVPrefixDeleter.
func (s *clusterSession) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	return s.c.DeletePrefix(ctx, prefix)
}

// ScanPrefix implements driver.KVPrefixScanner.
func (s *clusterSession) ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) bool) error {
	return s.c.ScanPrefix(ctx, prefix, fn)
}

// KeyCount implements driver.KVKeyCounter.
func (s *clusterSession) KeyCount(ctx context.Context) (int64, error) { return s.c.KeyCount(ctx) }
