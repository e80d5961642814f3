package bbolt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/fairbench/fairbench/internal/driver"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want config
	}{
		{"bbolt:bench.bbolt", config{Path: "bench.bbolt", FreelistType: "array", Timeout: defaultTimeout}},
		{"BBOLT:bench.bbolt", config{Path: "bench.bbolt", FreelistType: "array", Timeout: defaultTimeout}},
		{"bbolt://rel/b.db", config{Path: "rel/b.db", FreelistType: "array", Timeout: defaultTimeout}},
		{"bbolt:///abs/b.db", config{Path: "/abs/b.db", FreelistType: "array", Timeout: defaultTimeout}},
		{"bbolt:b.db?nosync=true", config{Path: "b.db", NoSync: true, FreelistType: "array", Timeout: defaultTimeout}},
		// Names ignore case, '_' and '-'.
		{"bbolt:b.db?No_Sync=1&page-size=16384&FreelistType=HashMap&initial_mmap_size=64MiB&timeout=250ms&nogrowsync=on&nofreelistsync=yes",
			config{Path: "b.db", NoSync: true, PageSize: 16384, FreelistType: "hashmap", InitialMmapSize: 64 << 20,
				Timeout: 250 * time.Millisecond, NoGrowSync: true, NoFreelistSync: true}},
		{"bbolt:b.db?nosync=false&initialmmapsize=1048576", config{Path: "b.db", InitialMmapSize: 1 << 20, FreelistType: "array", Timeout: defaultTimeout}},
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
		{"bbolt:b.db?nosinc=true", []string{`"nosinc"`, "nosync", "pagesize", "timeout"}},
		{"bbolt:b.db?nosync=maybe", []string{`nosync="maybe"`, "true or false"}},
		{"bbolt:b.db?pagesize=1000", []string{"pagesize", "power of two"}},
		{"bbolt:b.db?pagesize=131072", []string{"pagesize"}},
		{"bbolt:b.db?freelisttype=tree", []string{"freelisttype", "hashmap"}},
		{"bbolt:b.db?initialmmapsize=-1", []string{"initialmmapsize"}},
		{"bbolt:b.db?initialmmapsize=1PiB", []string{"initialmmapsize"}},
		{"bbolt:b.db?timeout=0s", []string{"timeout"}},
		{"bbolt:b.db?timeout=soon", []string{"timeout"}},
		{"bbolt:b.db?nosync=true&no_sync=false", []string{"more than once"}},
		{"bbolt:b.db?nosync=true&nosync=true", []string{"more than once"}},
		{"bbolt:", []string{"names no database file"}},
		{"bbolt:?nosync=true", []string{"names no database file"}},
		{"bbolt:b.db\x00x", []string{"NUL byte"}},
		{"pebble:dir", []string{"not a bbolt: URL"}},
		{"bbolt:b.db?%zz", []string{"bad query"}},
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
	path := filepath.Join(t.TempDir(), "env.bbolt")
	cl := openClient(t, "bbolt:"+path+"?nosync=true&pagesize=8192&freelisttype=hashmap")
	env, err := cl.Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := env.Settings
	for k, v := range map[string]string{"nosync": "true", "pagesize": "8192", "freelisttype": "hashmap", "timeout": "2s"} {
		if s[k] != v {
			t.Errorf("settings[%s] = %q, want %q", k, s[k], v)
		}
	}
	if env.Extra["file"] != path {
		t.Errorf("file = %v, want %s", env.Extra["file"], path)
	}
	if env.Disk == nil {
		t.Error("no disk: the file system under the database is not described")
	}
	cl.Close(context.Background())

	// The page size is the file's: asking another one of an existing file
	// changes nothing, and the environment says what is in effect.
	env, err = openClient(t, "bbolt:"+path+"?pagesize=16384").Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Settings["pagesize"]; got != "8192" {
		t.Errorf("reopened with pagesize=16384: settings pagesize = %s, want the file's 8192", got)
	}
}

// A database another process holds fails after the lock timeout instead of
// hanging the preflight. bbolt's flock conflicts between two descriptors of
// one process too, which stands in for the other process.
func TestLockedByAnother(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.bbolt")
	other, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = Driver{}.Open(context.Background(), driver.Target{URL: "bbolt:" + path + "?timeout=200ms"}, driver.Options{})
	if err == nil || !strings.Contains(err.Error(), "another process holds its lock") {
		t.Fatalf("Open of a locked database = %v, want the lock named", err)
	}
}

// An existing empty file holds nothing to lose: it becomes the database
// (scripts pass a file from mktemp).
func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	openClient(t, "bbolt:"+path)
}

// A file bbolt can open through its second meta page (the first torn) is
// still recognised as bbolt's, whatever its page size.
func TestSecondMetaPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.bbolt")
	db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: 16384})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(path, path); err != nil {
		t.Fatalf("check of a fresh bbolt file: %v", err)
	}
	clear(b[16:20])
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := check(path, path); err != nil {
		t.Errorf("check of a bbolt file with its first meta page torn: %v", err)
	}
	clear(b[16384+16 : 16384+20])
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := check(path, path); err == nil {
		t.Error("check of a file with neither meta page passed")
	}
}
