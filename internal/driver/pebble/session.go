package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
	"github.com/fairbench/fairbench/internal/result"
)

// errSessionClosed is Pipeline's answer on a closed session.
var errSessionClosed = errors.New("pebble: the session is closed")

// Conn is one session: a worker's share of the client's handle.
type Conn struct {
	c *Client
	h *handle

	// mu keeps Close from releasing the database under a running Pipeline
	// (pebble panics on a closed database).
	mu     sync.Mutex
	closed atomic.Bool

	buf     []byte       // reply values; reset by each Pipeline (KVReply.Value may alias it)
	ops     []embedkv.Op // the pipeline's decoded commands
	stripes []uint16     // the locks one write run holds
}

var (
	_ driver.KV              = (*Conn)(nil)
	_ driver.KVPrefixDeleter = (*Conn)(nil)
	_ driver.Path            = (*Conn)(nil)
)

// Close implements driver.Conn.
func (s *Conn) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	return s.c.sessionClosed()
}

// ClientPath implements driver.Path.
func (s *Conn) ClientPath() string {
	if v := Version(); v != "unknown" {
		return "pebble " + v
	}
	return "pebble"
}

// Classify implements driver.Conn. A closed session is a lost connection,
// so that the runner takes a new session.
func (s *Conn) Classify(err error) result.ErrorClass {
	var re embedkv.ReplyError
	switch {
	case errors.As(err, &re):
		return result.ErrOther
	case errors.Is(err, errSessionClosed), errors.Is(err, pebble.ErrClosed), errors.Is(err, driver.ErrClientClosed):
		return result.ErrConnection
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return result.ErrTimeout
	}
	return result.ErrOther
}

// since is a reply's latency. The monotonic clock never goes back; the floor
// of 1 ns keeps "answered" distinguishable from "not measured" on a clock
// too coarse to see a cached read.
func since(start time.Time) time.Duration {
	return max(time.Since(start), 1)
}

// keep copies b into the reply buffer: pebble's slices are valid only until
// their closer is closed.
func (s *Conn) keep(b []byte) []byte {
	n := len(s.buf)
	s.buf = append(s.buf, b...)
	return s.buf[n:len(s.buf):len(s.buf)]
}

func (s *Conn) keepInt(v int64) []byte {
	n := len(s.buf)
	s.buf = strconv.AppendInt(s.buf, v, 10)
	return s.buf[n:len(s.buf):len(s.buf)]
}

var ok = []byte("OK")

// Pipeline implements driver.KV; the package comment says how commands map
// onto batches. It returns an error only for a closed session, a cancelled
// context (nothing ran) or replies too short for cmds.
func (s *Conn) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return errSessionClosed
	}
	if len(replies) < len(cmds) {
		return fmt.Errorf("pebble: %d replies for %d commands", len(replies), len(cmds))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	s.buf = s.buf[:0]
	s.ops = s.ops[:0]
	for i := range cmds {
		o, err := embedkv.Decode(&cmds[i])
		s.ops = append(s.ops, o)
		replies[i] = driver.KVReply{Bytes: embedkv.BytesIn(&cmds[i])}
		if err != nil {
			replies[i].Err, replies[i].Class = err, result.ErrOther
		}
	}
	for i := 0; i < len(cmds); {
		o := s.ops[i]
		if o == embedkv.OpBad {
			replies[i].Latency = since(start)
			i++
			continue
		}
		if !o.Writes() {
			s.read(&cmds[i], &replies[i], start)
			i++
			continue
		}
		j := i + 1
		for j < len(cmds) && s.ops[j].Writes() {
			j++
		}
		if err := s.writeRun(cmds[i:j], s.ops[i:j], replies[i:j], start); err != nil {
			t := since(start)
			for k := i; k < j; k++ {
				replies[k] = driver.KVReply{Err: err, Class: s.Classify(err), Bytes: embedkv.BytesIn(&cmds[k]), Latency: t}
			}
		}
		i = j
	}
	return nil
}

// read answers one GET from the latest committed state.
func (s *Conn) read(c *driver.KVCommand, r *driver.KVReply, start time.Time) {
	v, closer, err := s.h.db.Get(c.Key)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		r.Miss = true
	case err != nil:
		r.Err, r.Class = embedkv.EngineError("pebble", err), s.Classify(err)
	default:
		r.Value = s.keep(v)
		r.Bytes += int64(len(v))
		closer.Close()
	}
	r.Latency = since(start)
}

// writeRun commits consecutive writes as one batch under the stripe locks of
// their keys; all are answered when it is durable (applied, without sync).
func (s *Conn) writeRun(cmds []driver.KVCommand, ops []embedkv.Op, replies []driver.KVReply, start time.Time) error {
	h := s.h
	s.stripes = s.stripes[:0]
	indexed := false // INCR and DEL read through the batch
	for i := range cmds {
		c := &cmds[i]
		switch ops[i] {
		case embedkv.OpSet:
			s.stripes = append(s.stripes, h.stripe(c.Key))
		case embedkv.OpIncr:
			indexed = true
			s.stripes = append(s.stripes, h.stripe(c.Key))
		case embedkv.OpDel:
			indexed = true
			for k := range embedkv.NArgs(c) {
				s.stripes = append(s.stripes, h.stripe(embedkv.Arg(c, k)))
			}
		}
	}
	slices.Sort(s.stripes) // one global order: no two runs wait on each other
	s.stripes = slices.Compact(s.stripes)
	var b *pebble.Batch
	if indexed {
		b = h.db.NewIndexedBatch()
	} else {
		b = h.db.NewBatch()
	}
	for _, st := range s.stripes {
		h.locks[st].Lock()
	}
	unlock := func() {
		for _, st := range s.stripes {
			h.locks[st].Unlock()
		}
	}
	for i := range cmds {
		if err := s.write(b, &cmds[i], ops[i], &replies[i]); err != nil {
			replies[i].Err, replies[i].Class, replies[i].Value = embedkv.EngineError("pebble", err), s.Classify(err), nil
		}
	}
	var err error
	switch {
	case b.Empty(): // every command failed: nothing to commit
		unlock()
	case h.wo.Sync:
		err = h.db.ApplyNoSyncWait(b, h.wo)
		unlock() // visible now: the next INCR of these keys may read them
		if err == nil {
			err = b.SyncWait()
		}
	default:
		err = h.db.Apply(b, h.wo)
		unlock()
	}
	b.Close()
	t := since(start)
	for i := range replies {
		replies[i].Latency = t
		replies[i].Bytes += int64(len(replies[i].Value))
	}
	return err
}

// lookup reads key through the batch: its own earlier writes, then the
// database.
func lookup(b *pebble.Batch, key []byte, each func(v []byte) error) (found bool, err error) {
	v, closer, err := b.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer closer.Close()
	if each != nil {
		return true, each(v)
	}
	return true, nil
}

func (s *Conn) write(b *pebble.Batch, c *driver.KVCommand, o embedkv.Op, r *driver.KVReply) error {
	switch o {
	case embedkv.OpSet:
		if err := b.Set(c.Key, embedkv.Arg(c, 1), nil); err != nil {
			return err
		}
		r.Value = s.keep(ok)
	case embedkv.OpIncr:
		var n int64
		found, err := lookup(b, c.Key, func(v []byte) (err error) {
			n, err = embedkv.Incr(v, true)
			return err
		})
		if err != nil {
			return err
		}
		if !found {
			n, _ = embedkv.Incr(nil, false)
		}
		v := s.keepInt(n)
		if err := b.Set(c.Key, v, nil); err != nil {
			return err
		}
		r.Value = v
	case embedkv.OpDel:
		var n int64
		for i := range embedkv.NArgs(c) {
			k := embedkv.Arg(c, i)
			found, err := lookup(b, k, nil)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			if err := b.Delete(k, nil); err != nil {
				return err
			}
			n++
		}
		r.Value = s.keepInt(n)
	}
	return nil
}

// successor is the least key greater than every key starting with prefix,
// or nil when there is none (the prefix is all 0xff bytes).
func successor(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// DeletePrefix implements driver.KVPrefixDeleter: it counts the keys under
// the prefix, then deletes [prefix, successor) with one range tombstone
// (for a prefix of 0xff bytes, which has no successor, key by key). It takes
// no stripe lock: a write racing with it may survive or be deleted
// uncounted, which a workload cleaning up after itself does not meet. An
// empty prefix would delete every key and is refused.
func (s *Conn) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return 0, errSessionClosed
	}
	if prefix == "" {
		return 0, errors.New("pebble: DeletePrefix of an empty prefix would delete every key: refused")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	db := s.h.db
	lo := []byte(prefix)
	hi := successor(lo)
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return 0, err
	}
	var n int64
	b := db.NewBatch()
	defer b.Close()
	for valid := it.First(); valid; valid = it.Next() {
		n++
		if hi == nil {
			// Every key from an all-0xff prefix on starts with it.
			if err := b.Delete(it.Key(), nil); err != nil {
				it.Close()
				return 0, err
			}
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	if hi != nil {
		err = db.DeleteRange(lo, hi, s.h.wo)
	} else {
		err = db.Apply(b, s.h.wo)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}
