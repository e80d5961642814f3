package opensearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func serverViewOf(t *testing.T, c *client) driver.ServerSampler {
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

func sampleOf(t *testing.T, sv driver.ServerSampler) result.EngineSample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := sv.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// On every test node the view is complete and has the JVM's collectors,
// the pools' rejections and CPU; on one node of each engine (creating an
// index takes seconds) it counts the session's own indexing and searches.
func TestServerViewCountsIndexingAndSearches(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, n testenv.SearchNode, raw string) {
		s, c := liveSessionOn(t, raw)
		sv := serverViewOf(t, c)
		if u := sv.Unavailable(); len(u) != 0 {
			t.Errorf("Unavailable on %s: %q", n.Name, u)
		}
		before := sampleOf(t, sv)
		checkNodeStatsNames(t, sv, before)
		if n.Name != "opensearch-2.19" && n.Name != "elasticsearch-9.1" {
			return
		}
		index := testenv.OpenSearchIndex(t, raw)
		var body strings.Builder
		for i := range 20 {
			fmt.Fprintf(&body, "{\"index\":{}}\n{\"n\":%d}\n", i)
		}
		ctx := ctxT(t)
		if r, err := s.Bulk(ctx, index, []byte(body.String()), 20); err != nil || len(r.Failed) != 0 {
			t.Fatalf("bulk: %v %+v", err, r)
		}
		if err := s.Refresh(ctx, index); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			if _, err := s.Query(ctx, index, []byte(`{"query":{"match_all":{}}}`)); err != nil {
				t.Fatal(err)
			}
		}
		after := sampleOf(t, sv)
		for name, want := range map[string]float64{
			"_nodes/stats.indices.indexing.index_total": 20,
			"_nodes/stats.indices.search.query_total":   5, // at least: one per shard
			"_nodes/stats.indices.refresh.total":        1,
		} {
			if d := after.Counters[name] - before.Counters[name]; d < want {
				t.Errorf("%s moved by %v, want at least %v", name, d, want)
			}
		}
	})
}

// checkNodeStatsNames fails the test unless a sample has the names every
// node answers, with their units.
func checkNodeStatsNames(t *testing.T, sv driver.ServerSampler, after result.EngineSample) {
	t.Helper()
	var gc, rejected bool
	for k := range after.Counters {
		gc = gc || strings.HasPrefix(k, "_nodes/stats.jvm.gc.collectors.") && strings.HasSuffix(k, ".collection_count")
		rejected = rejected || k == "_nodes/stats.thread_pool.write.rejected"
	}
	if !gc || !rejected {
		t.Errorf("no GC collectors (%v) or write pool rejections (%v): %v", gc, rejected, after.Counters)
	}
	if _, ok := after.Gauges["_nodes/stats.os.cpu.percent"]; !ok {
		t.Errorf("no CPU percent: %v", after.Gauges)
	}
	u := sv.Units()
	if u["_nodes/stats.indices.indexing.index_time_in_millis"] != "ms" || u["_nodes/stats.jvm.mem.heap_used_in_bytes"] != "bytes" ||
		u["_nodes/stats.os.cpu.percent"] != "%" {
		t.Errorf("units: %v", u)
	}
}

// A user without the monitor privilege gets an empty view that names it
// (Elasticsearch's answer, faked); the password never shows.
func TestServerViewNamesTheMonitorPrivilege(t *testing.T) {
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"GET /_nodes/stats/indices,jvm,thread_pool,os,process": jsonReply(http.StatusForbidden,
			`{"error":{"type":"security_exception","reason":"action [cluster:monitor/nodes/stats] is unauthorized for user [reader] with effective roles [viewer]"},"status":403}`),
	})
	clearEnv(t)
	cl, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, "reader:s3cret@")}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(context.Background())
	sv := serverViewOf(t, cl.(*client))
	u := sv.Unavailable()
	if len(u) != 1 || !strings.Contains(u[0], "monitor") || !strings.Contains(u[0], `"reader"`) || strings.Contains(u[0], "s3cret") {
		t.Errorf("Unavailable = %q", u)
	}
	if s := sampleOf(t, sv); len(s.Counters)+len(s.Gauges) != 0 {
		t.Errorf("sample without the privilege: %+v", s)
	}
}

// Nodes are summed, CPU percentages averaged; an answer beyond the bound is
// refused, not read whole.
func TestServerViewSumsNodesAndBoundsTheAnswer(t *testing.T) {
	node := func(indexed, cpu int) string {
		return fmt.Sprintf(`{"indices":{"indexing":{"index_total":%d}},"os":{"cpu":{"percent":%d}},"jvm":{"mem":{"heap_used_in_bytes":100}}}`, indexed, cpu)
	}
	var big atomic.Bool
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"GET /_nodes/stats/indices,jvm,thread_pool,os,process": func(w http.ResponseWriter, r *http.Request) {
			if big.Load() {
				w.Write([]byte(`{"nodes":{"a":{"x":"` + strings.Repeat("y", maxStatsAnswer) + `"}}}`)) //nolint:errcheck // test server
				return
			}
			jsonReply(200, `{"nodes":{"a":`+node(10, 20)+`,"b":`+node(5, 60)+`}}`)(w, r)
		},
	})
	c := fakeSession(t, srv).c
	sv := serverViewOf(t, c)
	s := sampleOf(t, sv)
	if s.Counters["_nodes/stats.indices.indexing.index_total"] != 15 || s.Gauges["_nodes/stats.os.cpu.percent"] != 40 ||
		s.Gauges["_nodes/stats.jvm.mem.heap_used_in_bytes"] != 200 {
		t.Errorf("sample: %+v", s)
	}
	big.Store(true)
	if _, err := sv.Sample(context.Background()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an answer beyond the bound: %v", err)
	}
}

// A node that stops answering fails the sample at the context's deadline,
// and ServerView on a node that is gone fails.
func TestServerViewNeverHangs(t *testing.T) {
	hang := make(chan struct{})
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"GET /_nodes/stats/indices,jvm,thread_pool,os,process": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
				<-r.Context().Done()
			default:
				jsonReply(200, `{"nodes":{}}`)(w, r)
			}
		},
	})
	c := fakeSession(t, srv).c
	sv := serverViewOf(t, c)
	close(hang)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := sv.Sample(ctx); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("sample of a mute node: %v", err)
		}
	case <-time.After(testenv.StopDeadline):
		t.Fatal("the sample of a mute node did not end at its deadline")
	}
	srv.CloseClientConnections()
	srv.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), testenv.StopDeadline)
	defer cancel2()
	if _, err := c.ServerView(ctx2); err == nil || ctx2.Err() != nil {
		t.Errorf("ServerView of a node that is gone: %v (context %v)", err, ctx2.Err())
	}
}
