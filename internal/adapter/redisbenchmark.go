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

// redisBenchmarkParse is the state of a redis-benchmark output being read:
// the test whose block is being read, and the runs of the tests before it.
type redisBenchmarkParse struct {
	l              *lines
	runs           []*result.Run
	cur            *result.Run
	pts            []bucket
	inDist         bool // within the latency distribution
	sawSummaryHead bool
	complete       bool // cur's summary has been read
	csv            bool // the output is --csv's
}

// redisBenchmarkRules are the lines read anywhere in the output, trimmed, in
// the order they are tried.
var redisBenchmarkRules = []lineRule[*redisBenchmarkParse]{
	{when: func(_ *redisBenchmarkParse, t string) bool { return t == "" },
		handle: func(p *redisBenchmarkParse, _ []string) error { p.inDist = false; return nil }},
	{re: redisProgress, handle: skipLine[*redisBenchmarkParse]},
	{exact: redisCSVHead, handle: func(p *redisBenchmarkParse, _ []string) error { p.csv = true; return nil }},
	{re: redisQuiet, handle: (*redisBenchmarkParse).quiet},
	{re: redisTitle, handle: (*redisBenchmarkParse).title},
}

// redisTestRules are the lines of a test's block, trimmed, in the order they
// are tried.
var redisTestRules = []lineRule[*redisBenchmarkParse]{
	{re: redisCompleted, handle: (*redisBenchmarkParse).completed},
	{re: redisClients, handle: func(p *redisBenchmarkParse, m []string) error {
		n, _ := p.l.integer(m[1], "clients")
		p.cur.Clients = int(n)
		return nil
	}},
	{re: redisPayload, handle: func(p *redisBenchmarkParse, m []string) error {
		n, _ := p.l.integer(m[1], "payload")
		p.cur.Params[kvparams.DataSize] = n
		return nil
	}},
	{when: func(_ *redisBenchmarkParse, t string) bool {
		return strings.HasPrefix(t, "keep alive: ") || strings.HasPrefix(t, "host configuration ") ||
			strings.HasPrefix(t, "multi-thread: ") || strings.HasPrefix(t, "threads: ")
	}, handle: (*redisBenchmarkParse).setting},
	{when: func(_ *redisBenchmarkParse, t string) bool {
		return t == "Latency by percentile distribution:" || t == "Cumulative distribution of latencies:"
	}, handle: func(p *redisBenchmarkParse, _ []string) error { p.inDist = true; return nil }},
	{when: func(p *redisBenchmarkParse, _ string) bool { return p.inDist }, handle: (*redisBenchmarkParse).distribution},
	{exact: "Summary:", handle: skipLine[*redisBenchmarkParse]},
	{exact: "latency summary (msec):", handle: skipLine[*redisBenchmarkParse]},
	{re: redisThroughpt, handle: func(p *redisBenchmarkParse, m []string) error {
		p.cur.Summary.Throughput, _ = p.l.num(m[1], "throughput")
		return nil
	}},
	{re: redisSumHead, handle: func(p *redisBenchmarkParse, _ []string) error { p.sawSummaryHead = true; return nil }},
	{re: redisSumVals, when: func(p *redisBenchmarkParse, _ string) bool { return p.sawSummaryHead }, handle: (*redisBenchmarkParse).summary},
}

func parseRedisBenchmarkLines(l *lines) ([]*result.Run, error) {
	p := &redisBenchmarkParse{l: l, complete: true}
	for t := range l.trimmed() {
		read, err := applyRules(redisBenchmarkRules, p, t)
		switch {
		case err != nil:
			return nil, err
		case p.csv:
			return parseRedisCSV(l)
		case read:
			continue
		case p.cur == nil:
			return nil, l.errorf("unexpected line before the first test in redis-benchmark output")
		}
		read, err = applyRules(redisTestRules, p, t)
		if err != nil {
			return nil, err
		}
		if !read {
			return nil, l.errorf("unexpected line in redis-benchmark output")
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if len(p.runs) == 0 {
		return nil, l.missing("redis-benchmark test result")
	}
	return p.runs, nil
}

// finish ends the block of the test being read: its run.
func (p *redisBenchmarkParse) finish() error {
	cur := p.cur
	if cur == nil {
		return nil
	}
	if !p.complete {
		return p.l.missing("summary of test " + cur.Params[kvparams.Command].(string))
	}
	if len(p.pts) > 0 {
		h := histFromCumulative(p.pts)
		cur.Ops[0].Histogram = encode(h)
		cur.Deviations = append(cur.Deviations, "latency histogram rebuilt from the distribution redis-benchmark printed: latencies are rounded up to the next printed point")
	}
	p.runs = append(p.runs, cur)
	p.cur, p.pts = nil, nil
	return nil
}

// quiet reads a line of -q: a test's whole result.
func (p *redisBenchmarkParse) quiet(m []string) error {
	r := newRedisRun(m[1])
	rps, _ := p.l.num(m[2], "requests per second")
	p50, _ := p.l.num(m[3], "p50")
	r.Summary.Throughput = rps
	r.Summary.P50 = p50 * 1000
	r.Ops = []result.Op{{Name: m[1]}}
	r.Deviations = append(r.Deviations, "redis-benchmark -q prints only throughput and p50: no request count, clients or distribution (give --clients on import)")
	p.runs = append(p.runs, r)
	return nil
}

// title starts a test's block.
func (p *redisBenchmarkParse) title(m []string) error {
	if err := p.finish(); err != nil {
		return err
	}
	p.cur = newRedisRun(m[1])
	p.cur.Ops = []result.Op{{Name: m[1]}}
	p.complete = false
	p.sawSummaryHead = false
	return nil
}

func (p *redisBenchmarkParse) completed(m []string) error {
	s := &p.cur.Summary
	s.Transactions, _ = p.l.integer(m[1], "requests")
	secs, _ := p.l.num(m[2], "seconds")
	p.cur.Duration = time.Duration(secs * float64(time.Second))
	p.cur.Ops[0].Count = s.Transactions
	return nil
}

// setting keeps a line of the test's configuration in the environment.
func (p *redisBenchmarkParse) setting(m []string) error {
	k, v, _ := strings.Cut(m[0], ":")
	if p.cur.Env.Extra == nil {
		p.cur.Env.Extra = map[string]any{}
	}
	p.cur.Env.Extra[k] = strings.TrimSpace(v)
	return nil
}

func (p *redisBenchmarkParse) distribution(line []string) error {
	m := match(redisPctLine, line[0])
	if m == nil {
		return p.l.errorf("unreadable latency distribution line")
	}
	ms, _ := p.l.num(m[2], "latency")
	n, _ := p.l.integer(m[3], "cumulative count")
	p.pts = append(p.pts, bucket{ms * 1000, n})
	return nil
}

// summary reads the latency summary's values, which complete the test.
func (p *redisBenchmarkParse) summary(m []string) error {
	s := &p.cur.Summary
	var v [6]float64
	for i := range v {
		v[i], _ = p.l.num(m[i+1], "latency summary")
		v[i] *= 1000
	}
	s.LatencyMean, s.LatencyMin, s.P50, s.P95, s.P99, s.Max = v[0], v[1], v[2], v[3], v[4], v[5]
	p.complete = s.Throughput > 0 && s.Transactions > 0
	return nil
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
