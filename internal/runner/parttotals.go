package runner

// Per-second totals of a cell on several load generators. Each generator
// publishes its latest progress readings in its part (store.PartTick, the
// newest few only); the coordinator, while it waits for the parts, adds up
// the readings of each slot every generator has published and shows the
// sum as the cell's own reading: the per-second line, the live page's
// chart (Watcher.Tick) and the per-second totals of 'k8s run'. Latencies
// come from the generators' interval histograms merged (hist.MergeSeries),
// never from averaged percentiles.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// progressPublisher is a load generator's side: the executor hands it each
// reading (tick, on the runner's goroutine, never blocking), and one
// goroutine writes the newest readings to the part, so that a slow store
// does not hold up the generator's clock.
type progressPublisher struct {
	write func(ctx context.Context, ticks []store.PartTick) error
	mu    sync.Mutex
	ticks []store.PartTick // the newest store.MaxPartTicks readings
	fresh chan struct{}    // one pending signal: a reading came since the last write
	done  chan struct{}
	err   error // the first write the store refused, for one line at the end
}

func publishProgress(ctx context.Context, write func(context.Context, []store.PartTick) error) *progressPublisher {
	p := &progressPublisher{write: write, fresh: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop(ctx)
	return p
}

// tick keeps the reading of slot (the k-th tick period of its phase).
func (p *progressPublisher) tick(slot int, t kinds.Tick) {
	p.mu.Lock()
	p.ticks = append(p.ticks, store.PartTick{Slot: slot, Warmup: t.Warmup, Elapsed: t.Elapsed, Window: t.Window, Point: t.Point})
	if n := len(p.ticks); n > store.MaxPartTicks {
		p.ticks = append(p.ticks[:0], p.ticks[n-store.MaxPartTicks:]...)
	}
	p.mu.Unlock()
	select {
	case p.fresh <- struct{}{}:
	default:
	}
}

func (p *progressPublisher) loop(ctx context.Context) {
	defer close(p.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.fresh:
		}
		p.mu.Lock()
		ticks := append([]store.PartTick(nil), p.ticks...)
		p.mu.Unlock()
		if err := p.write(ctx, ticks); err != nil && p.err == nil && ctx.Err() == nil {
			p.err = err
		}
	}
}

// stop waits for the writer to end (ctx, given to publishProgress, must be
// cancelled first) and returns the first error it met: the progress is
// for watching only, so it never fails the part.
func (p *progressPublisher) stop() error {
	<-p.done
	return p.err
}

// SlotTotals adds up the generators' readings of a cell, slot by slot: the
// coordinator's per-second line and live chart, and 'k8s run', which
// reads the same parts from the store.
type SlotTotals struct {
	n       int
	clients int
	// last is the newest reading added up, as phaseSlot orders them; each
	// slot is added up once, in order.
	last int
}

// NewSlotTotals adds up the readings of n generators measuring a cell of
// clients clients.
func NewSlotTotals(clients, n int) *SlotTotals {
	return &SlotTotals{n: n, clients: clients, last: -1}
}

// phaseSlot orders readings: the warm-up's before the measured phase's.
func phaseSlot(t store.PartTick) int {
	if t.Warmup {
		return t.Slot
	}
	return 1<<30 + t.Slot
}

// Seen returns, in order, the cell's reading of each slot that every
// generator has now published and that was not returned before: the
// generators' operations and rates added up, latencies from their merged
// interval histograms. err says why a slot's readings did not add up (it
// is skipped).
func (st *SlotTotals) Seen(parts []store.Part) (sums []kinds.Tick, err error) {
	if len(parts) < st.n {
		return nil, nil
	}
	byGen := make([]map[int]store.PartTick, 0, st.n)
	for _, p := range parts {
		m := map[int]store.PartTick{}
		for _, t := range p.Progress {
			m[phaseSlot(t)] = t
		}
		byGen = append(byGen, m)
	}
	var keys []int
	for k := range byGen[0] {
		if k > st.last {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		readings := make([]store.PartTick, 0, st.n)
		for _, m := range byGen {
			if t, ok := m[k]; ok {
				readings = append(readings, t)
			}
		}
		if len(readings) < st.n {
			break // a generator has not read this slot yet: nor the later ones
		}
		st.last = k
		sum, serr := st.add(readings)
		if serr != nil {
			err = serr
			continue
		}
		sums = append(sums, sum)
	}
	return sums, err
}

// add sums one slot's readings of every generator.
func (st *SlotTotals) add(readings []store.PartTick) (kinds.Tick, error) {
	series := make([][]result.SeriesPoint, len(readings))
	var elapsed, window time.Duration
	for i, t := range readings {
		p := t.Point
		p.Second = t.Slot
		series[i] = []result.SeriesPoint{p}
		elapsed, window = max(elapsed, t.Elapsed), max(window, t.Window)
	}
	merged, err := hist.MergeSeries(series...)
	if err != nil {
		return kinds.Tick{}, err
	}
	// MergeSeries adds the generators' rates, each over its own window:
	// the cell's rate.
	return kinds.Tick{Now: time.Now(), Elapsed: elapsed, Window: window, Warmup: readings[0].Warmup, Clients: st.clients, Point: merged[0]}, nil
}

// partTotals is the coordinator's side for one cell on n generators: it
// shows each sum as the cell's own reading (the per-second line and the
// live page).
type partTotals struct {
	r      *Runner
	kind   string
	label  string // the generators, for the per-second line
	totals *SlotTotals
	read   time.Time // the last poll's: readings are read once a second
	warned bool
}

// poll reads the generators' readings of cell seq, at most once a second,
// and shows what every generator has read since.
func (pt *partTotals) poll(ctx context.Context, st *store.Store, sid int64, seq int) {
	if time.Since(pt.read) < time.Second {
		return
	}
	pt.read = time.Now()
	parts, err := st.PartProgress(ctx, sid, seq)
	if err != nil {
		pt.warn(err)
		return
	}
	pt.seen(parts)
}

// warn says once why the per-second totals are missing.
func (pt *partTotals) warn(err error) {
	if !pt.warned && !errors.Is(err, context.Canceled) {
		pt.warned = true
		fmt.Fprintf(pt.r.opt.Progress, "  the generators' per-second readings do not add up: %s\n", redact.Scrub(err.Error()))
	}
}

func (r *Runner) newPartTotals(kind string, clients, n int) *partTotals {
	return &partTotals{r: r, kind: kind, totals: NewSlotTotals(clients, n), label: fmt.Sprintf("%d load generators", n)}
}

// seen shows each reading every generator has now published, once.
func (pt *partTotals) seen(parts []store.Part) {
	sums, err := pt.totals.Seen(parts)
	if err != nil {
		pt.warn(err)
	}
	for _, reading := range sums {
		if w := pt.r.opt.Watch; w != nil {
			w.Tick(reading)
		}
		if !pt.r.opt.NoTickLines {
			label := pt.label
			if reading.Warmup {
				label = "warm-up, " + label
			}
			pt.r.tickLine(pt.kind, label, reading)
		}
	}
}
