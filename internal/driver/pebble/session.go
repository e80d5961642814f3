package pebble

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
)

// store is a session's side of pebble: embedkv.Session runs the pipeline and
// hands it the runs, under the session's lock.
type store struct {
	d *database

	stripes []uint16 // the locks one write run holds
}

// ReadRun implements embedkv.Store: each GET reads the latest committed
// state on its own.
func (s *store) ReadRun(a *embedkv.Answers, cmds []driver.KVCommand, replies []driver.KVReply) error {
	for i := range cmds {
		r := &replies[i]
		v, closer, err := s.d.db.Get(cmds[i].Key)
		switch {
		case errors.Is(err, pebble.ErrNotFound):
			r.Miss = true
		case err != nil:
			a.Fail(r, err)
		default:
			r.Value = a.Keep(v) // pebble's slices are valid only until their closer is closed
			closer.Close()
		}
		r.Latency = a.Latency()
	}
	return nil
}

// WriteRun implements embedkv.Store: consecutive writes commit as one batch
// under the stripe locks of their keys.
func (s *store) WriteRun(a *embedkv.Answers, cmds []driver.KVCommand, ops []embedkv.Op, replies []driver.KVReply) error {
	d := s.d
	s.stripes = s.stripes[:0]
	indexed := false // INCR and DEL read through the batch
	for i := range cmds {
		c := &cmds[i]
		switch ops[i] {
		case embedkv.OpSet:
			s.stripes = append(s.stripes, d.stripe(c.Key))
		case embedkv.OpIncr:
			indexed = true
			s.stripes = append(s.stripes, d.stripe(c.Key))
		case embedkv.OpDel:
			indexed = true
			for k := range embedkv.NArgs(c) {
				s.stripes = append(s.stripes, d.stripe(embedkv.Arg(c, k)))
			}
		}
	}
	slices.Sort(s.stripes) // one global order: no two runs wait on each other
	s.stripes = slices.Compact(s.stripes)
	var b *pebble.Batch
	if indexed {
		b = d.db.NewIndexedBatch()
	} else {
		b = d.db.NewBatch()
	}
	for _, st := range s.stripes {
		d.locks[st].Lock()
	}
	unlock := func() {
		for _, st := range s.stripes {
			d.locks[st].Unlock()
		}
	}
	for i := range cmds {
		if err := write(a, b, &cmds[i], ops[i], &replies[i]); err != nil {
			a.Fail(&replies[i], err)
		}
	}
	var err error
	switch {
	case b.Empty(): // every command failed: nothing to commit
		unlock()
	case d.wo.Sync:
		err = d.db.ApplyNoSyncWait(b, d.wo)
		unlock() // visible now: the next INCR of these keys may read them
		if err == nil {
			err = b.SyncWait()
		}
	default:
		err = d.db.Apply(b, d.wo)
		unlock()
	}
	b.Close()
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

func write(a *embedkv.Answers, b *pebble.Batch, c *driver.KVCommand, o embedkv.Op, r *driver.KVReply) error {
	switch o {
	case embedkv.OpSet:
		if err := b.Set(c.Key, embedkv.Arg(c, 1), nil); err != nil {
			return err
		}
		r.Value = a.OK()
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
		v := a.KeepInt(n)
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
		r.Value = a.KeepInt(n)
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

// DeletePrefix implements embedkv.Store: it counts the keys under the
// prefix, then deletes [prefix, successor) with one range tombstone (for a
// prefix of 0xff bytes, which has no successor, key by key). It takes no
// stripe lock: a write racing with it may survive or be deleted uncounted,
// which a workload cleaning up after itself does not meet.
func (s *store) DeletePrefix(ctx context.Context, lo []byte) (int64, error) {
	db := s.d.db
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
		err = db.DeleteRange(lo, hi, s.d.wo)
	} else {
		err = db.Apply(b, s.d.wo)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Keys implements embedkv.Store: an iterator bounded by the prefix and its
// successor, from the prefix or past after.
func (s *store) Keys(prefix, after []byte, limit int) ([]string, error) {
	it, err := s.d.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: successor(prefix)})
	if err != nil {
		return nil, err
	}
	var out []string
	valid := it.First()
	if after != nil {
		if valid = it.SeekGE(after); valid && bytes.Equal(it.Key(), after) {
			valid = it.Next()
		}
	}
	for ; valid && len(out) < limit; valid = it.Next() {
		out = append(out, string(it.Key()))
	}
	return out, it.Close()
}
