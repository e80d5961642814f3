// Package kvtest is the conformance test of fairbench's embedded key-value
// drivers (bbolt, pebble): one set of assertions that each driver's tests run
// against its own engine, so that the kv workload finds the same Redis
// semantics, pipeline contract and safety rules whichever engine it targets.
// It is imported by tests only.
package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite" // to make a real SQLite file the engines must not touch
	"github.com/fairbench/fairbench/internal/result"
)

// Engine describes the driver under test.
type Engine struct {
	Scheme string // "bbolt": URLs are Scheme:PATH?query
	// NoSync is the query that turns off the fsync of each commit, for the
	// tests that commit thousands of times ("nosync=true").
	NoSync string
	// ValidKey is one of the engine's query keys: the error for an unknown
	// key must list it.
	ValidKey string
	// BadValue is a query with a value the engine refuses ("nosync=maybe"):
	// the error must name its key.
	BadValue string
}

func (e Engine) url(path, query string) string {
	if query == "" {
		return e.Scheme + ":" + path
	}
	return e.Scheme + ":" + path + "?" + query
}

// Conformance runs every conformance test on the engine.
func Conformance(t *testing.T, e Engine) {
	t.Run("Capabilities", func(t *testing.T) { testCapabilities(t, e) })
	t.Run("Pipeline", func(t *testing.T) { testPipeline(t, e) })
	t.Run("IncrAtomicNoSync", func(t *testing.T) { testIncrAtomic(t, e, e.NoSync, 1000) })
	// Fewer increments with the engine's default, durable commits: the same
	// atomicity on the code path that waits for each fsync.
	t.Run("IncrAtomicSync", func(t *testing.T) { testIncrAtomic(t, e, "", 100) })
	t.Run("DeletePrefix", func(t *testing.T) { testDeletePrefix(t, e) })
	t.Run("ScanPrefix", func(t *testing.T) { testScanPrefix(t, e) })
	t.Run("Persist", func(t *testing.T) { testPersist(t, e) })
	t.Run("Close", func(t *testing.T) { testClose(t, e) })
	t.Run("SharedFile", func(t *testing.T) { testShared(t, e) })
	t.Run("RelativePath", func(t *testing.T) { testRelative(t, e) })
	t.Run("BadURLs", func(t *testing.T) { testBadURLs(t, e) })
	t.Run("ForeignFiles", func(t *testing.T) { testForeign(t, e) })
}

// open opens a client for url, closed when the test ends.
func open(t *testing.T, url string) driver.Client {
	t.Helper()
	cl, err := openErr(url)
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl
}

func openErr(url string) (driver.Client, error) {
	d, err := driver.ForURL(url)
	if err != nil {
		return nil, err
	}
	return d.Open(context.Background(), driver.Target{Name: "t", URL: url}, driver.Options{})
}

// session takes a session of cl, closed when the test ends.
func session(t *testing.T, cl driver.Client) driver.KV {
	t.Helper()
	c, err := cl.Session(context.Background())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	kv, ok := c.(driver.KV)
	if !ok {
		t.Fatalf("session %T does not implement driver.KV", c)
	}
	return kv
}

// cmd builds a command: the first string after the key is its Value, the
// others its Args.
func cmd(name, key string, rest ...string) driver.KVCommand {
	c := driver.KVCommand{Name: name, Key: []byte(key)}
	for i, r := range rest {
		if i == 0 {
			c.Value = []byte(r)
			continue
		}
		c.Args = append(c.Args, []byte(r))
	}
	return c
}

// run sends one pipeline and checks the latency contract: every reply has a
// positive latency, in the pipeline's order.
func run(t *testing.T, kv driver.KV, cmds ...driver.KVCommand) []driver.KVReply {
	t.Helper()
	replies := make([]driver.KVReply, len(cmds))
	if err := kv.Pipeline(context.Background(), cmds, replies); err != nil {
		t.Fatalf("Pipeline: %v", err)
	}
	for i, r := range replies {
		if r.Latency <= 0 {
			t.Errorf("reply %d (%s %s): latency %v, want > 0", i, cmds[i].Name, cmds[i].Key, r.Latency)
		}
		if i > 0 && r.Latency < replies[i-1].Latency {
			t.Errorf("reply %d (%s %s): latency %v is before reply %d's %v", i, cmds[i].Name, cmds[i].Key, r.Latency, i-1, replies[i-1].Latency)
		}
	}
	return replies
}

func get(t *testing.T, kv driver.KV, key string) (string, bool) {
	t.Helper()
	r := run(t, kv, cmd("GET", key))[0]
	if r.Err != nil {
		t.Fatalf("GET %s: %v", key, r.Err)
	}
	return string(r.Value), !r.Miss
}

func testCapabilities(t *testing.T, e Engine) {
	url := e.url(filepath.Join(t.TempDir(), "db"), "")
	d, err := driver.ForURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != e.Scheme {
		t.Errorf("driver name %q, want %q", d.Name(), e.Scheme)
	}
	if !driver.EngineInProcess(url) || !driver.Local(url) {
		t.Errorf("EngineInProcess(%s) = %v, Local = %v: want both true", url, driver.EngineInProcess(url), driver.Local(url))
	}
	cl := open(t, url)
	if ip, ok := cl.(driver.InProcess); !ok || !ip.InProcess() {
		t.Errorf("client %T is not InProcess", cl)
	}
	envr, ok := cl.(driver.Environment)
	if !ok {
		t.Fatalf("client %T does not implement driver.Environment", cl)
	}
	env, err := envr.Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if env.Engine != e.Scheme {
		t.Errorf("environment engine = %v, want %s", env.Engine, e.Scheme)
	}
	// The library's version comes from the binary's module information,
	// which test binaries lack: "unknown" then, a version number otherwise.
	version := env.Version
	if version != "unknown" && (version == "" || version[0] < '0' || version[0] > '9') {
		t.Errorf("environment version = %q, want the module's version or unknown", env.Version)
	}
	if len(env.Settings) == 0 {
		t.Errorf("environment settings = %v, want the options in effect", env.Settings)
	}
	kv := session(t, cl)
	if _, ok := kv.(driver.KVPrefixDeleter); !ok {
		t.Errorf("session %T does not implement driver.KVPrefixDeleter", kv)
	}
	p, ok := kv.(driver.Path)
	if !ok {
		t.Fatalf("session %T does not implement driver.Path", kv)
	}
	wantPath := e.Scheme
	if version != "unknown" {
		wantPath += " " + version
	}
	if cp := p.ClientPath(); cp != wantPath {
		t.Errorf("ClientPath() = %q, want %q", cp, wantPath)
	}
}

// want is an expected reply: a value, a miss, or an error containing errText.
type want struct {
	value   string
	miss    bool
	errText string
}

func testPipeline(t *testing.T, e Engine) {
	kv := session(t, open(t, e.url(filepath.Join(t.TempDir(), "db"), "")))
	const notInt = "ERR value is not an integer or out of range"
	cases := []struct {
		c driver.KVCommand
		w want
	}{
		{cmd("SET", "a", "1"), want{value: "OK"}},
		{cmd("get", "a"), want{value: "1"}}, // names are case-insensitive
		{cmd("GET", "missing"), want{miss: true}},
		{cmd("INCR", "a"), want{value: "2"}},
		{cmd("incr", "n"), want{value: "1"}}, // absent counts as 0
		{cmd("SET", "s", "abc"), want{value: "OK"}},
		{cmd("INCR", "s"), want{errText: notInt}},
		{cmd("GET", "s"), want{value: "abc"}}, // the failed INCR changed nothing
		{cmd("SET", "big", "9223372036854775807"), want{value: "OK"}},
		{cmd("INCR", "big"), want{errText: "overflow"}},
		{cmd("SET", "e", ""), want{value: "OK"}},
		{cmd("GET", "e"), want{value: ""}}, // an empty value is not a miss
		{cmd("INCR", "e"), want{errText: notInt}},
		{cmd("SET", "plus", "+5"), want{value: "OK"}},
		{cmd("INCR", "plus"), want{errText: notInt}}, // Redis takes canonical integers only
		{cmd("SET", "zero", "007"), want{value: "OK"}},
		{cmd("INCR", "zero"), want{errText: notInt}},
		{cmd("SET", "neg", "-1"), want{value: "OK"}},
		{cmd("INCR", "neg"), want{value: "0"}},
		{cmd("DEL", "a", "missing", "s", "a"), want{value: "2"}}, // a counted once
		{cmd("GET", "a"), want{miss: true}},
		{cmd("FLUSHALL", "x"), want{errText: "FLUSHALL"}},
		{cmd("GET", "k", "extra"), want{errText: "wrong number of arguments"}},
		{cmd("SET", "k", "v", "EX", "10"), want{errText: "ERR"}},
		{cmd("GET", "k"), want{miss: true}}, // the refused SET did not run
		{cmd("GET", "big"), want{value: "9223372036854775807"}},
		{cmd("GET", "n"), want{value: "1"}},
	}
	cmds := make([]driver.KVCommand, len(cases))
	for i, c := range cases {
		cmds[i] = c.c
	}
	replies := run(t, kv, cmds...)
	for i, c := range cases {
		r := replies[i]
		label := fmt.Sprintf("reply %d (%s %s)", i, c.c.Name, c.c.Key)
		switch {
		case c.w.errText != "":
			if r.Err == nil || !strings.Contains(r.Err.Error(), c.w.errText) {
				t.Errorf("%s: error %v, want one containing %q", label, r.Err, c.w.errText)
			}
			if r.Class != result.ErrOther {
				t.Errorf("%s: class %q, want %q", label, r.Class, result.ErrOther)
			}
		case c.w.miss:
			if r.Err != nil || !r.Miss || r.Value != nil {
				t.Errorf("%s: %+v, want a miss", label, r)
			}
		default:
			if r.Err != nil || r.Miss || string(r.Value) != c.w.value || r.Value == nil {
				t.Errorf("%s: value %q miss %v err %v, want %q", label, r.Value, r.Miss, r.Err, c.w.value)
			}
		}
	}
	// Bytes: key, value and arguments in, the reply's value out.
	for _, b := range []struct {
		i    int
		want int64
	}{{0, 1 + 1 + 2}, {1, 1 + 1}, {2, 7}, {4, 1 + 1}, {19, 1 + 7 + 1 + 1 + 1}} {
		if replies[b.i].Bytes != b.want {
			t.Errorf("reply %d (%s %s): Bytes = %d, want %d", b.i, cases[b.i].c.Name, cases[b.i].c.Key, replies[b.i].Bytes, b.want)
		}
	}
	// A later pipeline sees the earlier one's writes; DEL's keys may come
	// as Args alone (Value nil), as a Redis client would send them.
	del := driver.KVCommand{Name: "DEL", Key: []byte("n"), Args: [][]byte{[]byte("neg")}}
	r := run(t, kv, del, cmd("GET", "n"), cmd("GET", "neg"))
	if string(r[0].Value) != "2" || !r[1].Miss || !r[2].Miss {
		t.Errorf("DEL n neg, GET n, GET neg = %q, %+v, %+v; want 2 and two misses", r[0].Value, r[1], r[2])
	}
	if err := kv.Pipeline(context.Background(), []driver.KVCommand{cmd("GET", "a")}, nil); err == nil {
		t.Error("Pipeline with no room for replies: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := kv.Pipeline(ctx, []driver.KVCommand{cmd("SET", "c", "1")}, make([]driver.KVReply, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Pipeline under a cancelled context = %v, want context.Canceled", err)
	}
	if _, found := get(t, kv, "c"); found {
		t.Error("a SET under a cancelled context ran")
	}
}

func testIncrAtomic(t *testing.T, e Engine, query string, per int) {
	const sessions = 8
	cl := open(t, e.url(filepath.Join(t.TempDir(), "db"), query))
	kvs := make([]driver.KV, sessions)
	for i := range kvs {
		kvs[i] = session(t, cl)
	}
	got := make([][]int64, sessions)
	errs := make([]error, sessions)
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Half the sessions send one INCR at a time, half pipelines of
			// ten, with a GET inside, so that runs of writes hold several.
			depth := 1
			if s%2 == 1 {
				depth = 10
			}
			cmds := make([]driver.KVCommand, 0, depth+1)
			replies := make([]driver.KVReply, depth+1)
			for done := 0; done < per; {
				cmds = cmds[:0]
				for range min(depth, per-done) {
					cmds = append(cmds, cmd("INCR", "counter"))
				}
				if depth > 1 {
					cmds = slices.Insert(cmds, len(cmds)/2, cmd("GET", "other"))
				}
				if err := kvs[s].Pipeline(context.Background(), cmds, replies); err != nil {
					errs[s] = err
					return
				}
				for i, r := range replies[:len(cmds)] {
					if cmds[i].Name != "INCR" {
						continue
					}
					if r.Err != nil {
						errs[s] = r.Err
						return
					}
					n, err := strconv.ParseInt(string(r.Value), 10, 64)
					if err != nil {
						errs[s] = err
						return
					}
					got[s] = append(got[s], n)
					done++
				}
			}
		}()
	}
	wg.Wait()
	var all []int64
	for s := range sessions {
		if errs[s] != nil {
			t.Fatalf("session %d: %v", s, errs[s])
		}
		if !slices.IsSorted(got[s]) {
			t.Errorf("session %d saw its own increments out of order", s)
		}
		all = append(all, got[s]...)
	}
	slices.Sort(all)
	for i, n := range all {
		if n != int64(i+1) {
			t.Fatalf("the %d increments answered %d at position %d: an increment was lost or answered twice", len(all), n, i)
		}
	}
	if v, _ := get(t, kvs[0], "counter"); v != strconv.Itoa(sessions*per) {
		t.Errorf("counter = %s after %d×%d increments", v, sessions, per)
	}
}

// ScanPrefix lists exactly the keys under the prefix, over more than one
// batch, stops when asked to, and lets its callback delete what it found
// through the same session (fairbench's cleanup does).
func testScanPrefix(t *testing.T, e Engine) {
	kv := session(t, open(t, e.url(filepath.Join(t.TempDir(), "db"), e.NoSync)))
	var set []driver.KVCommand
	want := map[string]bool{}
	for i := range 2500 {
		k := fmt.Sprintf("s:%05d", i)
		want[k] = true
		set = append(set, cmd("SET", k, "v"))
	}
	want["s:\xff"] = true
	set = append(set, cmd("SET", "s:\xff", "v"), cmd("SET", "s", "v"), cmd("SET", "s;", "v"), cmd("SET", "r:1", "v"), cmd("SET", "S:1", "v"))
	for _, r := range run(t, kv, set...) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	sc := kv.(driver.KVPrefixScanner)
	seen := map[string]bool{}
	if err := sc.ScanPrefix(context.Background(), "s:", func(keys []string) bool {
		for _, k := range keys {
			seen[k] = true
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(seen, want) {
		t.Errorf("ScanPrefix(s:) saw %d keys, want the %d under s: only", len(seen), len(want))
	}
	batches := 0
	if err := sc.ScanPrefix(context.Background(), "s:", func([]string) bool { batches++; return false }); err != nil || batches != 1 {
		t.Errorf("ScanPrefix whose callback says stop: %d batches, %v; want 1", batches, err)
	}
	if err := sc.ScanPrefix(context.Background(), "s:", func(keys []string) bool {
		del := driver.KVCommand{Name: "DEL", Key: []byte(keys[0])}
		for _, k := range keys[1:] {
			del.Args = append(del.Args, []byte(k))
		}
		if r := run(t, kv, del); r[0].Err != nil {
			t.Fatal(r[0].Err)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	left := 0
	if err := sc.ScanPrefix(context.Background(), "s:", func(keys []string) bool { left += len(keys); return true }); err != nil || left != 0 {
		t.Errorf("after deleting every key the scan found, %d remain (%v)", left, err)
	}
	if _, found := get(t, kv, "s;"); !found {
		t.Error("key s;, outside the prefix, was deleted")
	}
}

func testDeletePrefix(t *testing.T, e Engine) {
	kv := session(t, open(t, e.url(filepath.Join(t.TempDir(), "db"), e.NoSync)))
	var set []driver.KVCommand
	var under, outside []string
	for i := range 50 {
		under = append(under, fmt.Sprintf("p:%02d", i))
	}
	under = append(under, "p:", "p:\xff", "p:\xff\xff\x00")
	// Neighbours in byte order on either side, and keys that share a shorter prefix.
	outside = []string{"p", "p;", "p9", "o:1", "q:1", "P:1", "\xff\xff", "\xff\xff\x00", "\xfe"}
	for _, k := range append(slices.Clone(under), outside...) {
		set = append(set, cmd("SET", k, "v"))
	}
	for _, r := range run(t, kv, set...) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	pd := kv.(driver.KVPrefixDeleter)
	n, err := pd.DeletePrefix(context.Background(), "p:")
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(under)) {
		t.Errorf("DeletePrefix(p:) = %d, want %d", n, len(under))
	}
	for _, k := range under {
		if _, found := get(t, kv, k); found {
			t.Errorf("key %q survived DeletePrefix(p:)", k)
		}
	}
	for _, k := range outside[:6] {
		if _, found := get(t, kv, k); !found {
			t.Errorf("key %q, outside the prefix p:, was deleted", k)
		}
	}
	// A prefix of 0xff bytes has no successor to end a range at.
	if n, err := pd.DeletePrefix(context.Background(), "\xff\xff"); err != nil || n != 2 {
		t.Errorf("DeletePrefix(ff ff) = %d, %v; want 2", n, err)
	}
	if _, found := get(t, kv, "\xfe"); !found {
		t.Error("key fe was deleted by DeletePrefix(ff ff)")
	}
	if n, err := pd.DeletePrefix(context.Background(), "absent:"); err != nil || n != 0 {
		t.Errorf("DeletePrefix(absent:) = %d, %v; want 0", n, err)
	}
	if _, err := pd.DeletePrefix(context.Background(), ""); err == nil {
		t.Error("DeletePrefix of the empty prefix (every key) was not refused")
	}
	if _, found := get(t, kv, "q:1"); !found {
		t.Error("key q:1 is gone after DeletePrefix(\"\")")
	}
	// More keys than one delete transaction may hold.
	set = set[:0]
	for i := range 25_000 {
		set = append(set, cmd("SET", fmt.Sprintf("big:%06d", i), "v"))
	}
	run(t, kv, set...)
	if n, err := pd.DeletePrefix(context.Background(), "big:"); err != nil || n != 25_000 {
		t.Errorf("DeletePrefix(big:) = %d, %v; want 25000", n, err)
	}
	if _, found := get(t, kv, "big:024999"); found {
		t.Error("big:024999 survived")
	}
}

func testPersist(t *testing.T, e Engine) {
	url := e.url(filepath.Join(t.TempDir(), "db"), "")
	ctx := context.Background()
	cl, err := openErr(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run(t, c.(driver.KV), cmd("SET", "kept", "value"), cmd("INCR", "count"), cmd("INCR", "count"), cmd("INCR", "count"))
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(ctx); err != nil {
		t.Fatal(err)
	}
	kv := session(t, open(t, url))
	if v, found := get(t, kv, "kept"); v != "value" || !found {
		t.Errorf("after reopening, kept = %q (found %v), want value", v, found)
	}
	if v, _ := get(t, kv, "count"); v != "3" {
		t.Errorf("after reopening, count = %q, want 3", v)
	}
}

func testClose(t *testing.T, e Engine) {
	url := e.url(filepath.Join(t.TempDir(), "db"), "")
	ctx := context.Background()
	cl, err := openErr(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kv := c.(driver.KV)
	if err := cl.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if s, err := cl.Session(ctx); !errors.Is(err, driver.ErrClientClosed) {
		t.Errorf("Session after Close = %v, %v; want driver.ErrClientClosed", s, err)
	}
	// The session outlives its client's Close: the database closes after it.
	if r := run(t, kv, cmd("SET", "after", "close")); r[0].Err != nil {
		t.Errorf("SET on an open session of a closed client: %v", r[0].Err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	err = kv.Pipeline(ctx, []driver.KVCommand{cmd("GET", "after")}, make([]driver.KVReply, 1))
	if err == nil {
		t.Fatal("Pipeline on a closed session: no error")
	}
	if cls := c.Classify(err); cls != result.ErrConnection {
		t.Errorf("Classify(%v) = %q, want %q: the runner takes a new session", err, cls, result.ErrConnection)
	}
	if _, err := kv.(driver.KVPrefixDeleter).DeletePrefix(ctx, "a"); err == nil {
		t.Error("DeletePrefix on a closed session: no error")
	}
	// The database was closed and its lock released: it opens again.
	if v, _ := get(t, session(t, open(t, url)), "after"); v != "close" {
		t.Errorf("after reopening, after = %q, want close", v)
	}
}

func testShared(t *testing.T, e Engine) {
	path := filepath.Join(t.TempDir(), "db")
	url := e.url(path, "")
	ctx := context.Background()
	c1, err := openErr(url)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := c1.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c2 := open(t, url) // a second client of the same file, as a study's cells may hold
	kv2 := session(t, c2)
	run(t, s1.(driver.KV), cmd("SET", "k", "from 1"))
	if v, _ := get(t, kv2, "k"); v != "from 1" {
		t.Errorf("client 2 reads %q, want client 1's write", v)
	}
	if c3, err := openErr(e.url(path, e.NoSync)); err == nil {
		c3.Close(ctx)
		t.Error("a third client with other options on the open file was not refused")
	}
	s1.Close(ctx)
	c1.Close(ctx)
	run(t, kv2, cmd("SET", "k", "from 2"))
	if v, _ := get(t, kv2, "k"); v != "from 2" {
		t.Errorf("client 2 after client 1 closed reads %q", v)
	}
}

func testRelative(t *testing.T, e Engine) {
	dir := t.TempDir()
	t.Chdir(dir)
	kv := session(t, open(t, e.url("rel.db", "")))
	run(t, kv, cmd("SET", "k", "v"))
	if _, err := os.Stat(filepath.Join(dir, "rel.db")); err != nil {
		t.Errorf("a relative path is not relative to the working directory: %v", err)
	}
}

func testBadURLs(t *testing.T, e Engine) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "sub")
	for _, tc := range []struct {
		url       string
		fragments []string
	}{
		{e.url(filepath.Join(dir, "db"), "nope=1"), []string{`"nope"`, e.ValidKey}},
		{e.url(filepath.Join(dir, "db"), e.BadValue), []string{strings.SplitN(e.BadValue, "=", 2)[0]}},
		{e.url(filepath.Join(missing, "db"), ""), []string{missing, "does not exist"}},
		{e.Scheme + ":", []string{"names no"}},
		{e.Scheme + ":?" + e.NoSync, []string{"names no"}},
		{e.url(filepath.Join(dir, "db")+"\x00x", ""), []string{"NUL"}},
	} {
		cl, err := openErr(tc.url)
		if err == nil {
			cl.Close(context.Background())
			t.Errorf("Open(%q) succeeded, want an error", tc.url)
			continue
		}
		for _, f := range tc.fragments {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("Open(%q) error %q does not mention %q", tc.url, err, f)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no-such-dir")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing parent directory was created: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused URLs left files behind: %v", ents)
	}
}

// snapshot is every file under dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sqliteFile makes a real SQLite database at path, with a row in it.
func sqliteFile(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	cl := open(t, "sqlite:"+path)
	c, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := c.(driver.SQL)
	for _, q := range []string{"CREATE TABLE precious (x TEXT)", "INSERT INTO precious VALUES ('keep me')"} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close(ctx)
	cl.Close(ctx)
}

// testForeign checks that a path holding something that is not the engine's
// database is refused and left byte for byte as it was.
func testForeign(t *testing.T, e Engine) {
	dir := t.TempDir()
	sqlitePath := filepath.Join(dir, "app.db")
	sqliteFile(t, sqlitePath)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	sqliteFile(t, filepath.Join(sub, "000001.log")) // a name an LSM could take for its own
	before := snapshot(t, dir)
	for _, tc := range []struct {
		path     string
		fragment string
	}{
		{sqlitePath, "SQLite"},
		{filepath.Join(dir, "notes.txt"), "not"},
		{sub, ""},
	} {
		cl, err := openErr(e.url(tc.path, ""))
		if err == nil {
			cl.Close(context.Background())
			t.Errorf("Open(%s) succeeded on a path holding no %s database", tc.path, e.Scheme)
			continue
		}
		if !strings.Contains(err.Error(), tc.fragment) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Open(%s) error %q does not name the path and %q", tc.path, err, tc.fragment)
		}
	}
	after := snapshot(t, dir)
	if len(after) != len(before) {
		t.Errorf("files before %d, after %d: the refused opens left files behind", len(before), len(after))
	}
	for p, b := range before {
		if !bytes.Equal([]byte(after[p]), []byte(b)) {
			t.Errorf("%s changed", p)
		}
	}
}
