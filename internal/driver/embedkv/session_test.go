package embedkv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

var (
	errGone    = errors.New("fake: database not open")
	errWaited  = errors.New("fake: lock timeout")
	errCommit  = errors.New("fake: commit failed")
	errCommand = errors.New("bad key")
)

var fakeEngine = Engine{Name: "fake", Module: "example.com/fake", Design: "map", Lost: []error{errGone}, Timeouts: []error{errWaited}}

type fakeConfig struct {
	Path string
	Opt  int
}

// fakeDB is an engine in a map: a run holding the key "commit-fails" fails
// whole, one holding "gone" finds the database closed, and a write of the
// key "bad" fails alone.
type fakeDB struct {
	m      map[string]string
	closed int
}

func (d *fakeDB) Close() error { d.closed++; return nil }

type fakeStore struct {
	d    *fakeDB
	runs []string // "R a b", "W c d": the runs in the order they came
}

func (s *fakeStore) run(kind string, cmds []driver.KVCommand) error {
	keys := []string{kind}
	var err error
	for _, c := range cmds {
		keys = append(keys, string(c.Key))
		switch string(c.Key) {
		case "commit-fails":
			err = errCommit
		case "gone":
			err = errGone
		}
	}
	s.runs = append(s.runs, strings.Join(keys, " "))
	return err
}

func (s *fakeStore) ReadRun(a *Answers, cmds []driver.KVCommand, replies []driver.KVReply) error {
	for i := range cmds {
		if v, ok := s.d.m[string(cmds[i].Key)]; ok {
			replies[i].Value = a.Keep([]byte(v))
		} else {
			replies[i].Miss = true
		}
		replies[i].Latency = a.Latency()
	}
	return s.run("R", cmds)
}

func (s *fakeStore) WriteRun(a *Answers, cmds []driver.KVCommand, ops []Op, replies []driver.KVReply) error {
	for i := range cmds {
		c := &cmds[i]
		if string(c.Key) == "bad" {
			a.Fail(&replies[i], errCommand)
			continue
		}
		switch ops[i] {
		case OpSet:
			s.d.m[string(c.Key)] = string(Arg(c, 1))
			replies[i].Value = a.OK()
		case OpIncr:
			old, ok := s.d.m[string(c.Key)]
			n, err := Incr([]byte(old), ok)
			if err != nil {
				a.Fail(&replies[i], err)
				continue
			}
			replies[i].Value = a.KeepInt(n)
			s.d.m[string(c.Key)] = string(replies[i].Value)
		case OpDel:
			var n int64
			for k := range NArgs(c) {
				if _, ok := s.d.m[string(Arg(c, k))]; ok {
					delete(s.d.m, string(Arg(c, k)))
					n++
				}
			}
			replies[i].Value = a.KeepInt(n)
		}
	}
	return s.run("W", cmds)
}

func (s *fakeStore) DeletePrefix(ctx context.Context, prefix []byte) (int64, error) {
	var n int64
	for k := range s.d.m {
		if strings.HasPrefix(k, string(prefix)) {
			delete(s.d.m, k)
			n++
		}
	}
	return n, nil
}

func (s *fakeStore) Keys(prefix, after []byte, limit int) ([]string, error) {
	var out []string
	for k := range s.d.m {
		if strings.HasPrefix(k, string(prefix)) && k > string(after) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), limit)], nil
}

func newRegistry() *Registry[fakeConfig, *fakeDB] {
	return &Registry[fakeConfig, *fakeDB]{
		Engine:  &fakeEngine,
		Path:    func(c *fakeConfig) *string { return &c.Path },
		Unit:    "file",
		Creates: "the file, not its directory",
	}
}

func openFake(abs string, cfg fakeConfig) (*fakeDB, map[string]string, error) {
	if strings.HasSuffix(abs, "refused") {
		return nil, nil, errors.New("fake database " + cfg.Path + " is not fake's")
	}
	return &fakeDB{m: map[string]string{}}, map[string]string{"opt": fmt.Sprint(cfg.Opt)}, nil
}

func fakeSession(t *testing.T) (*Session, *fakeStore) {
	t.Helper()
	h, err := newRegistry().acquire(fakeConfig{Path: filepath.Join(t.TempDir(), "db")}, openFake)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client[fakeConfig, *fakeDB]{H: h}
	st := &fakeStore{d: h.DB}
	s, err := c.NewSession(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()); c.Close(context.Background()) })
	return s, st
}

func cmds(spec ...string) []driver.KVCommand {
	var cs []driver.KVCommand
	for _, s := range spec {
		f := strings.Fields(s)
		c := driver.KVCommand{Name: f[0], Key: []byte(f[1])}
		if len(f) > 2 {
			c.Value = []byte(f[2])
		}
		for _, a := range f[min(len(f), 3):] {
			c.Args = append(c.Args, []byte(a))
		}
		cs = append(cs, c)
	}
	return cs
}

func pipeline(t *testing.T, s *Session, cs []driver.KVCommand) []driver.KVReply {
	t.Helper()
	replies := make([]driver.KVReply, len(cs))
	if err := s.Pipeline(context.Background(), cs, replies); err != nil {
		t.Fatalf("Pipeline: %v", err)
	}
	for i, r := range replies {
		if r.Latency <= 0 || (i > 0 && r.Latency < replies[i-1].Latency) {
			t.Errorf("reply %d: latency %v after %v", i, r.Latency, replies[max(i-1, 0)].Latency)
		}
	}
	return replies
}

// A pipeline runs as maximal runs of consecutive writes and of consecutive
// GETs, in its order; a command refused before running splits runs.
func TestPipelineRuns(t *testing.T) {
	s, st := fakeSession(t)
	cs := cmds("GET a", "get b", "SET a 1", "INCR n", "DEL x", "GET a", "BOGUS k", "GET n", "SET a 2", "GET a extra", "SET b 3", "INCR a", "GET a")
	r := pipeline(t, s, cs)
	want := []string{"R a b", "W a n x", "R a", "R n", "W a", "W b a", "R a"}
	if strings.Join(st.runs, "|") != strings.Join(want, "|") {
		t.Errorf("runs %q, want %q", st.runs, want)
	}
	for i, w := range []string{"", "", "OK", "1", "0", "1", "", "1", "OK", "", "OK", "3", "3"} {
		if string(r[i].Value) != w {
			t.Errorf("reply %d (%s %s): value %q, want %q", i, cs[i].Name, cs[i].Key, r[i].Value, w)
		}
	}
	if !r[0].Miss || !r[1].Miss || r[5].Miss {
		t.Errorf("misses: %v %v %v, want true true false", r[0].Miss, r[1].Miss, r[5].Miss)
	}
	for _, i := range []int{6, 9} {
		var re replyError
		if !errors.As(r[i].Err, &re) || r[i].Class != result.ErrOther {
			t.Errorf("reply %d (%s): %v, %q; want an error reply", i, cs[i].Name, r[i].Err, r[i].Class)
		}
	}
	// Bytes: the command's key, value and arguments, plus the reply's value.
	for i, w := range []int64{1, 1, 2 + 2, 1 + 1, 1 + 1, 1 + 1, 1, 1 + 1, 2 + 2, 1 + 5, 2 + 2, 1 + 1, 1 + 1} {
		if r[i].Bytes != w {
			t.Errorf("reply %d (%s %s): Bytes %d, want %d", i, cs[i].Name, cs[i].Key, r[i].Bytes, w)
		}
	}
	// A write run is answered at once, when it has committed.
	if r[2].Latency != r[3].Latency || r[3].Latency != r[4].Latency {
		t.Errorf("write run latencies %v %v %v, want one", r[2].Latency, r[3].Latency, r[4].Latency)
	}
}

func TestPipelineFailures(t *testing.T) {
	s, _ := fakeSession(t)
	cs := cmds("SET a 1", "SET bad 2", "INCR a", "GET a", "SET commit-fails 1", "DEL a", "GET a", "GET commit-fails")
	r := pipeline(t, s, cs)
	// One command's failure leaves the rest of its run alone.
	if r[1].Err == nil || r[1].Err.Error() != "ERR fake: bad key" || !errors.Is(r[1].Err, errCommand) || r[1].Class != result.ErrOther || r[1].Value != nil {
		t.Errorf("SET bad: %+v, want the engine's error as an error reply", r[1])
	}
	if r[1].Bytes != 3+1 || r[1].Latency != r[0].Latency {
		t.Errorf("SET bad: Bytes %d, Latency %v; want 4, its run's %v", r[1].Bytes, r[1].Latency, r[0].Latency)
	}
	if string(r[2].Value) != "2" || string(r[3].Value) != "2" {
		t.Errorf("INCR a, GET a = %q, %q; want 2, 2", r[2].Value, r[3].Value)
	}
	// A failed run fails each of its commands, and only those.
	for _, i := range []int{4, 5} {
		if !errors.Is(r[i].Err, errCommit) || r[i].Class != result.ErrOther || r[i].Value != nil || r[i].Bytes != bytesIn(&cs[i]) {
			t.Errorf("reply %d (%s %s) of a failed run: %+v", i, cs[i].Name, cs[i].Key, r[i])
		}
	}
	if !errors.Is(r[6].Err, errCommit) || !errors.Is(r[7].Err, errCommit) {
		t.Errorf("GETs of a failed read run: %v, %v", r[6].Err, r[7].Err)
	}
	// A run that finds the database closed ends the pipeline: the session
	// is lost.
	err := s.Pipeline(context.Background(), cmds("GET a", "SET gone 1"), make([]driver.KVReply, 2))
	if !errors.Is(err, errGone) || s.Classify(err) != result.ErrConnection {
		t.Errorf("Pipeline on a closed database = %v (%s), want it returned as a lost connection", err, s.Classify(err))
	}
	if err := s.Pipeline(context.Background(), cmds("GET a", "GET b"), make([]driver.KVReply, 1)); err == nil || err.Error() != "fake: 1 replies for 2 commands" {
		t.Errorf("Pipeline with one reply for two commands = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Pipeline(ctx, cmds("SET c 1"), make([]driver.KVReply, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Pipeline under a cancelled context = %v", err)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want result.ErrorClass
	}{
		{errNotInteger, result.ErrOther},
		{fmt.Errorf("wrapped: %w", errNotInteger), result.ErrOther},
		{fmt.Errorf("fake: %w", errSessionClosed), result.ErrConnection},
		{driver.ErrClientClosed, result.ErrConnection},
		{fmt.Errorf("x: %w", errGone), result.ErrConnection},
		{context.Canceled, result.ErrTimeout},
		{context.DeadlineExceeded, result.ErrTimeout},
		{errWaited, result.ErrTimeout},
		{errCommit, result.ErrOther},
	} {
		if got := fakeEngine.classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// An engine without timeouts of its own has only the context's.
	e := Engine{Name: "e"}
	if got := e.classify(errors.New("other")); got != result.ErrOther {
		t.Errorf("Classify of an unknown error = %q, want %q", got, result.ErrOther)
	}
}

func TestSessionClose(t *testing.T) {
	s, _ := fakeSession(t)
	ctx := context.Background()
	if got := s.ClientPath(); got != "fake" { // test binaries carry no module versions
		t.Errorf("ClientPath = %q, want fake", got)
	}
	if _, err := s.DeletePrefix(ctx, ""); err == nil || err.Error() != "fake: DeletePrefix of an empty prefix would delete every key: refused" {
		t.Errorf("DeletePrefix(\"\") = %v", err)
	}
	pipeline(t, s, cmds("SET p:1 a", "SET p:2 b", "SET q c"))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := s.DeletePrefix(cancelled, "p:"); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("DeletePrefix under a cancelled context = %d, %v", n, err)
	}
	if n, err := s.DeletePrefix(ctx, "p:"); n != 2 || err != nil {
		t.Errorf("DeletePrefix(p:) = %d, %v; want 2", n, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	err := s.Pipeline(ctx, cmds("GET q"), make([]driver.KVReply, 1))
	if err == nil || err.Error() != "fake: the session is closed" || s.Classify(err) != result.ErrConnection {
		t.Errorf("Pipeline on a closed session = %v (%s)", err, s.Classify(err))
	}
	if _, err := s.DeletePrefix(ctx, "q"); err == nil || err.Error() != "fake: the session is closed" {
		t.Errorf("DeletePrefix on a closed session = %v", err)
	}
}

// The clients of one database share its handle; it closes with the last of
// them and of their sessions.
func TestRegistry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := newRegistry()
	path := filepath.Join(dir, "db")
	h1, err := r.acquire(fakeConfig{Path: path, Opt: 1}, openFake)
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h1.Path != filepath.Join(real, "db") || h1.Settings["opt"] != "1" {
		t.Errorf("handle path %s, settings %v", h1.Path, h1.Settings)
	}
	// The same file through a symlinked directory, and a relative path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	h2, err := r.acquire(fakeConfig{Path: filepath.Join(link, "db"), Opt: 1}, openFake)
	if err != nil || h2 != h1 {
		t.Fatalf("Acquire through a symlink = %p, %v; want the first's handle %p", h2, err, h1)
	}
	t.Chdir(dir)
	h2, err = r.acquire(fakeConfig{Path: "db", Opt: 1}, openFake)
	if err != nil || h2 != h1 {
		t.Fatalf("Acquire of a relative path = %p, %v; want the first's handle %p", h2, err, h1)
	}
	h2.release() // the symlink's reference
	_, err = r.acquire(fakeConfig{Path: "db", Opt: 2}, openFake)
	if want := "fake database db is already open in this process with other options (map[opt:1]): one file has one set of options at a time"; err == nil || err.Error() != want {
		t.Errorf("Acquire with other options = %v, want %s", err, want)
	}
	missing := filepath.Join(dir, "nodir", "db")
	_, err = r.acquire(fakeConfig{Path: missing}, openFake)
	if want := "fake database " + missing + ": directory " + filepath.Dir(missing) + " does not exist (fairbench creates the file, not its directory)"; err == nil || err.Error() != want {
		t.Errorf("Acquire in a missing directory = %v, want %s", err, want)
	}
	if _, err := r.acquire(fakeConfig{Path: "refused"}, openFake); err == nil || err.Error() != "fake database refused is not fake's" {
		t.Errorf("Acquire that open refuses = %v", err)
	}
	if _, err := r.acquire(fakeConfig{Path: "refused"}, openFake); err == nil {
		t.Error("a refused database was registered")
	}

	c1 := &Client[fakeConfig, *fakeDB]{H: h1}
	c2 := &Client[fakeConfig, *fakeDB]{H: h2}
	s1, err := c1.NewSession(&fakeStore{d: h1.DB})
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.NewSession(&fakeStore{d: h1.DB}); !errors.Is(err, driver.ErrClientClosed) {
		t.Errorf("NewSession of a closed client = %v", err)
	}
	c2.Close(ctx)
	if h1.DB.closed != 0 {
		t.Fatal("the database closed under an open session")
	}
	s1.Close(ctx)
	if h1.DB.closed != 1 {
		t.Fatalf("the database closed %d times after its last client and session, want 1", h1.DB.closed)
	}
	c1.Close(ctx)
	if h1.DB.closed != 1 {
		t.Errorf("a second Close of a client closed the database again")
	}
	// Closed, it opens anew with any options.
	h3, err := r.acquire(fakeConfig{Path: path, Opt: 2}, openFake)
	if err != nil || h3 == h1 {
		t.Errorf("Acquire after the last close = %p, %v; want a new handle", h3, err)
	}
}

func TestEnv(t *testing.T) {
	h, err := newRegistry().acquire(fakeConfig{Path: filepath.Join(t.TempDir(), "db"), Opt: 7}, openFake)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client[fakeConfig, *fakeDB]{H: h}
	env, settings := c.Env(filepath.Dir(h.Path))
	settings["extra"] = "x"
	if h.Settings["extra"] != "" {
		t.Error("Env's settings are the handle's, not a copy")
	}
	for _, f := range []struct{ name, got, want string }{{"engine", env.Engine, "fake"}, {"version", env.Version, "unknown"}, {"driver", env.Driver, "example.com/fake (pure Go, in-process map)"}} {
		if f.got != f.want {
			t.Errorf("env %s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if s := env.Settings; s["opt"] != "7" || s["extra"] != "x" {
		t.Errorf("env settings = %v", s)
	}
	if env.Disk == nil {
		t.Error("no disk")
	}
	if !c.InProcess() {
		t.Error("not InProcess")
	}
}

func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"sqlite": "SQLite format 3\x00and more", "short": "SQLite", "empty": "", "other": "hello"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		head, err := ReadHead(p, 16)
		if err != nil || string(head) != content[:min(16, len(content))] {
			t.Errorf("ReadHead(%s, 16) = %q, %v", name, head, err)
		}
		if IsSQLite(head) != (name == "sqlite") {
			t.Errorf("IsSQLite(%q) = %v", head, IsSQLite(head))
		}
	}
	if _, err := ReadHead(filepath.Join(dir, "absent"), 16); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadHead of a missing file = %v", err)
	}
}
