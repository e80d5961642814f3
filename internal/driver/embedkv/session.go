package embedkv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// Store is an engine's side of one session: what a pipeline's runs and
// DeletePrefix ask of its database. The session calls it under its own lock,
// one call at a time, so a Store may keep scratch buffers.
type Store interface {
	// ReadRun answers a run of consecutive GETs: each reply's Value (kept
	// through a) or Miss, or an error through a.Fail, and its Latency, taken
	// from a when that GET has completed. The session adds each value's
	// bytes. An error fails every GET of the run.
	ReadRun(a *Answers, cmds []driver.KVCommand, replies []driver.KVReply) error
	// WriteRun runs a run of consecutive writes (SET, INCR, DEL, as ops
	// says) as one commit: each reply's Value (kept through a), or its error
	// reply through a.Fail when the command fails alone and the others go
	// on. The session answers them all when it returns, as that is when they
	// are durable and visible: Latency then, Bytes plus the value's. An error
	// (a failed commit) fails every write of the run.
	WriteRun(a *Answers, cmds []driver.KVCommand, ops []Op, replies []driver.KVReply) error
	// DeletePrefix deletes every key that starts with prefix, which is not
	// empty, and says how many it deleted.
	DeletePrefix(ctx context.Context, prefix []byte) (int64, error)
	// Keys returns up to limit keys under prefix, in order, from the first
	// one after after (from the first under prefix when after is nil).
	Keys(prefix, after []byte, limit int) ([]string, error)
}

// Answers is a pipeline's state that a Store fills replies from: the buffer
// reply values live in (the engine's own slices are valid only inside their
// transaction or until their closer is closed) and the pipeline's start,
// which latencies run from.
type Answers struct {
	e     *Engine
	start time.Time
	buf   []byte // reset by each Pipeline: KVReply.Value may alias it until the next
}

// Keep copies b into the reply buffer and returns the copy.
func (a *Answers) Keep(b []byte) []byte {
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// KeepInt writes v in decimal into the reply buffer: INCR's and DEL's
// answers, and INCR's new value.
func (a *Answers) KeepInt(v int64) []byte {
	n := len(a.buf)
	a.buf = strconv.AppendInt(a.buf, v, 10)
	return a.buf[n:len(a.buf):len(a.buf)]
}

var ok = []byte("OK")

// OK is SET's answer.
func (a *Answers) OK() []byte { return a.Keep(ok) }

// Latency is a reply's latency, now. The monotonic clock never goes back;
// the floor of 1 ns keeps "answered" distinguishable from "not measured" on
// a clock too coarse to see a cached read.
func (a *Answers) Latency() time.Duration {
	return max(time.Since(a.start), 1)
}

// Fail answers r with err, an error of the engine's for that command alone,
// as an error reply: "ERR <engine>: ..." unless err is already one.
func (a *Answers) Fail(r *driver.KVReply, err error) {
	r.Err, r.Class, r.Value = engineError(a.e.Name, err), a.e.classify(err), nil
}

// Session is one session of an embedded engine's client: a worker's share of
// the client's database. It runs each pipeline's commands in their order,
// the runs of consecutive writes and of consecutive reads each handed to its
// Store at once (the engines' package comments say what a run is to each).
type Session struct {
	e    *Engine
	st   Store
	done func() error // the client's account of a session's Close

	// mu keeps Close from releasing the database under a running Pipeline
	// (pebble panics on a closed database).
	mu     sync.Mutex
	closed atomic.Bool

	a   Answers
	ops []Op // the pipeline's decoded commands
}

var (
	_ driver.KV              = (*Session)(nil)
	_ driver.KVPrefixDeleter = (*Session)(nil)
	_ driver.KVPrefixScanner = (*Session)(nil)
	_ driver.Path            = (*Session)(nil)
)

func (s *Session) errClosed() error { return fmt.Errorf("%s: %w", s.e.Name, errSessionClosed) }

// Close implements driver.Conn.
func (s *Session) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	return s.done()
}

// ClientPath implements driver.Path: the engine and its version.
func (s *Session) ClientPath() string {
	if v := s.e.version(); v != "unknown" {
		return s.e.Name + " " + v
	}
	return s.e.Name
}

// Classify implements driver.Conn (see Engine.Classify).
func (s *Session) Classify(err error) result.ErrorClass { return s.e.classify(err) }

// Pipeline implements driver.KV. A command Redis would refuse (unknown,
// wrong arity) is answered at once; the others run in maximal runs of
// consecutive writes and of consecutive GETs, in the pipeline's order, so a
// GET after a SET of the same pipeline sees it. A run that fails answers each
// of its commands with the error. Pipeline returns an error only for a
// closed session, a cancelled context (nothing ran), replies too short for
// cmds, or a run that failed because the database is closed (a lost
// connection: the replies are not valid).
func (s *Session) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return s.errClosed()
	}
	if len(replies) < len(cmds) {
		return fmt.Errorf("%s: %d replies for %d commands", s.e.Name, len(replies), len(cmds))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a := &s.a
	a.start = time.Now()
	a.buf = a.buf[:0]
	s.ops = s.ops[:0]
	for i := range cmds {
		o, err := decode(&cmds[i])
		s.ops = append(s.ops, o)
		replies[i] = driver.KVReply{Bytes: bytesIn(&cmds[i])}
		if err != nil {
			replies[i].Err, replies[i].Class = err, result.ErrOther
		}
	}
	for i := 0; i < len(cmds); {
		o := s.ops[i]
		if o == opBad {
			replies[i].Latency = a.Latency()
			i++
			continue
		}
		j := i + 1
		for j < len(cmds) && s.ops[j] != opBad && s.ops[j].writes() == o.writes() {
			j++
		}
		var err error
		if o.writes() {
			err = s.st.WriteRun(a, cmds[i:j], s.ops[i:j], replies[i:j])
			if err == nil {
				t := a.Latency()
				for k := i; k < j; k++ {
					replies[k].Latency = t
				}
			}
		} else {
			err = s.st.ReadRun(a, cmds[i:j], replies[i:j])
		}
		if err != nil {
			class := s.Classify(err)
			if class == result.ErrConnection {
				return err
			}
			t := a.Latency()
			for k := i; k < j; k++ {
				replies[k] = driver.KVReply{Err: err, Class: class, Bytes: bytesIn(&cmds[k]), Latency: t}
			}
		} else {
			for k := i; k < j; k++ {
				replies[k].Bytes += int64(len(replies[k].Value))
			}
		}
		i = j
	}
	return nil
}

// DeletePrefix implements driver.KVPrefixDeleter through the Store. An empty
// prefix would delete every key and is refused.
func (s *Session) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return 0, s.errClosed()
	}
	if prefix == "" {
		return 0, errors.New(s.e.Name + ": DeletePrefix of an empty prefix would delete every key: refused")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.st.DeletePrefix(ctx, []byte(prefix))
}

// scanBatch is the keys ScanPrefix reads under the session's lock at a time.
const scanBatch = 1000

// ScanPrefix implements driver.KVPrefixScanner: the keys under prefix, a
// batch at a time, each read under the session's lock and handed to fn
// without it, so that fn may use the session (delete what it found).
func (s *Session) ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) bool) error {
	var after []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, err := s.keys([]byte(prefix), after)
		if err != nil || len(keys) == 0 || !fn(keys) || len(keys) < scanBatch {
			return err
		}
		after = []byte(keys[len(keys)-1])
	}
}

func (s *Session) keys(prefix, after []byte) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, s.errClosed()
	}
	return s.st.Keys(prefix, after, scanBatch)
}
