package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Prefill writes every key of the range once, with pipelined SETs from
// several connections, and records what it wrote in a marker key under the
// prefix: "loading …" while it runs, "complete …" when done. A later prefill
// of the same range and value size reuses it; cleanup deletes only a prefix
// whose marker fairbench wrote. Keys under the prefix without a marker are
// someone else's (memtier's own prefill, an application): fairbench neither
// overwrites nor deletes them unless told to (--replace).

const (
	prefillPipeline = 64
	prefillConns    = 4
)

// markerKey is the marker's key: under the prefix, so that cleanup takes it
// too, and not a number, so that no key pattern draws it.
func (in *instance) markerKey() []byte { return []byte(in.prefix + "fairbench-marker") }

// shape is what the marker records: the range and the values' size.
func (in *instance) shape() string {
	return fmt.Sprintf("keys %d-%d data_size %d-%d", in.keys.min, in.keys.max, in.sizeMin, in.sizeMax)
}

// get runs one GET.
func get(ctx context.Context, kv driver.KV, key []byte) (value string, found bool, err error) {
	r := make([]driver.KVReply, 1)
	if err := kv.Pipeline(ctx, []driver.KVCommand{{Name: "GET", Key: key}}, r); err != nil {
		return "", false, err
	}
	if r[0].Err != nil {
		return "", false, r[0].Err
	}
	return string(r[0].Value), !r[0].Miss, nil
}

func set(ctx context.Context, kv driver.KV, key []byte, value string) error {
	r := make([]driver.KVReply, 1)
	if err := kv.Pipeline(ctx, []driver.KVCommand{{Name: "SET", Key: key, Value: []byte(value)}}, r); err != nil {
		return err
	}
	return r[0].Err
}

// Prepare implements workload.Instance: with prefill (or for fairbench load),
// the key range is written unless a complete prefill of the same shape is
// there.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	if !env.Load && !in.p.Bool("prefill") {
		return nil
	}
	kv, err := kvConn(env.Conn)
	if err != nil {
		return err
	}
	marker, found, err := get(ctx, kv, in.markerKey())
	if err != nil {
		return fmt.Errorf("reading the marker key %s: %w", in.markerKey(), err)
	}
	want := "complete " + in.shape()
	switch {
	case found && marker == want:
		env.Logf("kv: %s already prefilled (%s): reused", in.prefix, in.shape())
		return nil
	case found && !strings.HasPrefix(marker, "complete ") && !strings.HasPrefix(marker, "loading "):
		return fmt.Errorf("the marker key %s holds %q, which fairbench did not write: choose another key_prefix", in.markerKey(), marker)
	case !found && !env.Replace:
		// No marker: are there keys of someone else's under the prefix?
		for _, k := range []uint64{in.keys.min, in.keys.max} {
			if _, there, err := get(ctx, kv, []byte(fmt.Sprintf("%s%d", in.prefix, k))); err != nil {
				return err
			} else if there {
				return fmt.Errorf("keys under the prefix %q exist and fairbench did not write them (no marker key %s): choose another key_prefix, or pass --replace to overwrite them", in.prefix, in.markerKey())
			}
		}
	}
	if err := set(ctx, kv, in.markerKey(), "loading "+in.shape()); err != nil {
		return fmt.Errorf("writing the marker key: %w", err)
	}
	n := in.keys.max - in.keys.min + 1
	env.Logf("kv: prefilling %d keys %s%d…%s%d with %s-byte values", n, in.prefix, in.keys.min, in.prefix, in.keys.max, sizeText(in.sizeMin, in.sizeMax))
	if err := in.fill(ctx, env); err != nil {
		return err
	}
	if err := set(ctx, kv, in.markerKey(), want); err != nil {
		return fmt.Errorf("writing the marker key: %w", err)
	}
	return nil
}

func sizeText(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// fill SETs the range from a few connections, each taking the next block of
// keys.
func (in *instance) fill(ctx context.Context, env workload.PrepareEnv) error {
	var next atomic.Uint64
	next.Store(in.keys.min)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	for c := 0; c < prefillConns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn := env.Conn
			if c > 0 && env.Open != nil {
				var err error
				if conn, err = env.Open(ctx); err != nil {
					fail(err)
					return
				}
				defer conn.Close(context.WithoutCancel(ctx))
			} else if c > 0 {
				return
			}
			kv, _ := conn.(driver.KV)
			cmds := make([]driver.KVCommand, 0, prefillPipeline)
			replies := make([]driver.KVReply, prefillPipeline)
			for ctx.Err() == nil {
				lo := next.Add(prefillPipeline) - prefillPipeline
				if lo > in.keys.max || lo < in.keys.min { // done, or wrapped
					return
				}
				hi := min(lo+prefillPipeline-1, in.keys.max)
				cmds = cmds[:0]
				for k := lo; k <= hi; k++ {
					// memtier's own prefill writes data_size (or, with a
					// range, sizes by key position): the maximum is written here.
					cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", in.prefix, k), Value: in.value})
				}
				if err := kv.Pipeline(ctx, cmds, replies[:len(cmds)]); err != nil {
					fail(err)
					return
				}
				for _, r := range replies[:len(cmds)] {
					if r.Err != nil {
						fail(fmt.Errorf("prefill SET refused: %w", r.Err))
						return
					}
				}
				if hi == in.keys.max {
					return
				}
			}
		}(c)
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}

// Cleanup implements workload.Cleaner: deletes the keys under the prefix,
// only when the marker says fairbench wrote them.
func (in *instance) Cleanup(ctx context.Context, conn driver.Conn) error {
	kv, err := kvConn(conn)
	if err != nil {
		return err
	}
	del, ok := conn.(driver.KVPrefixDeleter)
	if !ok {
		return errors.New("this target cannot delete keys by prefix")
	}
	marker, found, err := get(ctx, kv, in.markerKey())
	if err != nil {
		return err
	}
	if !found || !(strings.HasPrefix(marker, "complete ") || strings.HasPrefix(marker, "loading ")) {
		return fmt.Errorf("no fairbench marker key %s: the keys under %q are not fairbench's, and are left alone", in.markerKey(), in.prefix)
	}
	_, err = del.DeletePrefix(ctx, in.prefix)
	return err
}
