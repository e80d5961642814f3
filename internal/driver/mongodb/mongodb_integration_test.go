package mongodb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// mongoURL is the test server's URL (FAIRBENCH_TEST_MONGODB, FerretDB from
// scripts/test-servers.sh), gated as testenv gates the other servers: skip
// without it, fail under FAIRBENCH_REQUIRE_SERVERS=1.
func mongoURL(t testing.TB) string {
	t.Helper()
	return testenv.MongoDBURL(t) // skips, or fails under FAIRBENCH_REQUIRE_SERVERS=1
}

// freshDB returns the test server's URL with a database of the test's own,
// dropped when the test ends.
func freshDB(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(mongoURL(t))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	u.Path = "/fbtest_" + hex.EncodeToString(b)
	raw := u.String()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cl, err := Driver{}.Open(ctx, driver.Target{URL: raw}, driver.Options{})
		if err != nil {
			return
		}
		defer cl.Close(ctx)
		cl.(*client).db.Drop(ctx) //nolint:errcheck // best effort
	})
	return raw
}

func session(t testing.TB, raw string) *conn {
	t.Helper()
	return testenv.Connect(t, raw, driver.Options{}).(*conn)
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func id(i int) string { return fmt.Sprintf("user%06d", i) }

func field(i, f int) []byte { return bytes.Repeat([]byte{byte(i), byte(f), 0, 0xff}, 25) }

func ycsbDoc(i int) driver.Doc {
	d := driver.Doc{"_id": id(i)}
	for f := 0; f < 4; f++ {
		d[fmt.Sprintf("field%d", f)] = field(i, f)
	}
	return d
}

var (
	_ driver.Document      = (*conn)(nil)
	_ driver.DocumentAdmin = (*conn)(nil)
	_ driver.Path          = (*conn)(nil)
	_ driver.Environment   = (*client)(nil)
)

// Every Document call against the server, with the data checked: 1000
// documents of binary fields inserted (one at a time and in batches), read
// whole and projected, updated field by field, scanned in _id order.
func TestDocumentOnServer(t *testing.T) {
	raw := freshDB(t)
	s := session(t, raw)
	ctx := ctxT(t)
	const coll, n = "usertable", 1000

	// Insert: 10 singly, the rest in batches of 99 (the last one short).
	var bytesSent int64
	for i := 0; i < 10; i++ {
		r, err := s.Insert(ctx, coll, []driver.Doc{ycsbDoc(i)})
		if err != nil || r.Items != 1 || len(r.Failed) != 0 {
			t.Fatalf("insert %d: %+v %v", i, r, err)
		}
		bytesSent += r.Bytes
	}
	for i := 10; i < n; i += 99 {
		var docs []driver.Doc
		for j := i; j < min(i+99, n); j++ {
			docs = append(docs, ycsbDoc(j))
		}
		r, err := s.Insert(ctx, coll, docs)
		if err != nil || r.Items != len(docs) || len(r.Failed) != 0 {
			t.Fatalf("insert batch at %d: %+v %v", i, r, err)
		}
		bytesSent += r.Bytes
	}
	one, _ := appendDoc(nil, ycsbDoc(0))
	if want := int64(len(one)) * n; bytesSent != want {
		t.Errorf("bytes %d, want %d (the BSON sent)", bytesSent, want)
	}
	if c, err := s.Count(ctx, coll); err != nil || c != n {
		t.Fatalf("count %d %v, want %d", c, err, n)
	}

	// Get, whole and projected.
	doc, found, err := s.Get(ctx, coll, id(123), nil)
	if err != nil || !found {
		t.Fatalf("get: %v %v", found, err)
	}
	if len(doc) != 5 || doc["_id"] != id(123) {
		t.Errorf("whole document: %v", keys(doc))
	}
	for f := 0; f < 4; f++ {
		if b, ok := doc[fmt.Sprintf("field%d", f)].([]byte); !ok || !bytes.Equal(b, field(123, f)) {
			t.Errorf("field%d = %#v", f, doc[fmt.Sprintf("field%d", f)])
		}
	}
	doc, found, err = s.Get(ctx, coll, id(7), []string{"field2"})
	if err != nil || !found {
		t.Fatalf("projected get: %v %v", found, err)
	}
	if got := keys(doc); !slices.Equal(got, []string{"_id", "field2"}) || !bytes.Equal(doc["field2"].([]byte), field(7, 2)) {
		t.Errorf("projected document: %v", got)
	}
	// The projection cache follows a change of field list.
	doc, _, _ = s.Get(ctx, coll, id(7), []string{"field0", "field3"})
	if got := keys(doc); !slices.Equal(got, []string{"_id", "field0", "field3"}) {
		t.Errorf("second projection: %v", got)
	}
	doc, _, _ = s.Get(ctx, coll, id(7), nil)
	if len(doc) != 5 {
		t.Errorf("back to whole documents: %v", keys(doc))
	}
	if doc, found, err := s.Get(ctx, coll, "nosuchid", nil); err != nil || found || doc != nil {
		t.Errorf("missing id: %v %v %v", doc, found, err)
	}

	// Update changes exactly the named fields.
	ok, err := s.Update(ctx, coll, id(500), driver.Doc{"field1": []byte("new"), "extra": "added"})
	if err != nil || !ok {
		t.Fatalf("update: %v %v", ok, err)
	}
	doc, _, _ = s.Get(ctx, coll, id(500), nil)
	if string(doc["field1"].([]byte)) != "new" || doc["extra"] != "added" || len(doc) != 6 {
		t.Errorf("after update: %v", doc)
	}
	for _, f := range []int{0, 2, 3} {
		if !bytes.Equal(doc[fmt.Sprintf("field%d", f)].([]byte), field(500, f)) {
			t.Errorf("update changed field%d", f)
		}
	}
	if other, _, _ := s.Get(ctx, coll, id(501), nil); !bytes.Equal(other["field1"].([]byte), field(501, 1)) {
		t.Error("update changed another document")
	}
	if ok, err := s.Update(ctx, coll, "nosuchid", driver.Doc{"field1": []byte("x")}); err != nil || ok {
		t.Errorf("update of a missing id: %v %v", ok, err)
	}
	if c, _ := s.Count(ctx, coll); c != n {
		t.Errorf("an update of a missing id inserted: count %d", c)
	}
	if ok, err := s.Update(ctx, coll, id(1), driver.Doc{}); err != nil || !ok {
		t.Errorf("empty update of an existing id: %v %v", ok, err)
	}

	// Scan: _id order from the start id, at most n.
	var ids []string
	each := func(r bson.Raw) { ids = append(ids, r.Lookup("_id").StringValue()) }
	got, err := s.scan(ctx, coll, id(250), 20, nil, each)
	if err != nil || got != 20 || len(ids) != 20 {
		t.Fatalf("scan: %d %v (%d ids)", got, err, len(ids))
	}
	for i, v := range ids {
		if v != id(250+i) {
			t.Fatalf("scan id %d = %s, want %s", i, v, id(250+i))
		}
	}
	ids = nil
	if got, err := s.scan(ctx, coll, id(995), 20, []string{"field0"}, each); err != nil || got != 5 || ids[0] != id(995) || ids[4] != id(999) {
		t.Errorf("scan at the end: %d %v %v", got, err, ids)
	}
	// A start id between two ids begins at the next one.
	ids = nil
	if got, err := s.scan(ctx, coll, id(40)+"a", 3, nil, each); err != nil || got != 3 || ids[0] != id(41) {
		t.Errorf("scan between ids: %d %v %v", got, err, ids)
	}
	if got, err := s.Scan(ctx, coll, "zzz", 10, nil); err != nil || got != 0 {
		t.Errorf("scan past the end: %d %v", got, err)
	}
	if got, err := s.Scan(ctx, coll, id(0), 0, nil); err != nil || got != 0 {
		t.Errorf("scan of 0: %d %v", got, err)
	}
	if got, err := s.Scan(ctx, coll, id(0), 150, nil); err != nil || got != 150 {
		t.Errorf("scan of 150 (more than the default first batch): %d %v", got, err)
	}
}

func keys(d driver.Doc) []string {
	out := make([]string, 0, len(d))
	for k := range d {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A duplicate _id is a failed item of class constraint; the other documents
// of the batch are stored (unordered insert).
func TestDuplicateInsert(t *testing.T) {
	s := session(t, freshDB(t))
	ctx := ctxT(t)
	if _, err := s.Insert(ctx, "c", []driver.Doc{ycsbDoc(1), ycsbDoc(2)}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Insert(ctx, "c", []driver.Doc{ycsbDoc(3), ycsbDoc(1), ycsbDoc(4), ycsbDoc(2)})
	if err != nil {
		t.Fatalf("a batch with duplicates is not an error of the request: %v", err)
	}
	if r.Items != 4 || len(r.Failed) != 2 || r.Failed[0].Index != 1 || r.Failed[1].Index != 3 {
		t.Fatalf("result %+v", r)
	}
	for _, f := range r.Failed {
		if f.Class != result.ErrConstraint || f.Reason == "" {
			t.Errorf("failed item %+v", f)
		}
	}
	if c, _ := s.Count(ctx, "c"); c != 4 {
		t.Errorf("count %d, want 4 (3 and 4 stored despite the duplicates)", c)
	}
	r, err = s.Insert(ctx, "c", []driver.Doc{ycsbDoc(3)})
	if err != nil || len(r.Failed) != 1 || r.Failed[0].Index != 0 || r.Failed[0].Class != result.ErrConstraint {
		t.Errorf("single duplicate: %+v %v", r, err)
	}
}

func TestAdmin(t *testing.T) {
	s := session(t, freshDB(t))
	ctx := ctxT(t)
	for _, c := range []string{"a", "b"} {
		if _, err := s.Insert(ctx, c, []driver.Doc{ycsbDoc(1)}); err != nil {
			t.Fatal(err)
		}
	}
	names, err := s.Collections(ctx)
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("collections %v %v", names, err)
	}
	if c, err := s.Count(ctx, "nosuch"); err != nil || c != 0 {
		t.Errorf("count of a missing collection: %d %v", c, err)
	}
	if err := s.Drop(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx, "a"); err != nil {
		t.Errorf("dropping a missing collection: %v", err)
	}
	if names, _ := s.Collections(ctx); !slices.Equal(names, []string{"b"}) {
		t.Errorf("after drop: %v", names)
	}
	// The collection handle is not stale after a drop.
	if _, err := s.Insert(ctx, "a", []driver.Doc{ycsbDoc(1)}); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Count(ctx, "a"); c != 1 {
		t.Errorf("count after re-creating: %d", c)
	}
}

// On MongoDB the counters grow by what was sent; FerretDB v1 keeps none,
// which OpCounters must say (ok=false) rather than invent.
func TestOpCounters(t *testing.T) {
	s := session(t, freshDB(t))
	ctx := ctxT(t)
	before, ok, err := s.OpCounters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env, err := s.c.Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if env.Engine != "ferretdb" {
			t.Fatalf("%v reports no opcounters", env.Engine)
		}
		t.Logf("FerretDB %v keeps no opcounters (ok=false), as expected", env.Version)
		return
	}
	var docs []driver.Doc
	for i := 0; i < 10; i++ {
		docs = append(docs, ycsbDoc(i))
	}
	if _, err := s.Insert(ctx, "c", docs); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		s.Update(ctx, "c", id(i), driver.Doc{"x": i}) //nolint:errcheck // checked by the counters
		s.Get(ctx, "c", id(i), nil)                   //nolint:errcheck
	}
	after, _, err := s.OpCounters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := after["insert"] - before["insert"]; d < 10 {
		t.Errorf("insert counter grew by %d, want >= 10", d)
	}
	if d := after["update"] - before["update"]; d < 3 {
		t.Errorf("update counter grew by %d, want >= 3", d)
	}
	if d := after["query"] - before["query"]; d < 3 {
		t.Errorf("query counter grew by %d, want >= 3", d)
	}
}

func TestEnvironmentFerretDB(t *testing.T) {
	raw := mongoURL(t)
	cl := testenv.Open(t, raw, driver.Options{})
	env, err := cl.(driver.Environment).Environment(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if env.Engine != "ferretdb" || env.Version != "v1.24.2" {
		t.Errorf("engine %v version %v, want ferretdb v1.24.2", env.Engine, env.Version)
	}
	if v, _ := env.Extra["compat_version"].(string); !strings.HasPrefix(v, "7.0.") {
		t.Errorf("compat_version %q, want FerretDB's MongoDB 7.0.x", v)
	}
	if env.Driver != "mongo-go-driver v2.10.0" {
		t.Errorf("driver %v", env.Driver)
	}
	if tf, _ := env.Extra["tls"].(map[string]any); tf["enabled"] != false {
		t.Errorf("tls %v", env.Extra["tls"])
	}
	if st := env.Settings; st["max_pool_size"] != "0" {
		t.Errorf("settings %v", env.Settings)
	}
	s := session(t, raw)
	if p := s.ClientPath(); p != "mongo-go-driver v2.10.0" {
		t.Errorf("client path %q", p)
	}
}

// A password given to a server that does not want one (FerretDB without
// authentication here) or refuses it never shows in an error or the
// environment.
func TestPasswordNeverShown(t *testing.T) {
	u, err := url.Parse(mongoURL(t))
	if err != nil {
		t.Fatal(err)
	}
	const pw = "Very-Secret-Pw-42"
	u.User = url.UserPassword("someone", pw)
	u.RawQuery = "serverSelectionTimeoutMS=2000&authSource=admin"
	withPW := u.String()
	ctx := ctxT(t)
	cl, err := Driver{}.Open(ctx, driver.Target{URL: withPW}, driver.Options{})
	if err != nil {
		if strings.Contains(err.Error(), pw) {
			t.Fatalf("password in Open's error: %v", err)
		}
		t.Logf("the server refused the credentials: %v", err)
	} else {
		defer cl.Close(ctx)
		env, err := cl.(driver.Environment).Environment(ctx)
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Fatalf("password in Environment's error: %v", err)
		}
		if strings.Contains(fmt.Sprint(env), pw) {
			t.Fatalf("password in the environment: %v", env)
		}
	}
	// An unreachable server and a bad option, with the password in the URL.
	for _, bad := range []string{
		"mongodb://someone:" + pw + "@127.0.0.1:1/db?serverSelectionTimeoutMS=200",
		"mongodb://someone:" + pw + "@127.0.0.1:1/?serverSelectionTimeoutMS=200",
		"mongodb://someone:" + pw + "@127.0.0.1:1/db?readPreference=fastest",
	} {
		_, err := Driver{}.Open(ctx, driver.Target{URL: bad}, driver.Options{})
		if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "someone:xxxxx@") {
			t.Errorf("Open(%s): %v", driver.Redacted(bad), err)
		}
	}
}

// proxy forwards TCP connections to addr until it is killed, which cuts every
// connection at once: a server that went away mid-run.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, addr string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go io.Copy(up, c) //nolint:errcheck // ends when either side closes
			go io.Copy(c, up) //nolint:errcheck
		}
	}()
	t.Cleanup(p.kill)
	return p
}

func (p *proxy) kill() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// A server that goes away is a connection error; a deadline is a timeout;
// both come from real calls on a session.
func TestClassifyOnServer(t *testing.T) {
	raw := freshDB(t)
	u, _ := url.Parse(raw)
	p := newProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("serverSelectionTimeoutMS", "1000")
	q.Set("retryReads", "false")
	q.Set("retryWrites", "false")
	u.RawQuery = q.Encode()
	s := session(t, u.String())
	ctx := ctxT(t)
	if _, err := s.Insert(ctx, "c", []driver.Doc{ycsbDoc(1)}); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, _, err := s.Get(short, "c", id(1), nil); err == nil || s.Classify(err) != result.ErrTimeout {
		t.Errorf("expired deadline: %v, class %q", err, s.Classify(err))
	}

	p.kill()
	_, _, err := s.Get(ctx, "c", id(1), nil)
	if err == nil {
		t.Fatal("get through a dead server succeeded")
	}
	if c := s.Classify(err); c != result.ErrConnection {
		t.Errorf("dead server: class %q for %v", c, err)
	}
	// The next call: the pool finds no server at all.
	_, err = s.Update(ctx, "c", id(1), driver.Doc{"x": 1})
	if c := s.Classify(err); err == nil || c != result.ErrConnection {
		t.Errorf("server gone: class %q for %v", c, err)
	}
}

func TestClosedClient(t *testing.T) {
	raw := mongoURL(t)
	cl, err := Driver{}.Open(context.Background(), driver.Target{URL: raw}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cl.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(context.Background()); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := cl.Session(context.Background()); err != driver.ErrClientClosed {
		t.Errorf("session of a closed client: %v", err)
	}
	_, _, err = s.(*conn).Get(context.Background(), "c", "x", nil)
	if err == nil || s.Classify(err) != result.ErrConnection {
		t.Errorf("get on a closed client: %v (%q)", err, s.Classify(err))
	}
}

// The server's connection limit, where its serverStatus says it: more
// clients than connections.available are refused before anything runs.
// FerretDB v1 reports no connections section: the limit is unknown and the
// check lets any number through.
func TestConnectionLimit(t *testing.T) {
	raw := mongoURL(t)
	s := session(t, raw)
	avail, detail, err := s.ConnectionLimit(context.Background())
	tg := driver.Target{Name: "m", URL: raw}
	if errors.Is(err, errNoConnectionCount) {
		t.Logf("the server keeps no connection count (%v): unchecked", err)
		if err := driver.CheckConnections(context.Background(), tg, 1_000_000); err != nil {
			t.Fatalf("an unknown limit refused clients: %v", err)
		}
		return
	}
	if err != nil || avail < 2 || !strings.Contains(detail, "connections.available") {
		t.Fatalf("limit %d (%s), %v", avail, detail, err)
	}
	if err := driver.CheckConnections(context.Background(), tg, avail+10); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Fatalf("%d clients over a limit of %d: %v", avail+10, avail, err)
	}
}

// TLS from the URL: with the test CA the session works (an insert and a
// read over the TLS listener); without it, the server's certificate is
// refused with an error that says so.
func TestTLSFromTheURL(t *testing.T) {
	raw := os.Getenv("FAIRBENCH_TEST_MONGODB_TLS")
	if raw == "" {
		if os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatal("FAIRBENCH_TEST_MONGODB_TLS is not set; run the tests through ./scripts/test.sh")
		}
		t.Skip("FAIRBENCH_TEST_MONGODB_TLS not set")
	}
	s := session(t, raw)
	coll := fmt.Sprintf("fbtest_tls_%d", time.Now().UnixNano())
	t.Cleanup(func() { s.Drop(context.Background(), coll) })
	if _, err := s.Insert(context.Background(), coll, []driver.Doc{{"_id": "k", "f": []byte("v")}}); err != nil {
		t.Fatalf("insert over TLS: %v", err)
	}
	if d, ok, err := s.Get(context.Background(), coll, "k", nil); err != nil || !ok || string(d["f"].([]byte)) != "v" {
		t.Fatalf("read over TLS: %v %v %v", d, ok, err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("tlsCAFile")
	q.Set("serverSelectionTimeoutMS", "2000")
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if cl, err := (Driver{}).Open(ctx, driver.Target{URL: u.String()}, driver.Options{}); err == nil {
		cl.Close(ctx)
		t.Fatal("a server certificate from an unknown CA was accepted")
	} else if !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("error without the reason: %v", err)
	}
}
