// Command synth writes a synthetic results file of N runs of realistic shape,
// for measuring how report scales with the number of runs and how large a
// results file grows per run-hour (bench/README.md, "Scale").
//
//	go run ./bench/synth -runs 1000 -out /tmp/synth-1000.db
//
// Each run is a kv cell on one of four targets at one of three client
// counts, with three op types, a run-level HdrHistogram per op type, and a
// per-second series of -seconds points (a range "60-600" draws each run's
// length uniformly) whose points carry an interval histogram per op type, as
// a measured run stores them. Interval histograms are drawn from a pool
// recorded once, so that writing a large file does not take as long as
// measuring it; their encoded size is what a real second's is.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

var (
	targets = []string{"alpha", "beta", "gamma", "delta"}
	clients = []int{8, 32, 128}
	ops     = []string{"read", "update", "insert"}
)

// poolSize interval histograms per op type are recorded and reused.
const poolSize = 32

func main() {
	runs := flag.Int("runs", 100, "number of runs to write")
	out := flag.String("out", "", "results file to create (must not exist)")
	seconds := flag.String("seconds", "60-600", "series length of each run in seconds: N, or LO-HI drawn uniformly")
	rate := flag.Int("rate", 2000, "operations per second per op type in each interval histogram")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := run(*runs, *out, *seconds, *rate, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run(n int, out, seconds string, rate int, seed uint64) error {
	if out == "" {
		return fmt.Errorf("-out: name the results file to create")
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("-out %s exists: synth only creates a new file", out)
	}
	lo, hi, err := parseRange(seconds)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pool, err := intervalPool(rng, rate)
	if err != nil {
		return err
	}
	s, err := store.Open(out)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var total int
	for i := range n {
		secs := lo + rng.IntN(hi-lo+1)
		r, err := synthRun(rng, pool, i, secs, rate, start)
		if err != nil {
			return err
		}
		if _, err := s.AppendRun(r); err != nil {
			return err
		}
		start = r.EndedAt.Add(5 * time.Second)
		total += secs
	}
	fmt.Printf("synth: %d runs, %d series seconds (%.2f run-hours) -> %s\n", n, total, float64(total)/3600, out)
	return nil
}

func parseRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if lo, err = strconv.Atoi(a); err == nil {
		hi = lo
		if isRange {
			hi, err = strconv.Atoi(b)
		}
	}
	if err != nil || lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("-seconds %q: give N or LO-HI, whole seconds, 1 <= LO <= HI", s)
	}
	return lo, hi, nil
}

// latency draws a log-normal latency around a median of median.
func latency(rng *rand.Rand, median time.Duration) time.Duration {
	return time.Duration(float64(median) * math.Exp(0.6*rng.NormFloat64()))
}

var medians = []time.Duration{300 * time.Microsecond, 900 * time.Microsecond, 1200 * time.Microsecond}

// interval is one pooled second of one op type: its encoded histogram and
// the numbers a point reads from it.
type interval struct {
	iv   result.IntervalOp
	hist *hdr.Histogram
}

func intervalPool(rng *rand.Rand, rate int) ([][]interval, error) {
	pool := make([][]interval, len(ops))
	for o, name := range ops {
		for range poolSize {
			h := hist.New()
			var sum float64
			for range rate {
				us := latency(rng, medians[o]).Microseconds()
				h.RecordValue(max(us, 1))
				sum += float64(us)
			}
			enc, err := hist.Encode(h)
			if err != nil {
				return nil, err
			}
			pool[o] = append(pool[o], interval{iv: result.IntervalOp{Name: name, Count: int64(rate), SumUs: sum, Histogram: string(enc)}, hist: h})
		}
	}
	return pool, nil
}

func synthRun(rng *rand.Rand, pool [][]interval, i, secs, rate int, start time.Time) (*result.Run, error) {
	target := targets[i%len(targets)]
	c := clients[(i/len(targets))%len(clients)]
	r := &result.Run{
		Source: "fairbench", StudyName: "synth", StudyHash: "synth",
		CellKey: fmt.Sprintf("%s/kv/c%d", target, c), CellIndex: i % (len(targets) * len(clients)),
		Target: target, TargetURL: "sqlite:" + target + ".db", Workload: "kv", Kind: "kv",
		Params: map[string]any{"read_share": 0.8}, Clients: c, Repetition: i/(len(targets)*len(clients)) + 1,
		Status: result.StatusOK, StartedAt: start, EndedAt: start.Add(time.Duration(secs) * time.Second),
		Duration: time.Duration(secs) * time.Second, ToolVersion: "synth",
	}
	runHists := make([]*hdr.Histogram, len(ops))
	for o := range ops {
		runHists[o] = hist.New()
	}
	all := hist.New()
	for sec := 1; sec <= secs; sec++ {
		pt := result.SeriesPoint{Second: sec, CPU: 0.5}
		second := hist.New()
		var sum float64
		for o := range ops {
			in := pool[o][rng.IntN(poolSize)]
			pt.Hists = append(pt.Hists, in.iv)
			pt.Ops += in.iv.Count
			sum += in.iv.SumUs
			second.Merge(in.hist)
			// The run's histogram is each second's merged: exact, and
			// cheaper than recording every value again.
			runHists[o].Merge(in.hist)
		}
		all.Merge(second)
		pt.Rate = float64(pt.Ops)
		pt.Mean = sum / float64(pt.Ops)
		pt.P50, pt.P95, pt.P99, pt.Max = float64(second.ValueAtQuantile(50)), float64(second.ValueAtQuantile(95)),
			float64(second.ValueAtQuantile(99)), float64(second.Max())
		r.Series = append(r.Series, pt)
	}
	for o, name := range ops {
		enc, err := hist.Encode(runHists[o])
		if err != nil {
			return nil, err
		}
		r.Ops = append(r.Ops, result.Op{Name: name, Count: runHists[o].TotalCount(), Errors: map[result.ErrorClass]int64{}, Histogram: enc})
	}
	total := all.TotalCount()
	r.Summary = result.Summary{Transactions: total, Throughput: float64(total) / float64(secs),
		LatencyMean: all.Mean(), LatencyStddev: all.StdDev(), LatencyMin: float64(all.Min()),
		P50: float64(all.ValueAtQuantile(50)), P95: float64(all.ValueAtQuantile(95)), P99: float64(all.ValueAtQuantile(99)),
		Max: float64(all.Max()), ClientCPU: 0.5 * float64(secs), MeasuredSeconds: secs}
	return r, nil
}
