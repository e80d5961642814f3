package opensearch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// The server view of OpenSearch and Elasticsearch is one GET _nodes/stats
// per sample, on an HTTP client of the sampler's own (not the sessions'
// keep-alive pool), narrowed to the statistics kept by its metric list and
// filter_path: indexing, search, merges, refreshes and flushes, the JVM's
// garbage collectors and heap, rejections of every thread pool, the queues
// of the write and search pools, and CPU. The nodes the URL's node answers
// for are summed (counters, heap, queues) or averaged (CPU percentages).
// The engines have no wait states: Waits stays empty.

var _ driver.ServerViewer = (*client)(nil)

// nodesStatsPath asks for the node statistics a sample keeps, and no others.
var nodesStatsPath = "/_nodes/stats/indices,jvm,thread_pool,os,process?filter_path=" + strings.Join(prefixed("nodes.*.", []string{
	"indices.indexing.index_total", "indices.indexing.index_time_in_millis", "indices.indexing.index_failed",
	"indices.search.query_total", "indices.search.query_time_in_millis", "indices.search.fetch_total",
	"indices.search.fetch_time_in_millis", "indices.get.total", "indices.merges.total",
	"indices.merges.total_time_in_millis", "indices.merges.total_docs", "indices.refresh.total",
	"indices.refresh.total_time_in_millis", "indices.flush.total", "indices.docs.count",
	"indices.store.size_in_bytes", "indices.segments.count",
	"jvm.gc.collectors.*.collection_count", "jvm.gc.collectors.*.collection_time_in_millis",
	"jvm.mem.heap_used_in_bytes", "thread_pool.*.rejected", "thread_pool.write.queue", "thread_pool.search.queue",
	"os.cpu.percent", "process.cpu.percent",
}), ",")

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// nodesStatsGauges are the point-in-time values among them; mean ones are
// averaged over the nodes instead of summed.
var (
	nodesStatsGauges = map[string]bool{
		"indices.docs.count": true, "indices.store.size_in_bytes": true, "indices.segments.count": true,
		"jvm.mem.heap_used_in_bytes": true, "thread_pool.write.queue": true, "thread_pool.search.queue": true,
		"os.cpu.percent": true, "process.cpu.percent": true,
	}
	nodesStatsMean = map[string]bool{"os.cpu.percent": true, "process.cpu.percent": true}
)

const (
	viewPrefix = "_nodes/stats."
	// maxStatsAnswer bounds the answer: a few KiB per node with the filter.
	maxStatsAnswer = 4 << 20
)

// statsSampler samples _nodes/stats.
type statsSampler struct {
	c        *client // its own opensearch-go client, answers bounded
	unavail  []string
	disabled bool // the user may not read the statistics: samples are empty
	units    result.EngineMetricUnit
}

// ServerView implements driver.ServerViewer: a client of its own, checked
// with a first request. A user without the monitor privilege gets an empty
// view that says so; an unreachable node is an error.
func (c *client) ServerView(ctx context.Context) (driver.ServerSampler, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	oc, err := newClient(c.cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.cfg.redacted, c.cfg.secrets.ScrubErr(err))
	}
	s := &statsSampler{c: &client{cfg: c.cfg, oc: oc, id: c.id, maxBody: maxStatsAnswer}, units: result.EngineMetricUnit{}}
	if _, err := s.Sample(ctx); err != nil {
		_ = oc.Close()
		return nil, err
	}
	return s, nil
}

// Sample implements driver.ServerSampler.
func (s *statsSampler) Sample(ctx context.Context) (result.EngineSample, error) {
	out := result.EngineSample{At: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	if s.disabled {
		return out, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.c.cfg.timeout)
		defer cancel()
	}
	var stats struct {
		Nodes map[string]map[string]any `json:"nodes"`
	}
	err := s.c.getJSON(ctx, nodesStatsPath, &stats)
	var e *Error
	if errors.As(err, &e) && (e.Status == http.StatusForbidden || e.Status == http.StatusUnauthorized) {
		s.disabled = true
		s.unavail = append(s.unavail, s.refused(e))
		return out, nil
	}
	if err != nil {
		return result.EngineSample{}, fmt.Errorf("%s server view of %s: GET _nodes/stats: %w", s.c.id.engineName(), s.c.cfg.redacted, err)
	}
	addNodesStats(&out, stats.Nodes)
	for _, m := range []map[string]float64{out.Counters, out.Gauges} {
		for k := range m {
			if u := unitOf(k); u != "" {
				s.units[k] = u
			}
		}
	}
	return out, nil
}

// addNodesStats sums (or averages) each node's numbers into the sample.
func addNodesStats(out *result.EngineSample, nodes map[string]map[string]any) {
	ids := make([]string, 0, len(nodes))
	for id := range nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a float sum in the same order every sample
	for _, id := range ids {
		flatten("", nodes[id], func(path string, v float64) {
			if nodesStatsMean[path] {
				v /= float64(len(nodes))
			}
			if nodesStatsGauges[path] {
				out.Gauges[viewPrefix+path] += v
			} else {
				out.Counters[viewPrefix+path] += v
			}
		})
	}
}

// flatten calls fn with the dotted path of every number in v.
func flatten(path string, v any, fn func(string, float64)) {
	switch x := v.(type) {
	case float64:
		fn(path, x)
	case map[string]any:
		for k, y := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flatten(p, y, fn)
		}
	}
}

// refused is the Unavailable line for statistics the user may not read.
func (s *statsSampler) refused(e *Error) string {
	who := "the URL's credentials"
	if s.c.cfg.user != "" {
		who = fmt.Sprintf("user %q", s.c.cfg.user)
	}
	return fmt.Sprintf("_nodes/stats (the whole server view): %s may not read it (%s): grant its role the cluster privilege monitor (Elasticsearch) or the cluster_monitor action group (OpenSearch security), which allow cluster:monitor/nodes/stats",
		who, strings.TrimSpace(fmt.Sprintf("HTTP %d %s", e.Status, e.Type)))
}

// engineName is the engine's name for messages.
func (id identity) engineName() string {
	if id.engine == "elasticsearch" {
		return "Elasticsearch"
	}
	return "OpenSearch"
}

// Unavailable implements driver.ServerSampler.
func (s *statsSampler) Unavailable() []string { return s.unavail }

// Units implements driver.ServerSampler: the unit of every name the
// samples so far have had, by the engine's own suffixes.
func (s *statsSampler) Units() result.EngineMetricUnit { return maps.Clone(s.units) }

// unitOf names a statistic's unit by its suffix ("" is a count).
func unitOf(name string) string {
	switch {
	case strings.HasSuffix(name, "_in_millis"):
		return "ms"
	case strings.HasSuffix(name, "_in_bytes"):
		return "bytes"
	case strings.HasSuffix(name, ".percent"):
		return "%"
	}
	return ""
}

// Close implements driver.ServerSampler.
func (s *statsSampler) Close(context.Context) error { return s.c.oc.Close() }
