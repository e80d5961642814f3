package mongodb

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func statusView(t *testing.T, c *client) driver.ServerSampler {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sv, err := c.ServerView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close(context.Background()) })
	return sv
}

func statusSample(t *testing.T, sv driver.ServerSampler) result.EngineSample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := sv.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// On the test store (FerretDB v1, no opcounters) the view counts the
// session's insert and find commands and says what the store lacks.
func TestServerViewCountsTheSessionsCommands(t *testing.T) {
	raw := freshDB(t)
	s := session(t, raw)
	sv := statusView(t, s.c)
	before := statusSample(t, sv)
	ctx := ctxT(t)
	for i := range 5 {
		if r, err := s.Insert(ctx, "sv", []driver.Doc{ycsbDoc(i)}); err != nil || len(r.Failed) != 0 {
			t.Fatalf("insert: %v %+v", err, r)
		}
	}
	for i := range 3 {
		if _, _, err := s.Get(ctx, "sv", id(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	after := statusSample(t, sv)
	if _, ok := after.Counters["serverStatus.opcounters.insert"]; ok {
		moved := func(name string, want float64) {
			if d := after.Counters[name] - before.Counters[name]; d < want {
				t.Errorf("%s moved by %v, want at least %v", name, d, want)
			}
		}
		moved("serverStatus.opcounters.insert", 5)
		moved("serverStatus.opcounters.query", 3)
		if after.Gauges["serverStatus.connections.current"] < 2 {
			t.Errorf("connections.current %v", after.Gauges)
		}
		return
	}
	// FerretDB: its per-command counts, and the lines that say what it lacks.
	for name, want := range map[string]float64{"insert": 5, "find": 3} {
		k := "serverStatus.metrics.commands." + name + ".total"
		if d := after.Counters[k] - before.Counters[k]; d < want {
			t.Errorf("%s moved by %v, want at least %v (%v)", k, d, want, after.Counters)
		}
	}
	u := strings.Join(sv.Unavailable(), "\n")
	for _, want := range []string{"serverStatus.opcounters", "FerretDB v", "serverStatus.wiredTiger"} {
		if !strings.Contains(u, want) {
			t.Errorf("Unavailable does not name %q:\n%s", want, u)
		}
	}
}

// A MongoDB answer: opcounters, latencies, connections and the WiredTiger
// cache are kept, per-command counts are not (opcounters have them), and
// nothing is unavailable.
func TestAddStatusOfAMongoDBAnswer(t *testing.T) {
	raw, err := bson.Marshal(bson.D{
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: int64(7)}, {Key: "query", Value: int32(3)}, {Key: "command", Value: 9.0}}},
		{Key: "opLatencies", Value: bson.D{{Key: "reads", Value: bson.D{{Key: "latency", Value: int64(1200)}, {Key: "ops", Value: int64(3)}}}}},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(4)}, {Key: "totalCreated", Value: int64(40)}}},
		{Key: "wiredTiger", Value: bson.D{{Key: "cache", Value: bson.D{{Key: "bytes currently in the cache", Value: int64(1 << 20)}, {Key: "pages read into cache", Value: int64(11)}}}}},
		{Key: "metrics", Value: bson.D{{Key: "commands", Value: bson.D{{Key: "insert", Value: bson.D{{Key: "total", Value: int64(7)}}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := result.EngineSample{Counters: map[string]float64{}, Gauges: map[string]float64{}}
	addStatus(&s, raw, false)
	want := map[string]float64{"serverStatus.opcounters.insert": 7, "serverStatus.opcounters.query": 3, "serverStatus.opcounters.command": 9,
		"serverStatus.opLatencies.reads.latency": 1200, "serverStatus.opLatencies.reads.ops": 3, "serverStatus.connections.totalCreated": 40,
		"serverStatus.wiredTiger.cache.pages read into cache": 11}
	for k, v := range want {
		if s.Counters[k] != v {
			t.Errorf("%s = %v, want %v", k, s.Counters[k], v)
		}
	}
	if len(s.Counters) != len(want) {
		t.Errorf("counters %v", s.Counters)
	}
	if s.Gauges["serverStatus.connections.current"] != 4 || s.Gauges["serverStatus.wiredTiger.cache.bytes currently in the cache"] != 1<<20 {
		t.Errorf("gauges %v", s.Gauges)
	}
	if l := lacking(raw); len(l) != 0 {
		t.Errorf("lacking %q", l)
	}
}

// ServerView on a server that never answers ends with its context; on one
// that is gone it fails.
func TestServerViewOfAnUnreachableServerFails(t *testing.T) {
	silent, _ := testenv.SilentServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	for _, addr := range []string{silent, gone} {
		cfg, err := parseURL("mongodb://" + addr + "/fbtest?directConnection=true")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		done := make(chan error, 1)
		go func() {
			sv, err := (&client{cfg: cfg}).ServerView(ctx)
			if err == nil {
				sv.Close(context.Background())
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("ServerView on %s succeeded", addr)
			}
		case <-time.After(testenv.StopDeadline):
			t.Fatalf("ServerView on %s did not end with its context", addr)
		}
		cancel()
	}
}

// A user without serverStatus is told which role would give it, without
// the password.
func TestServerViewNamesClusterMonitor(t *testing.T) {
	cfg, err := parseURL("mongodb://reader:s3cret@127.0.0.1:1/fbtest")
	if err != nil {
		t.Fatal(err)
	}
	s := &statusSampler{cfg: cfg}
	line := s.refused(mongo.CommandError{Code: 13, Name: "Unauthorized", Message: "not authorized on admin to execute command { serverStatus: 1 }"})
	if !strings.Contains(line, `user "reader"`) || !strings.Contains(line, "clusterMonitor") || strings.Contains(line, "s3cret") {
		t.Errorf("refused: %s", line)
	}
}
