// Package kinds is the one registry of what fairbench knows about each kind of
// result, whether a native workload produces it (tpcb, oltp) or only an imported
// tool does (fio, mysqlslap): the headline metric a reader looks at first, the
// summary printed in the peer tool's own shape, the size of the data a run
// touches, extra report sections, and the parameters a native workload
// declares. A native workload's kind is registered with the workload, in one
// workload.Register (internal/workload); a kind only a tool produces, by the
// adapter's catalog (internal/adapter). Analysis, report and cmd ask this
// registry and never name a kind or a tool themselves.
package kinds

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Info is everything kind-specific that generic code needs. Only Kind is
// required; a nil func means the kind has nothing special there.
type Info struct {
	Kind string
	// Headline is the kind's headline metric; the zero value means throughput.
	Headline result.Headline
	// Summary prints one run the way the peer tool prints its summary
	// (pgbench's for tpcb, sysbench's for oltp).
	Summary func(w io.Writer, r *result.Run)
	// WorkingSet estimates the bytes of data a run with these parameters
	// touches, and says from what ("scale 10 × ~15 MB"); ok is false when
	// it cannot tell. It gets the values typed by Params (TypedParams):
	// callers go through EstimateWorkingSet.
	WorkingSet func(v params.Values) (bytes int64, basis string, ok bool)
	// Sections builds extra report sections from the kind's runs (fio's
	// per-direction tables). baseline names the target ratios are taken against.
	// Reports call it once per scenario (study, workload and parameters), with
	// that scenario's runs in the order of the report's rows, interrupted and
	// failed runs included so that a cell without a completed run keeps its row.
	Sections func(runs []*result.Run, baseline string) []Section
	// DigestSeries keeps what Sections reads of a run's series, for a
	// report that drops the series (result.SeriesDigest.Kind): Sections
	// reads it when the run's Digest is set. Nil: Sections reads no series.
	DigestSeries func(r *result.Run) any
	// RunFormats are the result files of one run the kind can write, by
	// the name `fairbench report --format` takes ("clickbench":
	// ClickBench's result JSON).
	RunFormats map[string]func(w io.Writer, r *result.Run) error
	// Progress, when set, prints one progress reading of an ad-hoc run the
	// way the peer tool prints its interim lines (sysbench's "[ 1s ] thds:
	// …", YCSB's -s status lines); nil: fairbench's own line.
	Progress func(w io.Writer, t Tick, p Printing)
	// Doubts says what makes a run's results doubtful though it succeeded
	// (a query set whose queries found no rows measured no work), one
	// sentence each, for the end of its summary; nil: the kind knows none.
	Doubts func(r *result.Run) []string
	// Params declares the kind's parameters with their defaults, so that a
	// report can tell a parameter at its default from one a study set;
	// workload.Register sets it to the workload's Params. Nil for a kind
	// that declares none (an imported tool's).
	Params func() []params.Spec
}

// DigestSeries is what the kind of r keeps of its series for its report
// sections (Info.DigestSeries); nil when it keeps nothing.
func DigestSeries(r *result.Run) any {
	if i, ok := Lookup(r.Kind); ok && i.DigestSeries != nil {
		return i.DigestSeries(r)
	}
	return nil
}

// DigestsSeries reports whether kind's report sections read its runs'
// series, digested by Info.DigestSeries.
func DigestsSeries(kind string) bool {
	i, ok := Lookup(kind)
	return ok && i.DigestSeries != nil
}

// RunFormat returns the writer of format for runs of kind, if it has one.
func RunFormat(kind, format string) (func(io.Writer, *result.Run) error, bool) {
	i, ok := Lookup(kind)
	if !ok {
		return nil, false
	}
	f, ok := i.RunFormats[format]
	return f, ok
}

// RunFormatNames lists every run format some kind offers, sorted.
func RunFormatNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range All() {
		for name := range i.RunFormats {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Section is a titled table a report renders in each of its formats.
type Section struct {
	Title   string
	Caption string
	Columns []string
	// Right marks the columns to align right (numbers).
	Right []bool
	Rows  [][]string
	// Note is a sentence printed after the table (why a table is missing).
	Note string
	// Lead puts the table first in its report section, before the generic
	// headline and latency tables: it is what a reader of the kind's
	// results reads first (a query set's per-query times).
	Lead bool
	// Bars, when set, is a chart of the table's numbers that the HTML report
	// draws beside it (per-query times of several targets).
	Bars *Bars
}

// Bars is a grouped horizontal bar chart: for each category (a query) one
// bar per series (a target).
type Bars struct {
	Title      string
	Unit       string // of the values, for the axis ("s")
	Categories []string
	Series     []BarSeries
}

// BarSeries is one series of a bar chart; a NaN value is a missing bar.
type BarSeries struct {
	Name   string
	Values []float64 // one per category
}

var (
	mu       sync.RWMutex
	registry = map[string]Info{}
)

// Register adds a kind. It panics on a duplicate: a kind has one owner.
func Register(i Info) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[i.Kind]; dup {
		panic(fmt.Sprintf("kinds: %q registered twice", i.Kind))
	}
	registry[i.Kind] = i
}

// Lookup returns what is registered for kind.
func Lookup(kind string) (Info, bool) {
	mu.RLock()
	defer mu.RUnlock()
	i, ok := registry[kind]
	return i, ok
}

// Params returns the parameters kind declares, with their defaults; ok is
// false for a kind that declares none.
func Params(kind string) (specs []params.Spec, ok bool) {
	i, found := Lookup(kind)
	if !found || i.Params == nil {
		return nil, false
	}
	return i.Params(), true
}

// EstimateWorkingSet is kind's estimate of the bytes a run with these
// parameters touches (Info.WorkingSet), from the parameters as a run
// recorded them, typed by the kind's specs first; ok is false when the kind
// has no estimate or cannot tell.
func EstimateWorkingSet(kind string, recorded params.Values) (bytes int64, basis string, ok bool) {
	i, found := Lookup(kind)
	if !found || i.WorkingSet == nil {
		return 0, "", false
	}
	return i.WorkingSet(TypedParams(kind, recorded))
}

// TypedParams are a run's parameters as it recorded them, typed by the
// specs kind declares (params.Typed); as recorded for a kind that declares
// none.
func TypedParams(kind string, recorded params.Values) params.Values {
	if specs, ok := Params(kind); ok {
		return params.Typed(specs, recorded)
	}
	return recorded
}

// Summary returns kind's printer of a run summary in the peer tool's shape;
// ok is false when it has none and the caller prints its generic summary.
func Summary(kind string) (f func(w io.Writer, r *result.Run), ok bool) {
	i, found := Lookup(kind)
	if !found || i.Summary == nil {
		return nil, false
	}
	return i.Summary, true
}

// Printing are the values of an ad-hoc run's printing flags
// (workload.Flag.Print: sysbench's --percentile, memtier's
// --print-percentiles), by name, for its kind's printers; they change what
// is printed, never what runs, and are not stored.
type Printing map[string]any

// PrintingKey is the Env key of the Printing on the copy of an ad-hoc run
// its summary printer gets (as MaxTriesKey); PrintingOf reads it.
const PrintingKey = "printing"

// PrintingOf returns the printing options a summary printer was given
// (nil: none, each printer's defaults).
func PrintingOf(r *result.Run) Printing {
	p, _ := r.Env.Extra[PrintingKey].(Printing)
	return p
}

// Tick is one progress reading of a run, for a kind's Progress line.
type Tick struct {
	Now time.Time
	// Elapsed is the time since the phase began (the warm-up or the
	// measured phase); Window since the previous reading.
	Elapsed, Window time.Duration
	Warmup          bool
	Clients         int
	// Point is the window's operations, errors and per-op histograms.
	Point result.SeriesPoint
	// Counts are the workload's own counters (its Counts hook) now, and
	// Previous at the previous reading; nil when it keeps none.
	Counts, Previous map[string]int64
}

// ProgressOf returns kind's progress-line printer; ok is false when it has
// none.
func ProgressOf(kind string) (f func(io.Writer, Tick, Printing), ok bool) {
	i, found := Lookup(kind)
	if !found || i.Progress == nil {
		return nil, false
	}
	return i.Progress, true
}

// Doubts returns what makes run r's results doubtful, as its kind says
// (Info.Doubts); none when the kind knows no doubts.
func Doubts(r *result.Run) []string {
	i, found := Lookup(r.Kind)
	if !found || i.Doubts == nil {
		return nil
	}
	return i.Doubts(r)
}

// MaxTriesKey is the Env key of the tries per transaction a run was allowed
// (pgbench's --max-tries), for printers that report it; absent means 1.
const MaxTriesKey = "max_tries"

// Headline returns the kind's headline metric, throughput when it declares none.
func Headline(kind string) result.Headline {
	if i, ok := Lookup(kind); ok && i.Headline.Name != "" {
		return i.Headline
	}
	return result.Throughput
}

// All returns every registered kind, sorted by name.
func All() []Info {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Info, 0, len(registry))
	for _, i := range registry {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Kind < out[b].Kind })
	return out
}
