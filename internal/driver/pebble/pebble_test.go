package pebble

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/fairbench/fairbench/internal/driver"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want config
	}{
		{"pebble:bench.pebble", config{Dir: "bench.pebble", Sync: true}},
		{"PEBBLE:bench.pebble", config{Dir: "bench.pebble", Sync: true}},
		{"pebble://rel/dir", config{Dir: "rel/dir", Sync: true}},
		{"pebble:///abs/dir", config{Dir: "/abs/dir", Sync: true}},
		{"pebble:d?sync=false", config{Dir: "d"}},
		// Names ignore case, '_' and '-'.
		{"pebble:d?MemTableSize=64MiB&cache-size=1GiB&bytes_per_sync=1048576&L0_Compaction_Threshold=8&maxconcurrentcompactions=2",
			config{Dir: "d", Sync: true, MemTableSize: 64 << 20, CacheSize: 1 << 30, BytesPerSync: 1 << 20,
				L0CompactionThreshold: 8, MaxConcurrentCompactions: 2}},
		// Without a WAL there is nothing to sync.
		{"pebble:d?disable_wal=true", config{Dir: "d", DisableWAL: true}},
		{"pebble:d?disable_wal=true&sync=false", config{Dir: "d", DisableWAL: true}},
	} {
		got, err := parseURL(tc.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.url, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseURL(%q) = %+v, want %+v", tc.url, got, tc.want)
		}
	}
}

func TestParseURLRejects(t *testing.T) {
	for _, tc := range []struct {
		url       string
		fragments []string
	}{
		{"pebble:d?memtable=64MiB", []string{`"memtable"`, "mem_table_size", "cache_size", "sync"}},
		{"pebble:d?sync=maybe", []string{`sync="maybe"`, "true or false"}},
		{"pebble:d?mem_table_size=1", []string{"mem_table_size", "64KiB"}},
		{"pebble:d?mem_table_size=4GiB", []string{"mem_table_size"}},
		{"pebble:d?cache_size=0", []string{"cache_size"}},
		{"pebble:d?cache_size=8MB", []string{"cache_size", "MiB"}},
		{"pebble:d?l0_compaction_threshold=0", []string{"l0_compaction_threshold"}},
		{"pebble:d?max_concurrent_compactions=-1", []string{"max_concurrent_compactions"}},
		{"pebble:d?disable_wal=true&sync=true", []string{"disable_wal", "sync"}},
		{"pebble:d?sync=true&Sync=false", []string{"more than once"}},
		{"pebble:", []string{"names no database directory"}},
		{"pebble:?sync=false", []string{"names no database directory"}},
		{"pebble:d\x00x", []string{"NUL byte"}},
		{"bbolt:f", []string{"not a pebble: URL"}},
	} {
		cfg, err := parseURL(tc.url)
		if err == nil {
			t.Errorf("ParseURL(%q) = %+v, want an error", tc.url, cfg)
			continue
		}
		for _, f := range tc.fragments {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("ParseURL(%q) error %q does not mention %q", tc.url, err, f)
			}
		}
	}
}

func TestSuccessor(t *testing.T) {
	for _, tc := range []struct{ prefix, want string }{
		{"p:", "p;"},
		{"a", "b"},
		{"a\xff", "b"},
		{"a\xff\xff", "b"},
		{"\x00", "\x01"},
		{"ab\xfe", "ab\xff"},
	} {
		if got := successor([]byte(tc.prefix)); !bytes.Equal(got, []byte(tc.want)) {
			t.Errorf("successor(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
	for _, p := range []string{"\xff", "\xff\xff\xff"} {
		if got := successor([]byte(p)); got != nil {
			t.Errorf("successor(%q) = %q, want none", p, got)
		}
	}
}

func openClient(t *testing.T, url string) *client {
	t.Helper()
	cl, err := Driver{}.Open(context.Background(), driver.Target{Name: "t", URL: url}, driver.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl.(*client)
}

func TestEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "env.pebble")
	cl := openClient(t, "pebble:"+dir+"?sync=false&mem_table_size=8MiB&cache_size=16MiB")
	env, err := cl.Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := env.Settings
	for k, v := range map[string]string{
		"sync": "false", "mem_table_size": "8388608", "cache_size": "16777216",
		"l0_compaction_threshold": "4", "max_concurrent_compactions": "1", "disable_wal": "false", // pebble's defaults, filled in
	} {
		if s[k] != v {
			t.Errorf("settings[%s] = %q, want %q", k, s[k], v)
		}
	}
	if s["format_major_version"] != pebble.FormatNewest.String() {
		t.Errorf("a new database's format_major_version = %q, want the newest, %s", s["format_major_version"], pebble.FormatNewest)
	}
	if env.Extra["directory"] != dir {
		t.Errorf("directory = %v, want %s", env.Extra["directory"], dir)
	}
	if env.Disk == nil {
		t.Error("no disk: the file system under the database is not described")
	}
}

// An empty directory (made for the run) becomes the database.
func TestEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	openClient(t, "pebble:"+dir)
	if desc, err := pebble.Peek(dir, vfs.Default); err != nil || !desc.Exists {
		t.Errorf("no database was created in the empty directory: %v, %v", desc, err)
	}
}

// A database another process holds is refused at once, not waited for.
// Pebble's lock conflicts between two opens of one process too, which stands
// in for the other process.
func TestLockedByAnother(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locked")
	other, err := pebble.Open(dir, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = Driver{}.Open(context.Background(), driver.Target{URL: "pebble:" + dir}, driver.Options{})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Open of a locked database = %v, want an error naming it", err)
	}
}
