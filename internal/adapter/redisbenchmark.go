package adapter

import (
	"regexp"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/result"
)

// redis-benchmark (Redis 6.2 / 7): the default text with its percentile and
// cumulative distributions, -q, and --csv. Each test (SET, GET, ...) is a run
// of its own: tests run one after another, so their throughputs are separate
// measurements, not parts of one. Pipelining (-P) is not printed by the tool
// and comes from import's --pipeline.

// redisBenchmarkTool is redis-benchmark as registered, which the package's tests name.
var redisBenchmarkTool *Tool

func init() {
	redisBenchmarkTool = Register(Tool{
		Name:        "redis-benchmark",
		Kind:        "kv",
		DetectOrder: 40,
		Formats:     "redis-benchmark (default, -q, --csv)",
		Build:       buildRedisBenchmark,
		Writes:      redisBenchmarkWrites,
		Install:     "apt-get install redis-tools",
		Detect:      detectRedisBenchmark,
		Parse:       parseRedisBenchmark,
		ParseReader: streamed(parseRedisBenchmarkLines),
		ImportFlags: kvImportFlags,
	})
}

// kvImportFlags fill in what the outputs of the kv tools do not print
// (redis-benchmark's and memtier_benchmark's text), under the options'
// names in both tools.
var kvImportFlags = []ImportFlag{
	paramFlag("pipeline", "P", kvparams.Specs(), kvparams.Pipeline, "pipeline depth: requests per round trip (-P, --pipeline)"),
	paramFlag("data-size", "d", kvparams.Specs(), kvparams.DataSize, "value size in bytes (-d, --data-size)"),
}

var (
	redisDetectRe  = regexp.MustCompile(`(?m)(^====== .+ ======$|^"test","rps","avg_latency_ms"|^\S.*: [\d.]+ requests per second, p50=[\d.]+ msec$|: rps=[\d.]+ \(overall: )`)
	redisTitle     = regexp.MustCompile(`^====== (.+) ======$`)
	redisCompleted = regexp.MustCompile(`^(\d+) requests completed in ([\d.]+) seconds$`)
	redisClients   = regexp.MustCompile(`^(\d+) parallel clients$`)
	redisPayload   = regexp.MustCompile(`^(\d+) bytes payload$`)
	redisPctLine   = regexp.MustCompile(`^([\d.]+)% <= ([\d.]+) milliseconds \(cumulative count (\d+)\)$`)
	redisThroughpt = regexp.MustCompile(`^throughput summary: ([\d.]+) requests per second$`)
	redisQuiet     = regexp.MustCompile(`^(\S.*): ([\d.]+) requests per second, p50=([\d.]+) msec$`)
	redisProgress  = regexp.MustCompile(`^\S.*: rps=.*\(overall: .*\) avg_msec=`)
	redisSumHead   = regexp.MustCompile(`^avg\s+min\s+p50\s+p95\s+p99\s+max$`)
	redisSumVals   = regexp.MustCompile(`^([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`)
	redisCSVHead   = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"`
)

func detectRedisBenchmark(text string) bool { return redisDetectRe.MatchString(head(text, 64<<10)) }

func newRedisRun(test string) *result.Run {
	return &result.Run{Workload: "redis-benchmark", Kind: "kv", Params: map[string]any{kvparams.Command: test, kvparams.PipelineMode: kvparams.Batch}}
}

func parseRedisBenchmark(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseRedisBenchmarkLines)
}

func parseRedisBenchmarkLines(l *lines) ([]*result.Run, error) {
	var runs []*result.Run
	var cur *result.Run
	var pts []bucket
	inDist, sawSummaryHead, complete := false, false, true
	finish := func() error {
		if cur == nil {
			return nil
		}
		if !complete {
			return l.missing("summary of test " + cur.Params[kvparams.Command].(string))
		}
		if len(pts) > 0 {
			h := histFromCumulative(pts)
			cur.Ops[0].Histogram = encode(h)
			cur.Deviations = append(cur.Deviations, "latency histogram rebuilt from the distribution redis-benchmark printed: latencies are rounded up to the next printed point")
		}
		runs = append(runs, cur)
		cur, pts = nil, nil
		return nil
	}
	for t := range l.trimmed() {
		if t == "" {
			inDist = false
			continue
		}
		if redisProgress.MatchString(t) {
			continue
		}
		if t == redisCSVHead {
			return parseRedisCSV(l)
		}
		if m := match(redisQuiet, t); m != nil {
			r := newRedisRun(m[1])
			rps, _ := l.num(m[2], "requests per second")
			p50, _ := l.num(m[3], "p50")
			r.Summary.Throughput = rps
			r.Summary.P50 = p50 * 1000
			r.Ops = []result.Op{{Name: m[1]}}
			r.Deviations = append(r.Deviations, "redis-benchmark -q prints only throughput and p50: no request count, clients or distribution (give --clients on import)")
			runs = append(runs, r)
			continue
		}
		if m := match(redisTitle, t); m != nil {
			if err := finish(); err != nil {
				return nil, err
			}
			cur = newRedisRun(m[1])
			cur.Ops = []result.Op{{Name: m[1]}}
			complete = false
			sawSummaryHead = false
			continue
		}
		if cur == nil {
			return nil, l.errorf("unexpected line before the first test in redis-benchmark output")
		}
		s := &cur.Summary
		switch {
		case redisCompleted.MatchString(t):
			m := match(redisCompleted, t)
			s.Transactions, _ = l.integer(m[1], "requests")
			secs, _ := l.num(m[2], "seconds")
			cur.Duration = time.Duration(secs * float64(time.Second))
			cur.Ops[0].Count = s.Transactions
		case redisClients.MatchString(t):
			n, _ := l.integer(match(redisClients, t)[1], "clients")
			cur.Clients = int(n)
		case redisPayload.MatchString(t):
			n, _ := l.integer(match(redisPayload, t)[1], "payload")
			cur.Params[kvparams.DataSize] = n
		case strings.HasPrefix(t, "keep alive: "), strings.HasPrefix(t, "host configuration "),
			strings.HasPrefix(t, "multi-thread: "), strings.HasPrefix(t, "threads: "):
			k, v, _ := strings.Cut(t, ":")
			if cur.Env.Extra == nil {
				cur.Env.Extra = map[string]any{}
			}
			cur.Env.Extra[k] = strings.TrimSpace(v)
		case t == "Latency by percentile distribution:", t == "Cumulative distribution of latencies:":
			inDist = true
		case inDist:
			m := match(redisPctLine, t)
			if m == nil {
				return nil, l.errorf("unreadable latency distribution line")
			}
			ms, _ := l.num(m[2], "latency")
			n, _ := l.integer(m[3], "cumulative count")
			pts = append(pts, bucket{ms * 1000, n})
		case t == "Summary:", t == "latency summary (msec):":
		case redisThroughpt.MatchString(t):
			s.Throughput, _ = l.num(match(redisThroughpt, t)[1], "throughput")
		case redisSumHead.MatchString(t):
			sawSummaryHead = true
		case sawSummaryHead && redisSumVals.MatchString(t):
			m := match(redisSumVals, t)
			var v [6]float64
			for i := range v {
				v[i], _ = l.num(m[i+1], "latency summary")
				v[i] *= 1000
			}
			s.LatencyMean, s.LatencyMin, s.P50, s.P95, s.P99, s.Max = v[0], v[1], v[2], v[3], v[4], v[5]
			complete = s.Throughput > 0 && s.Transactions > 0
		default:
			return nil, l.errorf("unexpected line in redis-benchmark output")
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, l.missing("redis-benchmark test result")
	}
	return runs, nil
}

// parseRedisCSV reads --csv: one row per test after the header.
func parseRedisCSV(l *lines) ([]*result.Run, error) {
	var runs []*result.Run
	for t := range l.trimmed() {
		if t == "" {
			continue
		}
		f := strings.Split(t, ",")
		if len(f) != 8 {
			return nil, l.errorf("redis-benchmark CSV row with %d fields, want 8", len(f))
		}
		for i := range f {
			f[i] = strings.Trim(f[i], `"`)
		}
		r := newRedisRun(f[0])
		var v [7]float64
		for i := range v {
			x, err := l.num(f[i+1], "CSV field")
			if err != nil {
				return nil, err
			}
			v[i] = x
		}
		s := &r.Summary
		s.Throughput = v[0]
		s.LatencyMean, s.LatencyMin, s.P50, s.P95, s.P99, s.Max = v[1]*1000, v[2]*1000, v[3]*1000, v[4]*1000, v[5]*1000, v[6]*1000
		r.Ops = []result.Op{{Name: f[0]}}
		r.Deviations = append(r.Deviations, "redis-benchmark --csv prints no request count, clients or distribution: percentiles are the tool's, no histogram (give --clients on import)")
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, l.missing("CSV row")
	}
	return runs, nil
}
