package ownership_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	_ "github.com/fairbench/fairbench/internal/driver/pebble"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/testenv"
)

func TestKeyRangeHolds(t *testing.T) {
	memtier := ownership.KeyRange{Prefix: "user:", Lo: 1, Hi: 100}
	padded := ownership.KeyRange{Prefix: "key:", Width: 12, Lo: 0, Hi: 999}
	for _, tc := range []struct {
		r    ownership.KeyRange
		key  string
		want bool
	}{
		{memtier, "user:1", true}, {memtier, "user:50", true}, {memtier, "user:100", true},
		{memtier, "user:0", false}, {memtier, "user:101", false}, {memtier, "user:050", false},
		{memtier, "user:keep", false}, {memtier, "user:", false}, {memtier, "user:+5", false}, {memtier, "users:5", false},
		{padded, "key:000000000500", true}, {padded, "key:500", false}, {padded, "key:000000001000", false},
	} {
		if got := tc.r.Holds(tc.key); got != tc.want {
			t.Errorf("%s holds %q: %v, want %v", tc.r, tc.key, got, tc.want)
		}
	}
}

// Existing finds a key in the middle of the range, and only keys of the
// range, whether it walks the keys under the prefix (the embedded engines;
// Redis when the database has no more keys than the range) or asks for the
// range's keys (Redis with more keys than the range); Delete deletes those
// and nothing else.
func TestExistingAndDelete(t *testing.T) {
	dir := t.TempDir()
	targets := map[string]func(t *testing.T) string{
		"bbolt":  func(*testing.T) string { return "bbolt:" + filepath.Join(dir, "b.db") },
		"pebble": func(*testing.T) string { return "pebble:" + filepath.Join(dir, "p") },
		"valkey": func(t *testing.T) string { return testenv.RedisSpareDB(t, testenv.ValkeyURL(t)) },
	}
	for name, target := range targets {
		for _, hi := range []uint64{1000, 60} { // a range larger, then smaller, than the database
			t.Run(fmt.Sprintf("%s/1-%d", name, hi), func(t *testing.T) {
				url := target(t)
				ctx := context.Background()
				kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
				set := func(keys ...string) {
					var cmds []driver.KVCommand
					for _, k := range keys {
						cmds = append(cmds, driver.KVCommand{Name: "SET", Key: []byte(k), Value: []byte("v")})
					}
					if err := kv.Pipeline(ctx, cmds, make([]driver.KVReply, len(cmds))); err != nil {
						t.Fatal(err)
					}
				}
				outside := []string{"u:0", "u:keep", "u:0050", "v:50", "u:1001"}
				for i := range 100 {
					outside = append(outside, fmt.Sprintf("other:%d", i))
				}
				set(outside...)
				set("u:50", "u:51")
				r := ownership.KeyRange{Prefix: "u:", Lo: 1, Hi: hi}
				var found []string
				if err := ownership.Existing(ctx, kv, r, func(keys []string) bool { found = append(found, keys...); return true }); err != nil {
					t.Fatal(err)
				}
				slices.Sort(found)
				if !slices.Equal(found, []string{"u:50", "u:51"}) {
					t.Errorf("Existing found %v, want u:50 u:51", found)
				}
				if k, err := ownership.FirstExisting(ctx, kv, r); err != nil || (k != "u:50" && k != "u:51") {
					t.Errorf("FirstExisting = %q, %v", k, err)
				}
				if n, err := ownership.Delete(ctx, kv, r); err != nil || n != 2 {
					t.Errorf("Delete = %d, %v; want 2", n, err)
				}
				replies := make([]driver.KVReply, len(outside)+2)
				var gets []driver.KVCommand
				for _, k := range append(slices.Clone(outside), "u:50", "u:51") {
					gets = append(gets, driver.KVCommand{Name: "GET", Key: []byte(k)})
				}
				if err := kv.Pipeline(ctx, gets, replies); err != nil {
					t.Fatal(err)
				}
				for i, rep := range replies {
					if gone := rep.Miss; gone != (i >= len(outside)) {
						t.Errorf("%s: deleted %v", gets[i].Key, gone)
					}
				}
				del := driver.KVCommand{Name: "DEL", Key: []byte(outside[0])}
				for _, k := range outside[1:] {
					del.Args = append(del.Args, []byte(k))
				}
				if err := kv.Pipeline(ctx, []driver.KVCommand{del}, make([]driver.KVReply, 1)); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
