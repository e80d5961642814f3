package ycsb

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// statusInterval is YCSB's status.interval default: -s prints a status line
// every 10 seconds.
const statusInterval = "10"

// CommandLine implements workload.CommandLiner: bin/ycsb's command line.
// YCSB's client options are single-dash long options (-threads 4, -target
// 1000, -s), which fairbench reads as its flags of the same meaning; YCSB's
// -target is the rate (fairbench's --target is the URL, so -target with one
// dash is YCSB's and --target with two is fairbench's). bin/ycsb's load and
// run commands (and the client's -load and -t) choose the action. YCSB's
// database binding (bin/ycsb load redis …) is the --target URL here.
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Tools:   []string{"ycsb", "bin/ycsb"},
		Rewrite: rewritePeerLine,
		Aliases: map[string]string{
			"-threads": "--threads",
			"-target":  "--rate",
			"-s":       "--status=" + statusInterval,
			"-load":    "load",
			"-t":       "run",
		},
		Words: map[string]workload.Word{
			"load": {Action: workload.ActionLoad},
			"run":  {Action: workload.ActionRun},
		},
		Targets: "SQL (postgres://, mysql:// for MySQL and MariaDB, sqlite:FILE), Redis and Valkey (redis://, valkey://), " +
			"embedded KV files (bbolt:FILE, pebble:DIR) and MongoDB-compatible servers (mongodb://, FerretDB too)",
		Examples: []string{
			"fairbench run --workload ycsb --target redis://127.0.0.1:6379/0 load -P workloads/workloada -p recordcount=100000",
			"fairbench run --workload ycsb --target postgres://bench@127.0.0.1/bench run --preset b -threads 16 -target 5000 -s",
			"fairbench run --workload ycsb --target mongodb://127.0.0.1:27017/ycsb -p operationcount=1000000 -p requestdistribution=uniform -threads 8",
		},
	}
}

// statusLine prints a progress reading as YCSB's StatusThread prints its
// status line on stderr with -s: the date, the seconds since the start, the
// operations completed so far, the current rate, and per operation type
// the interval's count and latencies in µs as its HdrHistogram
// measurements summarise them ([READ: Count=…, Max=…, Min=…, Avg=…, 90=…,
// 99=…, 99.9=…, 99.99=…]). YCSB's "est completion in …" is left out.
func statusLine(w io.Writer, t kinds.Tick, _ kinds.Printing) {
	ms := t.Now.Nanosecond() / 1e6
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%03d %d sec: ", t.Now.Format("2006-01-02 15:04:05"), ms, int64(t.Elapsed/1e9))
	total, current := t.Point.Ops, float64(t.Point.Ops)
	if n, ok := t.Counts[ycsbparams.Operations]; ok {
		total, current = n, float64(n-t.Previous[ycsbparams.Operations])
	}
	fmt.Fprintf(&b, "%d operations; ", total)
	if total != 0 && t.Window > 0 {
		fmt.Fprintf(&b, "%s current ops/sec; ", decimal(current/t.Window.Seconds()))
	}
	for _, op := range t.Point.Hists {
		h, err := hist.Decode([]byte(op.Histogram))
		if err != nil || h == nil || h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(&b, "[%s: Count=%d, Max=%d, Min=%d, Avg=%s, 90=%d, 99=%d, 99.9=%d, 99.99=%d] ",
			op.Name, h.TotalCount(), h.Max(), h.Min(), decimal(h.Mean()),
			h.ValueAtQuantile(90), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.ValueAtQuantile(99.99))
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
}

// decimal formats x as Java's DecimalFormat("#.##"): at most two decimals,
// no trailing zeros.
func decimal(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}
