package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

// maxViewNames bounds the distinct counter, gauge and wait names a view
// keeps: a driver names its own, but a summary must stay small whatever the
// server reports. Names beyond it are dropped and said once.
const maxViewNames = 400

// viewSummary folds engine samples into a result.ServerView as they come:
// counters' growth, gauges' sums and maxima, waits' counts overall and per
// bucket of time. Its size depends on the names, not on the samples.
type viewSummary struct {
	interval time.Duration
	first    time.Time
	last     time.Time
	samples  int

	prev     map[string]float64 // each counter's last value
	growth   map[string]float64 // each counter's growth since its first sample
	gaugeSum map[string]float64
	gaugeN   map[string]int
	gaugeMax map[string]float64
	waits    map[string]int64
	active   int64
	dropped  bool

	// buckets: each covers width of the run from the first sample; when all
	// MaxViewBuckets are used, adjacent pairs merge and the width doubles.
	width   time.Duration
	buckets []map[string]int64
}

func newViewSummary(interval time.Duration) *viewSummary {
	return &viewSummary{
		interval: interval, width: interval,
		prev: map[string]float64{}, growth: map[string]float64{},
		gaugeSum: map[string]float64{}, gaugeN: map[string]int{}, gaugeMax: map[string]float64{},
		waits: map[string]int64{},
	}
}

// room says whether a new name may be kept in m.
func room[V any](v *viewSummary, m map[string]V, name string) bool {
	if _, ok := m[name]; ok {
		return true
	}
	if len(m) >= maxViewNames {
		v.dropped = true
		return false
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// add folds one sample in.
func (v *viewSummary) add(s result.EngineSample) {
	if s.At.IsZero() {
		s.At = time.Now()
	}
	if v.samples == 0 {
		v.first = s.At
	}
	v.samples++
	v.last = s.At
	for name, x := range s.Counters {
		if !finite(x) || !room(v, v.prev, name) {
			continue
		}
		if p, seen := v.prev[name]; seen {
			d := x - p
			if d < 0 { // the counter was reset: it grew by x since
				d = x
			}
			v.growth[name] += d
		} else {
			v.growth[name] += 0
		}
		v.prev[name] = x
	}
	for name, x := range s.Gauges {
		if !finite(x) || !room(v, v.gaugeSum, name) {
			continue
		}
		v.gaugeSum[name] += x
		if n := v.gaugeN[name]; n == 0 || x > v.gaugeMax[name] {
			v.gaugeMax[name] = x
		}
		v.gaugeN[name]++
	}
	var b map[string]int64
	for name, n := range s.Waits {
		if n <= 0 || !room(v, v.waits, name) {
			continue
		}
		if b == nil {
			b = v.bucket(s.At)
		}
		v.waits[name] += int64(n)
		v.active += int64(n)
		b[name] += int64(n)
	}
}

// bucket returns the bucket the time at falls in, merging buckets when at
// is beyond the last one the bound allows.
func (v *viewSummary) bucket(at time.Time) map[string]int64 {
	if v.width <= 0 {
		v.width = time.Second
	}
	off := max(at.Sub(v.first), 0)
	i := int(off / v.width)
	for i >= result.MaxViewBuckets {
		merged := make([]map[string]int64, 0, (len(v.buckets)+1)/2)
		for j := 0; j < len(v.buckets); j += 2 {
			m := v.buckets[j]
			if j+1 < len(v.buckets) {
				for k, n := range v.buckets[j+1] {
					m[k] += n
				}
			}
			merged = append(merged, m)
		}
		v.buckets = merged
		v.width *= 2
		i = int(off / v.width)
	}
	for len(v.buckets) <= i {
		v.buckets = append(v.buckets, map[string]int64{})
	}
	return v.buckets[i]
}

// view is the summary so far, with the units the driver names (asked at
// the end: a driver may learn its names as it samples).
func (v *viewSummary) view(units result.EngineMetricUnit) *result.ServerView {
	out := &result.ServerView{Interval: v.interval, Samples: v.samples, Active: v.active}
	secs := v.last.Sub(v.first).Seconds()
	out.Seconds = secs
	for _, name := range sortedNames(v.growth) {
		c := result.ViewCounter{Name: name, Unit: units[name], Delta: v.growth[name]}
		if secs > 0 {
			c.PerSecond = c.Delta / secs
		}
		out.Counters = append(out.Counters, c)
	}
	for _, name := range sortedNames(v.gaugeSum) {
		out.Gauges = append(out.Gauges, result.ViewGauge{Name: name, Unit: units[name],
			Mean: v.gaugeSum[name] / float64(v.gaugeN[name]), Max: v.gaugeMax[name]})
	}
	for name, n := range v.waits {
		out.Waits = append(out.Waits, result.ViewWait{Name: name, Samples: n})
	}
	sort.Slice(out.Waits, func(i, j int) bool {
		a, b := out.Waits[i], out.Waits[j]
		return a.Samples > b.Samples || a.Samples == b.Samples && a.Name < b.Name
	})
	for i, b := range v.buckets {
		from := time.Duration(i) * v.width
		out.Buckets = append(out.Buckets, result.ViewBucket{From: from.Seconds(), To: (from + v.width).Seconds(), Waits: b})
	}
	if v.dropped {
		out.Unavailable = append(out.Unavailable, fmt.Sprintf("names beyond the first %d of a kind were not kept", maxViewNames))
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// DefaultServerViewInterval is the time between two samples of a target's
// server view when the study does not say (bench/serverview.sh measured its
// cost).
const DefaultServerViewInterval = time.Second

// serverView samples one target's server view on its own goroutine while
// the measured phase runs.
type serverView struct {
	smp      driver.ServerSampler
	interval time.Duration
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	finished bool
	mu       sync.Mutex
	sum      *viewSummary
	err      string
}

// openServerView opens the sampler of the cell's client when its driver has
// one and the study did not turn it off; nil otherwise. Failing to open is
// written to out and the run goes on without it.
func (m *executor) openServerView(ctx context.Context) *serverView {
	interval := m.cell.Target.ServerViewInterval(DefaultServerViewInterval)
	viewer, ok := m.client.(driver.ServerViewer)
	if !ok || interval <= 0 || m.noServerCounts {
		return nil
	}
	smp, err := viewer.ServerView(ctx)
	if err != nil {
		msg := redact.Scrub(err.Error())
		fmt.Fprintf(m.out, "  server view: %s (continuing without it)\n", msg)
		m.run.ServerView = &result.ServerView{Interval: interval, Error: msg}
		return nil
	}
	return &serverView{smp: smp, interval: interval, sum: newViewSummary(interval)}
}

// start samples at once and then every interval until finish; a sample
// never waits for the workload, nor the workload for a sample.
func (v *serverView) start(ctx context.Context) {
	if v == nil {
		return
	}
	v.stop, v.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(v.done)
		ticker := time.NewTicker(v.interval)
		defer ticker.Stop()
		for {
			if !v.sample(ctx) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-v.stop:
				v.sample(ctx) // the end of the phase, so that counters cover all of it
				return
			case <-ticker.C:
			}
		}
	}()
}

// sample takes one sample, bounded by the interval (a slow server's view
// must not pile samples up), and says whether to go on.
func (v *serverView) sample(ctx context.Context) bool {
	sctx, cancel := context.WithTimeout(ctx, max(v.interval, time.Second))
	defer cancel()
	s, err := v.smp.Sample(sctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			v.err = "sampling stopped: " + redact.Scrub(err.Error())
		}
		return false
	}
	v.sum.add(s)
	return true
}

// signal asks the sampler for its last sample without waiting for it: the
// measured phase ended, and the clients stop meanwhile.
func (v *serverView) signal() {
	if v != nil && v.stop != nil {
		v.stopOnce.Do(func() { close(v.stop) })
	}
}

// finish stops sampling, closes the sampler and stores the summary in run.
// It returns once the sampler's goroutine has ended.
func (v *serverView) finish(ctx context.Context, run *result.Run, out io.Writer) {
	if v == nil || v.finished {
		return
	}
	v.finished = true
	if v.stop == nil { // the measured phase never started
		_ = v.smp.Close(context.WithoutCancel(ctx))
		return
	}
	v.signal()
	<-v.done
	v.mu.Lock()
	view := v.sum.view(v.smp.Units())
	view.Error = v.err
	v.mu.Unlock()
	view.Unavailable = append(v.smp.Unavailable(), view.Unavailable...)
	if err := v.smp.Close(context.WithoutCancel(ctx)); err != nil && view.Error == "" {
		view.Error = "closing the sampler: " + redact.Scrub(err.Error())
	}
	if view.Error != "" {
		fmt.Fprintf(out, "  server view: %s\n", view.Error)
	}
	run.ServerView = view
}
