package bbolt

import (
	"bytes"
	"context"

	bolt "go.etcd.io/bbolt"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
)

// store is a session's side of bbolt: embedkv.Session runs the pipeline and
// hands it the runs, under the session's lock.
type store struct {
	db *bolt.DB

	keys [][]byte // DeletePrefix's keys of one transaction, copied into kbuf
	kbuf []byte
}

// ReadRun implements embedkv.Store: consecutive GETs in one read-only
// transaction, each answered at its own completion.
func (s *store) ReadRun(a *embedkv.Answers, cmds []driver.KVCommand, replies []driver.KVReply) error {
	return s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range cmds {
			r := &replies[i]
			if v := b.Get(cmds[i].Key); v != nil {
				r.Value = a.Keep(v) // bbolt's slices are valid only inside their transaction
			} else {
				r.Miss = true
			}
			r.Latency = a.Latency()
		}
		return nil
	})
}

// WriteRun implements embedkv.Store: consecutive writes in one read-write
// transaction.
func (s *store) WriteRun(a *embedkv.Answers, cmds []driver.KVCommand, ops []embedkv.Op, replies []driver.KVReply) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range cmds {
			if err := write(a, b, &cmds[i], ops[i], &replies[i]); err != nil {
				// bbolt checks a key before changing anything: the
				// transaction goes on without this command.
				a.Fail(&replies[i], err)
			}
		}
		return nil
	})
}

func write(a *embedkv.Answers, b *bolt.Bucket, c *driver.KVCommand, o embedkv.Op, r *driver.KVReply) error {
	switch o {
	case embedkv.OpSet:
		v := embedkv.Arg(c, 1)
		if v == nil {
			v = []byte{} // bbolt answers a nil value as absent: keep "" a value
		}
		if err := b.Put(c.Key, v); err != nil {
			return err
		}
		r.Value = a.OK()
	case embedkv.OpIncr:
		old := b.Get(c.Key)
		n, err := embedkv.Incr(old, old != nil)
		if err != nil {
			return err
		}
		v := a.KeepInt(n)
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
		r.Value = a.KeepInt(n)
	}
	return nil
}

// deleteChunk bounds one DeletePrefix transaction, so that deleting millions
// of keys neither holds the writer for long nor builds a huge commit.
const deleteChunk = 10_000

// DeletePrefix implements embedkv.Store: it seeks to the prefix and deletes
// the keys that start with it, in transactions of deleteChunk keys.
func (s *store) DeletePrefix(ctx context.Context, p []byte) (int64, error) {
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

// Keys implements embedkv.Store: a cursor from the prefix, or from the key
// after after.
func (s *store) Keys(prefix, after []byte, limit int) ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		k, _ := c.Seek(prefix)
		if after != nil {
			if k, _ = c.Seek(after); bytes.Equal(k, after) {
				k, _ = c.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Next() {
			out = append(out, string(k))
		}
		return nil
	})
	return out, err
}
