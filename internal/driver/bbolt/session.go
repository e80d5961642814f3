package bbolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
	"github.com/fairbench/fairbench/internal/result"
)

// errSessionClosed is Pipeline's answer on a closed session.
var errSessionClosed = errors.New("bbolt: the session is closed")

// Conn is one session: a worker's share of the client's handle.
type Conn struct {
	c  *Client
	db *bolt.DB

	// mu keeps Close from releasing the database under a running Pipeline.
	mu     sync.Mutex
	closed atomic.Bool

	buf  []byte       // reply values; reset by each Pipeline (KVReply.Value may alias it)
	ops  []embedkv.Op // the pipeline's decoded commands
	keys [][]byte     // DeletePrefix's keys of one transaction, copied into kbuf
	kbuf []byte
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
		return "bbolt " + v
	}
	return "bbolt"
}

// Classify implements driver.Conn. A closed session or database is a lost
// connection, so that the runner takes a new session.
func (s *Conn) Classify(err error) result.ErrorClass {
	var re embedkv.ReplyError
	switch {
	case errors.As(err, &re):
		return result.ErrOther
	case errors.Is(err, errSessionClosed), errors.Is(err, berrors.ErrDatabaseNotOpen), errors.Is(err, driver.ErrClientClosed):
		return result.ErrConnection
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.Is(err, berrors.ErrTimeout):
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

// keep copies b into the reply buffer: bbolt's slices are valid only inside
// their transaction.
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
// onto transactions. It returns an error only for a closed session, a
// cancelled context (nothing ran) or replies too short for cmds.
func (s *Conn) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return errSessionClosed
	}
	if len(replies) < len(cmds) {
		return fmt.Errorf("bbolt: %d replies for %d commands", len(replies), len(cmds))
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
		j := i + 1
		for j < len(cmds) && s.ops[j] != embedkv.OpBad && s.ops[j].Writes() == o.Writes() {
			j++
		}
		var err error
		if o.Writes() {
			err = s.writeRun(cmds[i:j], s.ops[i:j], replies[i:j], start)
		} else {
			err = s.readRun(cmds[i:j], replies[i:j], start)
		}
		if err != nil {
			if errors.Is(err, berrors.ErrDatabaseNotOpen) {
				return err
			}
			t := since(start)
			for k := i; k < j; k++ {
				replies[k] = driver.KVReply{Err: err, Class: s.Classify(err), Bytes: embedkv.BytesIn(&cmds[k]), Latency: t}
			}
		}
		i = j
	}
	return nil
}

// readRun answers consecutive GETs in one read-only transaction, each at
// its own completion.
func (s *Conn) readRun(cmds []driver.KVCommand, replies []driver.KVReply, start time.Time) error {
	return s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range cmds {
			r := &replies[i]
			if v := b.Get(cmds[i].Key); v != nil {
				r.Value = s.keep(v)
				r.Bytes += int64(len(v))
			} else {
				r.Miss = true
			}
			r.Latency = since(start)
		}
		return nil
	})
}

// writeRun runs consecutive writes in one read-write transaction; all are
// answered when it has committed.
func (s *Conn) writeRun(cmds []driver.KVCommand, ops []embedkv.Op, replies []driver.KVReply, start time.Time) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range cmds {
			if err := s.write(b, &cmds[i], ops[i], &replies[i]); err != nil {
				// bbolt checks a key before changing anything: the
				// transaction goes on without this command.
				replies[i].Err, replies[i].Class = embedkv.EngineError("bbolt", err), result.ErrOther
				replies[i].Value = nil
			}
		}
		return nil
	})
	t := since(start)
	for i := range replies {
		replies[i].Latency = t
		replies[i].Bytes += int64(len(replies[i].Value))
	}
	return err
}

func (s *Conn) write(b *bolt.Bucket, c *driver.KVCommand, o embedkv.Op, r *driver.KVReply) error {
	switch o {
	case embedkv.OpSet:
		v := embedkv.Arg(c, 1)
		if v == nil {
			v = []byte{} // bbolt answers a nil value as absent: keep "" a value
		}
		if err := b.Put(c.Key, v); err != nil {
			return err
		}
		r.Value = s.keep(ok)
	case embedkv.OpIncr:
		old := b.Get(c.Key)
		n, err := embedkv.Incr(old, old != nil)
		if err != nil {
			return err
		}
		v := s.keepInt(n)
		if err := b.Put(c.Key, v); err != nil { // v stays unchanged until the commit, as Put needs
			return err
		}
		r.Value = v
	case embedkv.OpDel:
		var n int64
		for i := range embedkv.NArgs(c) {
			k := embedkv.Arg(c, i)
			if b.Get(k) == nil {
				continue
			}
			if err := b.Delete(k); err != nil {
				return err
			}
			n++
		}
		r.Value = s.keepInt(n)
	}
	return nil
}

// deleteChunk bounds one DeletePrefix transaction, so that deleting millions
// of keys neither holds the writer for long nor builds a huge commit.
const deleteChunk = 10_000

// DeletePrefix implements driver.KVPrefixDeleter: it seeks to the prefix and
// deletes the keys that start with it, in transactions of deleteChunk keys.
// An empty prefix would delete every key and is refused.
func (s *Conn) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return 0, errSessionClosed
	}
	if prefix == "" {
		return 0, errors.New("bbolt: DeletePrefix of an empty prefix would delete every key: refused")
	}
	p := []byte(prefix)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n := 0
		err := s.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			s.keys, s.kbuf = s.keys[:0], s.kbuf[:0]
			c := b.Cursor()
			for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(s.keys) < deleteChunk; k, _ = c.Next() {
				// Copied and deleted after the walk: deleting under a
				// moving cursor can skip keys.
				n := len(s.kbuf)
				s.kbuf = append(s.kbuf, k...)
				s.keys = append(s.keys, s.kbuf[n:len(s.kbuf):len(s.kbuf)])
			}
			for _, k := range s.keys {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
			n = len(s.keys)
			return nil
		})
		if err != nil {
			return total, err
		}
		total += int64(n)
		if n < deleteChunk {
			return total, nil
		}
	}
}
