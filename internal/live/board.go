// Package live is the page `fairbench run --serve` serves while a study runs:
// its progress, the running cell's per-second numbers as charts, each
// finished cell's headline beside its repetitions, the methodology warnings
// as they arise, and at the end the study's report.
//
// The runner tells a Board what happens (it is a runner.Watcher), from its
// own goroutine, once per cell and once per progress tick: the Board copies
// what it keeps into a fresh, immutable Snapshot and publishes it with one
// atomic store. The HTTP handlers only load that pointer, so a reader can
// neither slow down nor block the measurement, and the Board's memory is
// bounded (MaxPoints per chart, MaxWarnings warnings) however long the study.
package live

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// Bounds of what a Board keeps.
const (
	// MaxPoints is how many readings of the running cell a chart keeps: the
	// last ten minutes at one reading a second.
	MaxPoints = 600
	// MaxWarnings is how many distinct warnings the page lists; more are
	// counted, not kept.
	MaxWarnings = 200
)

// Cell states, as the page shows them.
const (
	StatePlanned = "planned"
	StateRunning = "running"
	StateDone    = "done"
	StateFailed  = "failed"
	StateSkipped = "skipped"
)

// Study states.
const (
	StudyRunning     = "running"
	StudyDone        = "done"
	StudyInterrupted = "interrupted"
	StudyFailed      = "failed"
)

// Snapshot is what the page shows at one moment; published whole, never
// changed after.
type Snapshot struct {
	Title   string    `json:"title"`
	State   string    `json:"state"`
	Error   string    `json:"error,omitempty"`
	Started time.Time `json:"started"`
	// Version grows with every publication: a page that saw it draws nothing new.
	Version int64    `json:"version"`
	Counts  Counts   `json:"counts"`
	Elapsed float64  `json:"elapsed_s"`
	ETA     *float64 `json:"eta_s"` // seconds left; nil when unknown
	Running *Running `json:"running"`
	// Scenarios are the finished cells grouped by what they measure: each
	// with the headline of its repetitions.
	Scenarios []Scenario `json:"scenarios"`
	Warnings  []Warning  `json:"warnings"`
	// MoreWarnings counts warnings past MaxWarnings, not listed.
	MoreWarnings int  `json:"more_warnings,omitempty"`
	Report       bool `json:"report"` // the final report is served at /report
}

// Counts are the study's cells by state.
type Counts struct {
	Total   int `json:"total"`
	Done    int `json:"done"` // finished, failed included
	Failed  int `json:"failed"`
	Running int `json:"running"`
	Skipped int `json:"skipped"`
	Left    int `json:"left"`
}

// Running is the cell being measured.
type Running struct {
	Index     int     `json:"index"` // 1-based, as the progress lines number cells
	Label     string  `json:"label"`
	Rep       int     `json:"rep"`
	Phase     string  `json:"phase"` // "preparing", "warm-up", "measuring"
	Elapsed   float64 `json:"elapsed_s"`
	Planned   float64 `json:"planned_s"` // warm-up and measured phase; 0: unknown
	Generated string  `json:"note,omitempty"`
	Points    []Point `json:"points"`
	offset    float64 // the warm-up's length: where the measured phase's clock starts on the charts
}

// Point is one reading of the running cell; latencies in milliseconds.
type Point struct {
	T      float64 `json:"t"` // seconds since the cell's first reading's phase began
	Warmup bool    `json:"warmup,omitempty"`
	Rate   float64 `json:"rate"`
	Errors int64   `json:"errors"`
	P50    float64 `json:"p50_ms"`
	P95    float64 `json:"p95_ms"`
	P99    float64 `json:"p99_ms"`
}

// Scenario is one cell of the plan across its repetitions.
type Scenario struct {
	Label  string `json:"label"`
	Metric string `json:"metric"` // the headline's name and unit
	Higher bool   `json:"higher_is_better"`
	Reps   []Rep  `json:"reps"`
}

// Rep is one finished repetition of a scenario.
type Rep struct {
	Rep    int     `json:"rep"`
	Value  float64 `json:"value"`
	Status string  `json:"status"`
}

// Warning is one methodology warning, with the cell it concerns.
type Warning struct {
	Cell string `json:"cell"`
	Text string `json:"text"`
}

// Board keeps a study's live view and publishes it as Snapshots. Its
// runner.Watcher methods, Finish and Fail are to be called from one
// goroutine at a time (the runner's, then the command's); Snapshot and
// Report from any.
type Board struct {
	cells     []study.Cell
	estimates []time.Duration // per cell; 0 unknown
	started   time.Time
	now       func() time.Time

	// the writer's state, copied into each Snapshot
	title     string
	state     string
	err       string
	cellState []string
	elapsed   []time.Duration // each finished cell's wall time
	running   *Running
	runStart  time.Time
	scenarios []Scenario
	scenAt    map[string]int
	warnings  []Warning
	warned    map[string]bool
	more      int
	version   int64

	snap   atomic.Pointer[Snapshot]
	report atomic.Pointer[[]byte]
}

// NewBoard is the live view of cells, titled title; estimates[i] is how long
// cells[i] is expected to take (validate's estimate; 0 when unknown).
func NewBoard(title string, cells []study.Cell, estimates []time.Duration) *Board {
	// One estimate per cell, whatever the caller gave: a missing one is unknown.
	estimates = append(slices.Clone(estimates[:min(len(estimates), len(cells))]), make([]time.Duration, max(0, len(cells)-len(estimates)))...)
	b := &Board{title: title, cells: cells, estimates: estimates, now: time.Now, state: StudyRunning,
		cellState: make([]string, len(cells)), elapsed: make([]time.Duration, len(cells)),
		scenAt: map[string]int{}, warned: map[string]bool{}}
	for i := range b.cellState {
		b.cellState[i] = StatePlanned
	}
	b.started = b.now()
	b.publish()
	return b
}

// Snapshot is the last view published.
func (b *Board) Snapshot() *Snapshot { return b.snap.Load() }

// Report is the final report's HTML, nil until Finish gave it.
func (b *Board) Report() []byte {
	if p := b.report.Load(); p != nil {
		return *p
	}
	return nil
}

var _ runner.Watcher = (*Board)(nil)

// CellStarted implements runner.Watcher.
func (b *Board) CellStarted(i int, c study.Cell) {
	if !b.valid(i) {
		return
	}
	b.cellState[i] = StateRunning
	b.runStart = b.now()
	b.running = &Running{Index: i + 1, Label: scenarioLabel(c), Rep: c.Repetition, Phase: "preparing",
		Planned: (c.Warmup + c.Duration).Seconds()}
	if c.Workload.Tool != "" {
		b.running.Generated = "measured by " + c.Workload.Tool + ": its numbers arrive when it ends"
	}
	b.publish()
}

// CellSkipped implements runner.Watcher.
func (b *Board) CellSkipped(i int) {
	if !b.valid(i) {
		return
	}
	b.cellState[i] = StateSkipped
	b.publish()
}

// Tick implements runner.Watcher: the running cell's reading joins its
// charts, the oldest dropped past MaxPoints.
func (b *Board) Tick(t kinds.Tick) {
	r := b.running
	if r == nil {
		return
	}
	r.Phase = "measuring"
	r.Generated = "" // a peer tool whose progress lines are read as they come
	if t.Warmup {
		r.Phase = "warm-up"
	}
	p := t.Point
	pt := Point{T: t.Elapsed.Seconds(), Warmup: t.Warmup, Rate: p.Rate, Errors: p.Errors, P50: p.P50 / 1000, P95: p.P95 / 1000, P99: p.P99 / 1000}
	if !t.Warmup && len(r.Points) > 0 && r.Points[len(r.Points)-1].Warmup {
		// The measured phase restarts the clock: its points follow the warm-up's.
		r.offset = r.Points[len(r.Points)-1].T
	}
	if !t.Warmup {
		pt.T += r.offset
	}
	r.Points = appendBounded(r.Points, pt)
	if p.Missed {
		b.warn(r.Label, fmt.Sprintf("rep %d: a second of the %s was not read in time (fairbench's clock tick came a whole second late: a frozen or starved host)", r.Rep, r.Phase))
	}
	// A starved second, as the run's host-busy flag counts them
	// (runner/flags.go), as it comes; the end of the run gives the flag.
	if !p.Missed && p.Ops+p.Errors == 0 && p.CPUWait >= result.StarvedCPUWait {
		b.warn(r.Label, fmt.Sprintf("rep %d: a second of the %s without a completed or failed operation while fairbench's threads waited for a CPU (a busy host)", r.Rep, r.Phase))
	}
	b.publish()
}

// appendBounded appends p to points, keeping the last MaxPoints, in a new
// slice: the published snapshots keep the old one.
func appendBounded(points []Point, p Point) []Point {
	keep := points
	if len(keep) >= MaxPoints {
		keep = keep[len(keep)-MaxPoints+1:]
	}
	out := make([]Point, len(keep), len(keep)+1)
	copy(out, keep)
	return append(out, p)
}

// CellEnded implements runner.Watcher: the run's headline joins its
// scenario, and what makes it doubtful the warnings.
func (b *Board) CellEnded(i int, run *result.Run, err error) {
	if !b.valid(i) {
		return
	}
	c := b.cells[i]
	b.elapsed[i] = b.now().Sub(b.runStart)
	b.cellState[i] = StateDone
	status := string(result.StatusFailed) // nothing was attempted
	if run != nil {
		status = string(run.Status)
	}
	if run == nil || run.Status != result.StatusOK {
		b.cellState[i] = StateFailed
	}
	label := scenarioLabel(c)
	if run != nil {
		if b.running != nil && len(b.running.Points) == 0 {
			// Measured elsewhere (load generators, a peer tool): its series
			// arrives with the run.
			b.running.Points = seriesPoints(run.Series)
		}
		h := analysis.Headline(run)
		k, ok := b.scenAt[label]
		if !ok {
			k = len(b.scenarios)
			b.scenAt[label] = k
			metric := h.Name
			if h.Unit != "" && h.Unit != h.Name {
				metric += ", " + h.Unit
			}
			b.scenarios = append(b.scenarios, Scenario{Label: label, Metric: metric, Higher: h.HigherIsBetter})
		}
		// Published snapshots share the old slices: change copies only.
		b.scenarios = slices.Clone(b.scenarios)
		sc := &b.scenarios[k]
		sc.Reps = append(slices.Clone(sc.Reps), Rep{Rep: c.Repetition, Value: h.Value, Status: status})
		b.noteRun(label, c.Repetition, run)
	}
	if err != nil && (run == nil || run.Error == "") {
		b.warn(label, fmt.Sprintf("rep %d failed: %s", c.Repetition, redact.Scrub(err.Error())))
	}
	if b.running != nil {
		b.running.Phase = status
	}
	b.publish()
}

// noteRun adds what a finished run says about its own numbers: its flags
// (host busy, stalls, drift), the outage, why it failed, its deviations
// from the reference and its kind's doubts.
func (b *Board) noteRun(label string, rep int, run *result.Run) {
	for _, f := range run.Summary.Flags {
		b.warn(label, fmt.Sprintf("rep %d flagged %s: %s", rep, f.Kind, f.Reason))
	}
	if line := runner.OutageText(run); line != "" {
		b.warn(label, fmt.Sprintf("rep %d outage: %s", rep, line))
	}
	if run.Status != result.StatusOK && run.Error != "" {
		b.warn(label, fmt.Sprintf("rep %d %s: %s", rep, run.Status, run.Error))
	}
	for _, d := range run.Deviations {
		b.warn(label, "deviation: "+d)
	}
	for _, d := range kinds.Doubts(run) {
		b.warn(label, "doubtful: "+d)
	}
}

// warn adds a warning once; past MaxWarnings it is only counted.
func (b *Board) warn(cell, text string) {
	text = redact.Scrub(text)
	key := cell + "\x00" + text
	if b.warned[key] {
		return
	}
	if len(b.warnings) >= MaxWarnings {
		b.more++
		return
	}
	b.warned[key] = true
	b.warnings = append(slices.Clone(b.warnings), Warning{Cell: cell, Text: text})
}

// Finish ends the view: the study ended with err (nil: it ran to its end)
// and report is its final report's HTML (nil: none, e.g. nothing stored).
func (b *Board) Finish(report []byte, err error) {
	b.state = StudyDone
	switch {
	case err == nil:
	case errors.Is(err, runner.ErrInterrupted):
		b.state, b.err = StudyInterrupted, "interrupted"
	default:
		b.state, b.err = StudyFailed, redact.Scrub(err.Error())
	}
	if report != nil {
		r := slices.Clone(report)
		b.report.Store(&r)
	}
	if b.running != nil && b.running.Phase != string(result.StatusOK) && b.running.Phase != string(result.StatusFailed) {
		b.running.Phase = b.state
	}
	b.publish()
}

func (b *Board) valid(i int) bool { return i >= 0 && i < len(b.cells) }

// publish copies the writer's state into a new Snapshot and stores it.
func (b *Board) publish() {
	b.version++
	now := b.now()
	s := &Snapshot{Title: b.title, State: b.state, Error: b.err, Started: b.started, Version: b.version,
		Elapsed: now.Sub(b.started).Seconds(), Scenarios: b.scenarios, Warnings: b.warnings, MoreWarnings: b.more,
		Report: b.report.Load() != nil}
	s.Counts.Total = len(b.cells)
	for _, st := range b.cellState {
		switch st {
		case StateDone:
			s.Counts.Done++
		case StateFailed:
			s.Counts.Done++
			s.Counts.Failed++
		case StateRunning:
			s.Counts.Running++
		case StateSkipped:
			s.Counts.Skipped++
		default:
			s.Counts.Left++
		}
	}
	if r := b.running; r != nil {
		cp := *r
		cp.Elapsed = now.Sub(b.runStart).Seconds()
		s.Running = &cp
	}
	if b.state == StudyRunning {
		s.ETA = b.eta(now)
	} else {
		zero := 0.0
		s.ETA = &zero
	}
	b.snap.Store(s)
}

// eta is the time the cells not yet finished are expected to take: their
// estimates (validate's), scaled by how the finished cells' wall times
// compared with theirs; nil when no cell left has an estimate.
func (b *Board) eta(now time.Time) *float64 {
	var ranEst, ranTook, left time.Duration
	known := false
	for i, st := range b.cellState {
		est := b.estimates[i]
		switch st {
		case StateDone, StateFailed:
			if est > 0 {
				ranEst += est
				ranTook += b.elapsed[i]
			}
		case StateRunning:
			if est > 0 {
				known = true
				left += max(0, est-now.Sub(b.runStart))
			}
		case StatePlanned:
			if est > 0 {
				known = true
				left += est
			}
		}
	}
	if !known {
		return nil
	}
	scale := 1.0
	if ranEst > 0 {
		scale = ranTook.Seconds() / ranEst.Seconds()
	}
	v := left.Seconds() * scale
	return &v
}

// seriesPoints are a stored run's series as chart points, the last MaxPoints.
func seriesPoints(series []result.SeriesPoint) []Point {
	if len(series) > MaxPoints {
		series = series[len(series)-MaxPoints:]
	}
	out := make([]Point, len(series))
	for i, p := range series {
		out[i] = Point{T: float64(p.Second), Rate: p.Rate, Errors: p.Errors, P50: p.P50 / 1000, P95: p.P95 / 1000, P99: p.P99 / 1000}
	}
	return out
}

// scenarioLabel names what a cell measures, whatever its repetition.
func scenarioLabel(c study.Cell) string { return runner.ScenarioLabel(c) }
