package ownership

import (
	"context"
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

// Key is the range's key of number n.
func (r KeyRange) Key(n uint64) string {
	return r.Prefix + fmt.Sprintf("%0*d", r.Width, n)
}

// Len is how many keys the range has.
func (r KeyRange) Len() uint64 { return r.Hi - r.Lo + 1 }

// Holds reports whether key is one of the range's keys.
func (r KeyRange) Holds(key string) bool {
	digits, ok := strings.CutPrefix(key, r.Prefix)
	if !ok || digits == "" {
		return false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return err == nil && n >= r.Lo && n <= r.Hi && r.Key(n) == key
}

func (r KeyRange) String() string {
	return r.Key(r.Lo) + "…" + r.Key(r.Hi)
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
	scanner, err := scannerFor(ctx, kv, r)
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
	return eachBatch(ctx, kv, r, "GET", func(cmds []driver.KVCommand, replies []driver.KVReply) bool {
		var found []string
		for i, rep := range replies {
			if !rep.Miss {
				found = append(found, string(cmds[i].Key))
			}
		}
		return len(found) == 0 || fn(found)
	})
}

// scannerFor returns the scanner to walk the keys under r's prefix with, or
// nil when asking for r's keys looks at fewer keys (or kv cannot walk).
func scannerFor(ctx context.Context, kv driver.KV, r KeyRange) (driver.KVPrefixScanner, error) {
	scanner, ok := kv.(driver.KVPrefixScanner)
	if !ok || r.Prefix == "" {
		return nil, nil
	}
	if counter, ok := kv.(driver.KVKeyCounter); ok {
		n, err := counter.KeyCount(ctx)
		if err != nil {
			return nil, fmt.Errorf("counting the keys of the database: %w", err)
		}
		if uint64(n) > r.Len() {
			return nil, nil
		}
	}
	return scanner, nil
}

// eachBatch sends command (GET, DEL) for every key of r, a pipeline of
// probeBatch keys at a time, and calls fn with each pipeline's commands and
// replies until it returns false. A reply the server refused is an error,
// but for GET's: a key of another type exists all the same.
func eachBatch(ctx context.Context, kv driver.KV, r KeyRange, command string, fn func([]driver.KVCommand, []driver.KVReply) bool) error {
	cmds := make([]driver.KVCommand, 0, probeBatch)
	replies := make([]driver.KVReply, probeBatch)
	for lo := r.Lo; ; lo += probeBatch {
		hi := min(lo+probeBatch-1, r.Hi)
		if hi < lo { // wrapped past the largest number
			hi = r.Hi
		}
		cmds = cmds[:0]
		for n := lo; ; n++ {
			cmds = append(cmds, driver.KVCommand{Name: command, Key: []byte(r.Key(n))})
			if n == hi {
				break
			}
		}
		if err := kv.Pipeline(ctx, cmds, replies[:len(cmds)]); err != nil {
			return err
		}
		for i, rep := range replies[:len(cmds)] {
			if rep.Err != nil && command != "GET" {
				return fmt.Errorf("%s %s refused: %w", command, cmds[i].Key, rep.Err)
			}
		}
		if !fn(cmds, replies[:len(cmds)]) || hi == r.Hi {
			return nil
		}
	}
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
	count := func(_ []driver.KVCommand, replies []driver.KVReply) bool {
		for _, rep := range replies {
			if string(rep.Value) == "1" {
				deleted++
			}
		}
		return true
	}
	scanner, err := scannerFor(ctx, kv, r)
	if err != nil || scanner == nil {
		if err == nil {
			err = eachBatch(ctx, kv, r, "DEL", count)
		}
		return deleted, err
	}
	var failed error
	replies := make([]driver.KVReply, probeBatch)
	err = Existing(ctx, kv, r, func(keys []string) bool {
		for len(keys) > 0 {
			cmds := make([]driver.KVCommand, min(len(keys), probeBatch))
			for i := range cmds {
				cmds[i] = driver.KVCommand{Name: "DEL", Key: []byte(keys[i])}
			}
			if failed = kv.Pipeline(ctx, cmds, replies[:len(cmds)]); failed != nil {
				return false
			}
			for i, rep := range replies[:len(cmds)] {
				if rep.Err != nil {
					failed = fmt.Errorf("DEL %s refused: %w", cmds[i].Key, rep.Err)
					return false
				}
			}
			count(cmds, replies[:len(cmds)])
			keys = keys[len(cmds):]
		}
		return true
	})
	if failed != nil {
		return deleted, failed
	}
	return deleted, err
}

// KeySet is every key a writer (a tool cell) may write: ranges of numbered
// keys and single keys by name.
type KeySet struct {
	Ranges []KeyRange
	Names  []string
}

// Empty reports whether the set has no key.
func (s KeySet) Empty() bool { return len(s.Ranges) == 0 && len(s.Names) == 0 }

func (s KeySet) String() string {
	var parts []string
	for _, r := range s.Ranges {
		parts = append(parts, r.String())
	}
	return strings.Join(append(parts, s.Names...), ", ")
}

// FirstExisting returns one key of the set that exists on kv, "" when none
// does.
func (s KeySet) FirstExisting(ctx context.Context, kv driver.KV) (string, error) {
	for _, r := range s.Ranges {
		if k, err := FirstExisting(ctx, kv, r); k != "" || err != nil {
			return k, err
		}
	}
	if len(s.Names) == 0 {
		return "", nil
	}
	cmds := make([]driver.KVCommand, len(s.Names))
	for i, n := range s.Names {
		cmds[i] = driver.KVCommand{Name: "GET", Key: []byte(n)}
	}
	replies := make([]driver.KVReply, len(cmds))
	if err := kv.Pipeline(ctx, cmds, replies); err != nil {
		return "", err
	}
	for i, rep := range replies {
		if !rep.Miss {
			return s.Names[i], nil
		}
	}
	return "", nil
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
	if len(s.Names) == 0 {
		return total, nil
	}
	cmds := make([]driver.KVCommand, len(s.Names))
	for i, n := range s.Names {
		cmds[i] = driver.KVCommand{Name: "DEL", Key: []byte(n)}
	}
	replies := make([]driver.KVReply, len(cmds))
	if err := kv.Pipeline(ctx, cmds, replies); err != nil {
		return total, err
	}
	for _, rep := range replies {
		if rep.Err != nil {
			return total, fmt.Errorf("DEL refused: %w", rep.Err)
		}
		if string(rep.Value) == "1" {
			total++
		}
	}
	return total, nil
}
