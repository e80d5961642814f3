package oltp

import (
	"fmt"
	"io"
	"math"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// Printing options of the oltp kind (workload.Flag.Print), sysbench's.
const (
	// printPercentile is sysbench's --percentile: the latency percentile the
	// interim lines and the summary print (1–100; 0: none).
	printPercentile = "percentile"
	// printHistogram is sysbench's --histogram: the latency histogram
	// printed before the summary.
	printHistogram = "histogram"
)

// defaultPercentile is sysbench 1.0's --percentile default.
const defaultPercentile = 95

var (
	percentileSpec = params.Spec{Name: printPercentile, Kind: params.Int, Default: int64(defaultPercentile),
		Min: params.MinOf(0), Max: params.MaxOf(100),
		Help: "the latency percentile the summary and the interim lines print, 1–100 (0: none)"}
	histogramSpec = params.Spec{Name: printHistogram, Kind: params.Bool, Default: false,
		Help: "print the latency histogram (sysbench's, in ms) before the summary"}
)

// CommandLine implements workload.CommandLiner: sysbench 1.0's command line,
// `sysbench oltp_read_write [options] prepare|run|cleanup`. The test name
// (oltp_read_write, or its script oltp_read_write.lua) is --mode; prepare
// loads the tables (fairbench load), run runs, cleanup drops them — only
// the tables fairbench's marker says it created, where sysbench's cleanup
// drops whatever sbtest tables are there.
func (Workload) CommandLine() workload.CommandLine {
	words := map[string]workload.Word{
		"prepare": {Action: workload.ActionLoad},
		"run":     {Action: workload.ActionRun},
		"cleanup": {Action: workload.ActionClean},
	}
	for _, m := range oltpparams.Modes {
		w := workload.Word{Args: []string{"--mode=" + m}}
		words["oltp_"+m] = w
		words["oltp_"+m+".lua"] = workload.Word{Args: w.Args, Variant: true}
	}
	return workload.CommandLine{
		Tools:      []string{"sysbench"},
		Connection: sysbenchConnection(),
		Words:      words,
		Targets:    "SQL databases: postgres://, mysql:// (MySQL and MariaDB), sqlite:FILE",
		Examples: []string{
			"fairbench run --workload oltp --target mysql://sbtest@127.0.0.1/sbtest oltp_read_write --tables 4 --table-size 100000 prepare",
			"fairbench run --workload oltp --target mysql://sbtest@127.0.0.1/sbtest oltp_read_write --threads 8 --time 60 --warmup-time 10 --report-interval 1 --histogram --percentile 99 run",
			"fairbench run --workload oltp --target postgres://bench@127.0.0.1/bench oltp_read_only --events 100000 --time 600 run",
		},
	}
}

// sysbenchConnection is sysbench's --db-driver and its drivers' connection
// options, with sysbench's defaults (localhost, user and database sbtest);
// --db-driver defaults to mysql, as sysbench's does.
func sysbenchConnection() *workload.Connection {
	c := &workload.Connection{
		Scheme:     "mysql",
		SchemeFlag: "db-driver",
		Schemes:    map[string]string{"mysql": "mysql", "pgsql": "postgres"},
		Defaults:   map[string]map[workload.URLPart]string{},
	}
	for _, d := range []struct{ prefix, scheme, port, tool string }{
		{"mysql", "mysql", "3306", "MySQL"}, {"pgsql", "postgres", "5432", "PostgreSQL"},
	} {
		c.Flags = append(c.Flags,
			workload.ConnFlag{Name: d.prefix + "-host", Part: workload.PartHost, Scheme: d.scheme, Usage: d.tool + " server host (sysbench --" + d.prefix + "-host; default localhost)"},
			workload.ConnFlag{Name: d.prefix + "-port", Part: workload.PartPort, Scheme: d.scheme, Usage: d.tool + " server port (default " + d.port + ")"},
			workload.ConnFlag{Name: d.prefix + "-user", Part: workload.PartUser, Scheme: d.scheme, Usage: d.tool + " user (default sbtest)"},
			workload.ConnFlag{Name: d.prefix + "-password", Part: workload.PartPassword, Scheme: d.scheme, Usage: d.tool + " password"},
			workload.ConnFlag{Name: d.prefix + "-db", Part: workload.PartDatabase, Scheme: d.scheme, Usage: d.tool + " database (default sbtest)"})
		c.Defaults[d.scheme] = map[workload.URLPart]string{workload.PartUser: "sbtest", workload.PartDatabase: "sbtest", workload.PartPort: d.port}
	}
	return c
}

// interimLine prints a progress reading as sysbench 1.0 prints its
// intermediate report (--report-interval): threads, transactions and
// queries per second (reads/writes/other), the latency percentile of the
// interval in ms, failed transactions per second (sysbench's errors) and
// reconnects per second.
func interimLine(w io.Writer, t kinds.Tick, p kinds.Printing) {
	secs := t.Window.Seconds()
	if secs <= 0 {
		return
	}
	delta := func(k string) float64 { return float64(t.Counts[k]-t.Previous[k]) / secs }
	r, wr, o := delta("queries_read"), delta("queries_write"), delta("queries_other")
	var reconnects int64
	all := hist.New()
	for _, op := range t.Point.Hists {
		reconnects += op.Errors[result.ErrConnection]
		if h, err := hist.Decode([]byte(op.Histogram)); err == nil && h != nil {
			all.Merge(h)
		}
	}
	pct := percentileOf(p)
	lat := ""
	if pct > 0 {
		lat = fmt.Sprintf(" lat (ms,%d%%): %4.2f", pct, float64(all.ValueAtQuantile(float64(pct)))/1000)
	}
	fmt.Fprintf(w, "[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f)%s err/s: %4.2f reconn/s: %4.2f\n",
		math.Round(t.Elapsed.Seconds()), t.Clients, float64(t.Point.Ops)/secs, r+wr+o, r, wr, o, lat,
		float64(t.Point.Errors)/secs, float64(reconnects)/secs)
}

// percentileOf is the --percentile a printer was given, sysbench's 95
// without one.
func percentileOf(p kinds.Printing) int {
	if v, ok := p[printPercentile].(int64); ok {
		return int(v)
	}
	return defaultPercentile
}

// latencyOf is the run's transaction latencies, all op types together.
func latencyOf(r *result.Run) *hdr.Histogram {
	all := hist.New()
	for _, op := range r.Ops {
		if h, err := hist.Decode(op.Histogram); err == nil && h != nil {
			all.Merge(h)
		}
	}
	return all
}

// sysbench's latency histogram: 1024 buckets spaced logarithmically from
// 0.001 ms to 100 000 ms (sb_histogram_init(…, 1024, 0.001, 1e5)).
const (
	histBuckets = 1024
	histMinMS   = 0.001
	histMaxMS   = 1e5
)

// printHistogram prints the run's latencies as sysbench's --histogram
// does: each non-empty bucket's value in ms, a bar of up to 40 stars
// relative to the fullest bucket, and its count.
func printLatencyHistogram(w io.Writer, h *hdr.Histogram) {
	deduct := math.Log(histMinMS)
	mult := float64(histBuckets-1) / (math.Log(histMaxMS) - deduct)
	var counts [histBuckets]int64
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		ms := float64(bar.From+bar.To) / 2 / 1000
		i := 0
		if ms > 0 {
			i = int(math.Floor((math.Log(ms)-deduct)*mult + 0.5))
		}
		i = min(max(i, 0), histBuckets-1)
		counts[i] += bar.Count
	}
	var most int64
	for _, n := range counts {
		most = max(most, n)
	}
	fmt.Fprintln(w, "Latency histogram (values are in milliseconds)")
	fmt.Fprintln(w, "       value  ------------- distribution ------------- count")
	for i, n := range counts {
		if n == 0 {
			continue
		}
		stars := int(math.Floor(float64(n)*40/float64(most) + 0.5))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", math.Exp(float64(i)/mult+deduct), strings.Repeat("*", stars), n)
	}
	fmt.Fprintln(w, " ")
}
