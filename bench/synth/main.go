// Command synth writes a synthetic results file of N runs of realistic shape,
// for measuring how report scales with the number of runs and how large a
// results file grows per run-hour (bench/README.md, "Scale").
//
//	go run ./bench/synth -runs 1000 -out /tmp/synth-1000.db
//
// Runs are -reps repetitions of kv cells on four targets (of different
// speeds) at three client counts and ten read shares, with three op types, a run-level HdrHistogram per op type, and a
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
	reps := flag.Int("reps", 5, "repetitions per cell")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := run(*runs, *reps, *out, *seconds, *rate, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run(n, reps int, out, seconds string, rate int, seed uint64) error {
	if out == "" {
		return fmt.Errorf("-out: name the results file to create")
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("-out %s exists: synth only creates a new file", out)
	}
	if reps < 1 {
		return fmt.Errorf("-reps %d: give at least 1", reps)
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
		r, err := synthRun(rng, pool, i, reps, secs, start)
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
	iv                 result.IntervalOp
	hist               *hdr.Histogram
	p50, p95, p99, max float64
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
			pool[o] = append(pool[o], interval{iv: result.IntervalOp{Name: name, Count: int64(rate), SumUs: sum, Histogram: string(enc)}, hist: h,
				p50: float64(h.ValueAtQuantile(50)), p95: float64(h.ValueAtQuantile(95)), p99: float64(h.ValueAtQuantile(99)), max: float64(h.Max())})
		}
	}
	return pool, nil
}

func synthRun(rng *rand.Rand, pool [][]interval, i, reps, secs int, start time.Time) (*result.Run, error) {
	// Runs i*reps … i*reps+reps-1 are the repetitions of one cell; cells
	// go through the targets, then the client counts, then the read shares.
	cell, rep := i/reps, i%reps
	target := targets[cell%len(targets)]
	c := clients[(cell/len(targets))%len(clients)]
	share := 0.5 + 0.05*float64(cell/(len(targets)*len(clients))%10)
	// Targets differ in speed, so that comparisons have something to find.
	speed := 1 + 0.1*float64(cell%len(targets))
	r := &result.Run{
		Source: "fairbench", StudyName: "synth", StudyHash: "synth",
		CellKey: fmt.Sprintf("%s/kv/c%d/r%.2f", target, c, share), CellIndex: cell,
		Target: target, TargetURL: "sqlite:" + target + ".db", Workload: "kv", Kind: "kv",
		Params: map[string]any{"read_share": share}, Clients: c, Repetition: rep + 1,
		Status: result.StatusOK, StartedAt: start, EndedAt: start.Add(time.Duration(secs) * time.Second),
		Duration: time.Duration(secs) * time.Second, ToolVersion: "synth",
	}
	uses := make([][]int64, len(ops))
	for o := range ops {
		uses[o] = make([]int64, poolSize)
	}
	var sum float64
	var count int64
	for sec := 1; sec <= secs; sec++ {
		pt := result.SeriesPoint{Second: sec, CPU: 0.5}
		var secSum float64
		for o := range ops {
			k := rng.IntN(poolSize)
			in := pool[o][k]
			uses[o][k]++
			iv := in.iv
			iv.Count = int64(float64(iv.Count) * speed)
			iv.SumUs *= speed
			pt.Hists = append(pt.Hists, iv)
			pt.Ops += iv.Count
			secSum += iv.SumUs
			// A point's quantiles: the slowest op type's (the real ones are
			// of the op types merged; reports read them only for charts).
			pt.P50, pt.P95 = max(pt.P50, in.p50), max(pt.P95, in.p95)
			pt.P99, pt.Max = max(pt.P99, in.p99), max(pt.Max, in.max)
		}
		pt.Rate = float64(pt.Ops)
		pt.Mean = secSum / float64(pt.Ops)
		sum += secSum
		count += pt.Ops
		r.Series = append(r.Series, pt)
	}
	// A run's histogram per op type is its seconds' merged: each pooled
	// interval added as many times as the run drew it.
	all := hist.New()
	for o, name := range ops {
		h := hist.New()
		for k, n := range uses[o] {
			for _, b := range pool[o][k].hist.Distribution() {
				if b.Count > 0 {
					if err := h.RecordValues(b.From, int64(float64(b.Count)*speed)*n); err != nil {
						return nil, err
					}
				}
			}
		}
		all.Merge(h)
		enc, err := hist.Encode(h)
		if err != nil {
			return nil, err
		}
		r.Ops = append(r.Ops, result.Op{Name: name, Count: h.TotalCount(), Errors: map[result.ErrorClass]int64{}, Histogram: enc})
	}
	r.Summary = result.Summary{Transactions: count, Throughput: float64(count) / float64(secs),
		LatencyMean: sum / float64(count), LatencyStddev: all.StdDev(), LatencyMin: float64(all.Min()),
		P50: float64(all.ValueAtQuantile(50)), P95: float64(all.ValueAtQuantile(95)), P99: float64(all.ValueAtQuantile(99)),
		Max: float64(all.Max()), ClientCPU: 0.5 * float64(secs), MeasuredSeconds: secs}
	return r, nil
}
