package kv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/workload"
)

// Prefill writes every key of the range once, with pipelined SETs from
// several connections. What fairbench wrote is recorded in a marker key under
// the prefix: "loading keys A-B …" while a prefill runs, "complete keys A-B
// …" when it is done, "written keys A-B …" after a run whose SETs (or
// commands) wrote over a range it had not prefilled. A later prefill of the
// same range and value size reuses a complete one; cleanup deletes the keys
// of the recorded range, one by one, never a pattern. Before writing a key
// the marker does not cover, fairbench looks for it across the whole range
// (ownership.Existing): a key there that it did not write (memtier's own
// prefill, an application) stops the load or run, unless --replace.

const (
	prefillPipeline = 64
	prefillConns    = 4
)

// markerKey is the marker's key: under the prefix, so that cleanup takes it
// too, and not a number, so that no key pattern draws it.
func (in *instance) markerKey() []byte { return []byte(in.prefix + "fairbench-marker") }

// marker is what a marker key says: the keys fairbench may have written.
type marker struct {
	found bool
	keys  ownership.KeyRange
	text  string // "loading keys A-B …", "complete …" or "written …"
}

// markerStates are the first words of the markers fairbench writes.
var markerStates = []string{"loading", "complete", "written"}

// readMarker reads the marker key; a value fairbench did not write is an
// error naming it.
func (in *instance) readMarker(ctx context.Context, kv driver.KV) (marker, error) {
	text, found, err := get(ctx, kv, in.markerKey())
	if err != nil || !found {
		if err != nil {
			err = fmt.Errorf("reading the marker key %s: %w", in.markerKey(), err)
		}
		return marker{}, err
	}
	m := marker{found: true, text: text, keys: ownership.KeyRange{Prefix: in.prefix}}
	state, rest, _ := strings.Cut(text, " ")
	if _, err := fmt.Sscanf(rest, "keys %d-%d", &m.keys.Lo, &m.keys.Hi); err != nil || !slices.Contains(markerStates, state) || m.keys.Hi < m.keys.Lo {
		return marker{}, fmt.Errorf("the marker key %s holds %q, which fairbench did not write: choose another --key-prefix", in.markerKey(), text)
	}
	return m, nil
}

// keyRange is the instance's own range of keys.
func (in *instance) keyRange() ownership.KeyRange {
	return ownership.KeyRange{Prefix: in.prefix, Lo: in.keys.min, Hi: in.keys.max}
}

// writes reports whether a run sends commands that may write keys: SETs,
// read-modify-writes or arbitrary commands.
func (in *instance) writes() bool { return in.ratio.set > 0 || in.rmw || len(in.commands) > 0 }

// refuseForeign returns an error naming a key of r that exists, is not in
// the range the marker m records, and so is not fairbench's; nil when there
// is none or replace allows overwriting it.
func (in *instance) refuseForeign(ctx context.Context, kv driver.KV, m marker, r ownership.KeyRange, replace bool) error {
	if replace {
		return nil
	}
	var foreign string
	err := ownership.Existing(ctx, kv, r, func(keys []string) bool {
		for _, k := range keys {
			if !m.found || !m.keys.Holds(k) {
				foreign = k
				return false
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("looking for keys fairbench did not write in %s: %w", r, err)
	}
	if foreign == "" {
		return nil
	}
	recorded := "there is no marker key " + string(in.markerKey())
	if m.found {
		recorded = "its marker records keys " + m.keys.String()
	}
	return fmt.Errorf("key %s exists and fairbench did not write it (%s): choose another --key-prefix or key range, or pass --replace to overwrite the keys of %s", foreign, recorded, r)
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
// there; a run that writes without prefill records the range it may write.
// Either way, keys of the range fairbench did not write stop it first.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	in.paced = env.Paced
	prefill := env.Load || in.opt.Prefill
	if !prefill && !in.writes() {
		return nil
	}
	kv, err := kvConn(env.Conn)
	if err != nil {
		return err
	}
	m, err := in.readMarker(ctx, kv)
	if err != nil {
		return err
	}
	want := in.keyRange()
	if !prefill {
		if m.found && m.keys.Lo <= want.Lo && want.Hi <= m.keys.Hi {
			return nil // keys fairbench wrote
		}
		if m.found { // the union: one range the marker can record
			want.Lo, want.Hi = min(want.Lo, m.keys.Lo), max(want.Hi, m.keys.Hi)
		}
		if err := in.refuseForeign(ctx, kv, m, want, env.Replace); err != nil {
			return err
		}
		return in.setMarker(ctx, kv, "written", want)
	}
	if m.found && m.text == in.markerText("complete", want) {
		env.Logf("kv: %s already prefilled (%s): reused", in.prefix, strings.TrimPrefix(m.text, "complete "))
		return nil
	}
	if err := in.refuseForeign(ctx, kv, m, want, env.Replace); err != nil {
		return err
	}
	if m.found && m.keys != want {
		// fairbench's own keys of another range: deleted, so that the
		// marker, which records one range, covers every key it wrote.
		n, err := ownership.Delete(ctx, kv, m.keys)
		if err != nil {
			return fmt.Errorf("deleting fairbench's keys %s of an earlier prefill: %w", m.keys, err)
		}
		env.Logf("kv: deleted %d keys %s of fairbench's earlier prefill", n, m.keys)
	}
	if err := in.setMarker(ctx, kv, "loading", want); err != nil {
		return err
	}
	n := in.keys.max - in.keys.min + 1
	env.Logf("kv: prefilling %d keys %s%d…%s%d with %s-byte values", n, in.prefix, in.keys.min, in.prefix, in.keys.max, sizeText(in.sizeMin, in.sizeMax))
	if err := in.fill(ctx, env); err != nil {
		return err
	}
	return in.setMarker(ctx, kv, "complete", want)
}

// markerText is the marker of state over keys r, with the values' size.
func (in *instance) markerText(state string, r ownership.KeyRange) string {
	return fmt.Sprintf("%s keys %d-%d data_size %d-%d", state, r.Lo, r.Hi, in.sizeMin, in.sizeMax)
}

func (in *instance) setMarker(ctx context.Context, kv driver.KV, state string, r ownership.KeyRange) error {
	if err := set(ctx, kv, in.markerKey(), in.markerText(state, r)); err != nil {
		return fmt.Errorf("writing the marker key %s: %w", in.markerKey(), err)
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
	task := env.Progress.Start("kv: prefilling "+in.prefix, int64(in.keys.max-in.keys.min+1), "keys")
	defer task.End()
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
					cmds = append(cmds, driver.KVCommand{Name: "SET", Key: fmt.Appendf(nil, "%s%d", in.prefix, k), Value: in.value[:in.sizeMax]})
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
				task.Add(int64(len(cmds)))
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

// cleanup is the Cleanup hook: deletes the keys of the range the
// marker records, then the marker; keys under the prefix outside that range
// are someone else's and stay.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	kv, err := kvConn(conn)
	if err != nil {
		return err
	}
	m, err := in.readMarker(ctx, kv)
	if err != nil {
		return err
	}
	if !m.found {
		return fmt.Errorf("no fairbench marker key %s: the keys under %q are not fairbench's, and are left alone", in.markerKey(), in.prefix)
	}
	if _, err := ownership.Delete(ctx, kv, m.keys); err != nil {
		return fmt.Errorf("deleting fairbench's keys %s: %w", m.keys, err)
	}
	r := make([]driver.KVReply, 1)
	if err := kv.Pipeline(ctx, []driver.KVCommand{{Name: "DEL", Key: in.markerKey()}}, r); err != nil {
		return err
	}
	return r[0].Err
}
