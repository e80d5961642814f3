package ownership

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Key-value stores have no tables to mark: what fairbench (or a tool cell it
// runs) writes there is a range of numbered keys, and before writing it
// looks for keys of that range someone else wrote, across the whole range
// (not its ends), and afterwards deletes exactly the range's keys, never a
// pattern.

// KeyRange is the keys Prefix + n for n in [Lo, Hi], n in decimal, zero
// padded to Width digits (0: no padding, memtier's "memtier-42";
// redis-benchmark's -r keys are "key:" with 12 digits).
type KeyRange struct {
	Prefix string
	Width  int
	Lo, Hi uint64
}

// key is the range's key of number n.
func (r KeyRange) key(n uint64) string {
	return r.Prefix + fmt.Sprintf("%0*d", r.Width, n)
}

// len is how many keys the range has.
func (r KeyRange) len() uint64 { return r.Hi - r.Lo + 1 }

// Holds reports whether key is one of the range's keys.
func (r KeyRange) Holds(key string) bool {
	digits, ok := strings.CutPrefix(key, r.Prefix)
	if !ok || digits == "" {
		return false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return err == nil && n >= r.Lo && n <= r.Hi && r.key(n) == key
}

func (r KeyRange) String() string {
	return r.key(r.Lo) + "…" + r.key(r.Hi)
}

// probeBatch is the keys one pipeline asks about or deletes.
const probeBatch = 256

// Existing calls fn with batches of the range's keys that exist on kv, until
// fn returns false or the range is done. It looks at whichever is fewer
// keys: the keys under the prefix (driver.KVPrefixScanner: an ordered
// engine walks only those; Redis's SCAN walks the whole database, as many
// keys as driver.KVKeyCounter says), or the range's own keys, a pipeline of
// GETs at a time (a GET of a key of another type is refused, and that key
// exists too). fn may use kv.
func Existing(ctx context.Context, kv driver.KV, r KeyRange, fn func(keys []string) bool) error {
	scanner, err := scannerFor(ctx, kv, r.Prefix, r.len())
	if err != nil {
		return err
	}
	if scanner != nil {
		return scanner.ScanPrefix(ctx, r.Prefix, func(keys []string) bool {
			ours := keys[:0]
			for _, k := range keys {
				if r.Holds(k) {
					ours = append(ours, k)
				}
			}
			return len(ours) == 0 || fn(ours)
		})
	}
	return eachBatch(ctx, kv, r.len(), r.nth, "GET", func(cmds []driver.KVCommand, replies []driver.KVReply) bool {
		var found []string
		for i, rep := range replies {
			if !rep.Miss {
				found = append(found, string(cmds[i].Key))
			}
		}
		return len(found) == 0 || fn(found)
	})
}

// nth is the range's i-th key.
func (r KeyRange) nth(i uint64) string { return r.key(r.Lo + i) }

// scannerFor returns the scanner to walk the keys under prefix with, or nil
// when asking for n keys one by one looks at fewer keys (or kv cannot walk).
func scannerFor(ctx context.Context, kv driver.KV, prefix string, n uint64) (driver.KVPrefixScanner, error) {
	scanner, ok := kv.(driver.KVPrefixScanner)
	if !ok || prefix == "" {
		return nil, nil
	}
	if counter, ok := kv.(driver.KVKeyCounter); ok {
		keys, err := counter.KeyCount(ctx)
		if err != nil {
			return nil, fmt.Errorf("counting the keys of the database: %w", err)
		}
		if uint64(keys) > n {
			return nil, nil
		}
	}
	return scanner, nil
}

// eachBatch sends command (GET, DEL) for each key name(0) … name(n-1), a
// pipeline of probeBatch keys at a time, and calls fn with each pipeline's
// commands and replies until it returns false. A reply the server refused
// is an error, but for GET's: a key of another type exists all the same.
func eachBatch(ctx context.Context, kv driver.KV, n uint64, name func(i uint64) string, command string, fn func([]driver.KVCommand, []driver.KVReply) bool) error {
	cmds := make([]driver.KVCommand, 0, probeBatch)
	replies := make([]driver.KVReply, probeBatch)
	for lo := uint64(0); lo < n; lo += probeBatch {
		cmds = cmds[:0]
		for i := lo; i < n && i-lo < probeBatch; i++ {
			cmds = append(cmds, driver.KVCommand{Name: command, Key: []byte(name(i))})
		}
		if err := kv.Pipeline(ctx, cmds, replies[:len(cmds)]); err != nil {
			return err
		}
		for i, rep := range replies[:len(cmds)] {
			if rep.Err != nil && command != "GET" {
				return fmt.Errorf("%s %s refused: %w", command, cmds[i].Key, rep.Err)
			}
		}
		if !fn(cmds, replies[:len(cmds)]) {
			return nil
		}
	}
	return nil
}

// firstExisting returns the first key of names that exists on kv, asking
// for each, a pipeline at a time; "" when none does.
func firstExisting(ctx context.Context, kv driver.KV, names []string) (string, error) {
	var first string
	err := eachBatch(ctx, kv, uint64(len(names)), func(i uint64) string { return names[i] }, "GET", func(cmds []driver.KVCommand, replies []driver.KVReply) bool {
		for i, rep := range replies {
			if !rep.Miss {
				first = string(cmds[i].Key)
				return false
			}
		}
		return true
	})
	return first, err
}

// FirstExisting returns one of the range's keys that exists on kv, "" when
// none does.
func FirstExisting(ctx context.Context, kv driver.KV, r KeyRange) (string, error) {
	var first string
	err := Existing(ctx, kv, r, func(keys []string) bool {
		first = keys[0]
		return false
	})
	return first, err
}

// Delete deletes the range's keys that exist on kv and says how many it
// deleted: those a walk of the keys under the prefix finds, or, when the
// database holds more keys than the range, a DEL of each of the range's
// keys. Keys under the prefix outside the range stay.
func Delete(ctx context.Context, kv driver.KV, r KeyRange) (int64, error) {
	var deleted int64
	count := countDeleted(&deleted)
	scanner, err := scannerFor(ctx, kv, r.Prefix, r.len())
	if err != nil || scanner == nil {
		if err == nil {
			err = eachBatch(ctx, kv, r.len(), r.nth, "DEL", count)
		}
		return deleted, err
	}
	var failed error
	err = Existing(ctx, kv, r, func(keys []string) bool {
		failed = eachBatch(ctx, kv, uint64(len(keys)), func(i uint64) string { return keys[i] }, "DEL", count)
		return failed == nil
	})
	if failed != nil {
		return deleted, failed
	}
	return deleted, err
}

// KeySet is every key a writer (a tool cell) may write: ranges of numbered
// keys, single keys by name, and every key under a prefix, for a writer
// whose names cannot be listed (go-ycsb's hashed record names under its
// table's prefix): the prefix is then its own, and a key there before it
// writes is someone else's.
type KeySet struct {
	Ranges   []KeyRange
	Names    []string
	Prefixes []string
}

// Empty reports whether the set has no key.
func (s KeySet) Empty() bool { return len(s.Ranges) == 0 && len(s.Names) == 0 && len(s.Prefixes) == 0 }

func (s KeySet) String() string {
	var parts []string
	for _, r := range s.Ranges {
		parts = append(parts, r.String())
	}
	for _, p := range s.Prefixes {
		parts = append(parts, p+"*")
	}
	return strings.Join(append(parts, s.Names...), ", ")
}

// underPrefixes calls fn with batches of the keys under the set's prefixes.
func (s KeySet) underPrefixes(ctx context.Context, kv driver.KV, fn func(keys []string) bool) error {
	if len(s.Prefixes) == 0 {
		return nil
	}
	scanner, ok := kv.(driver.KVPrefixScanner)
	if !ok {
		return fmt.Errorf("this target cannot list the keys under %s", strings.Join(s.Prefixes, ", "))
	}
	for _, p := range s.Prefixes {
		more := true
		if err := scanner.ScanPrefix(ctx, p, func(keys []string) bool { more = fn(keys); return more }); err != nil || !more {
			return err
		}
	}
	return nil
}

// FirstExisting returns one key of the set that exists on kv, "" when none
// does.
func (s KeySet) FirstExisting(ctx context.Context, kv driver.KV) (string, error) {
	for _, r := range s.Ranges {
		if k, err := FirstExisting(ctx, kv, r); k != "" || err != nil {
			return k, err
		}
	}
	var first string
	err := s.underPrefixes(ctx, kv, func(keys []string) bool { first = keys[0]; return false })
	if first != "" || err != nil {
		return first, err
	}
	return firstExisting(ctx, kv, s.Names)
}

// Delete deletes the set's keys that exist on kv and says how many it
// deleted.
func (s KeySet) Delete(ctx context.Context, kv driver.KV) (int64, error) {
	var total int64
	for _, r := range s.Ranges {
		n, err := Delete(ctx, kv, r)
		total += n
		if err != nil {
			return total, err
		}
	}
	var failed error
	err := s.underPrefixes(ctx, kv, func(keys []string) bool {
		failed = eachBatch(ctx, kv, uint64(len(keys)), func(i uint64) string { return keys[i] }, "DEL", countDeleted(&total))
		return failed == nil
	})
	if err = errors.Join(failed, err); err != nil {
		return total, err
	}
	err = eachBatch(ctx, kv, uint64(len(s.Names)), func(i uint64) string { return s.Names[i] }, "DEL", countDeleted(&total))
	return total, err
}

// countDeleted adds DEL's replies of 1 (a key deleted) to total.
func countDeleted(total *int64) func([]driver.KVCommand, []driver.KVReply) bool {
	return func(_ []driver.KVCommand, replies []driver.KVReply) bool {
		for _, rep := range replies {
			if string(rep.Value) == "1" {
				*total++
			}
		}
		return true
	}
}
