package adapter

import (
	"math"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// RunIdentity is what tells one run of a tool from another, whichever of the
// tool's output files it was read from (memtier's text and its JSON, OSB's
// results file and its test_run.json), so that import stores a run once. A
// tool's Identity builds it from a parsed (or stored) run with what every
// format of the tool prints.
//
// Parameters are not part of it: where a format does not print one (memtier's
// text has no key prefix or value size), import fills in the kind's default,
// an assumption that would tell the text from its own JSON; the measured
// values tell runs apart without them.
type RunIdentity struct {
	Tool, Kind string
	Clients    int
	// Start is when the run started, where the format prints it (memtier's
	// and OSB's JSON); zero where it does not (their text formats).
	Start time.Time
	// Measures are values of the run every format prints, each with the
	// difference the formats' rounding allows between two readings of the
	// same run. Counts alone never identify a run: a count-bounded run
	// (memtier --requests) has the same counts in every repetition, so each
	// tool includes a measured value (a throughput to the second decimal).
	Measures []Measure
}

// Measure is one value of a run's identity.
type Measure struct {
	Name  string
	Value float64
	// Within is the largest difference two formats' readings of the same run
	// can have (0: exact, as counts are).
	Within float64
}

// startWithin is how far two printed start times of one run can be apart:
// OSB's test-run-timestamp has whole seconds.
const startWithin = time.Second

// SameRun reports whether a and b describe one run, and why not. The start
// times decide when both formats print one; whether they do or not, every
// measure both have must agree within its rounding, and at least one
// measured value must be in both: runs with nothing comparable are
// different runs.
func SameRun(a, b *RunIdentity) (bool, string) {
	if a == nil || b == nil {
		return false, "no identity"
	}
	if a.Tool != b.Tool || a.Kind != b.Kind {
		return false, "another tool or kind"
	}
	if a.Clients > 0 && b.Clients > 0 && a.Clients != b.Clients {
		return false, "other clients"
	}
	if !a.Start.IsZero() && !b.Start.IsZero() {
		if d := a.Start.Sub(b.Start); d >= startWithin || d <= -startWithin {
			return false, "other start times"
		}
	}
	common := 0
	for _, m := range a.Measures {
		for _, n := range b.Measures {
			if m.Name != n.Name {
				continue
			}
			common++
			if math.Abs(m.Value-n.Value) > max(m.Within, n.Within) {
				return false, m.Name + " differs"
			}
		}
	}
	if common == 0 {
		return false, "nothing to compare"
	}
	return true, ""
}

// within6 is the rounding of a value printed with 6 significant digits (OSB's
// markdown, csv and console tables), with room for the float's own error.
func within6(v float64) float64 { return math.Abs(v) * 1e-5 }

// opCounts are a run's per-op-type counts as measures (exact).
func opCounts(r *result.Run) []Measure {
	var ms []Measure
	for _, op := range r.Ops {
		ms = append(ms, Measure{Name: op.Name + " count", Value: float64(op.Count)})
	}
	return ms
}

// baseIdentity is the part of every tool's identity the run itself says
// (its Source is the tool, set by Parse and stored).
func baseIdentity(r *result.Run) *RunIdentity {
	return &RunIdentity{Tool: r.Source, Kind: r.Kind, Clients: r.Clients, Start: r.StartedAt}
}
