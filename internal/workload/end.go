package workload

import (
	"fmt"
	"strings"
	"time"
)

// End is how a run of an instance ends (Shape.End). The zero End is the
// common one: the cell's duration ends the run. The others are made by
// their constructors (UntilDone, SelfEnding, PerClient, Tries), so that an
// End holds only what its kind means: a per-client count is never without
// the self-ending run it ends, a bound never without the kind it bounds.
// Shape.Validate checks what the constructors cannot (a positive bound).
type End struct {
	kind      EndKind
	bound     time.Duration
	perClient int64
	when      string
}

// EndKind says what ends a run; the runner switches on it.
type EndKind uint8

const (
	// EndAtDuration: the cell's duration ends the run (the zero End).
	EndAtDuration EndKind = iota
	// EndWhenDone: the clients return ErrClientDone once their work is
	// done (YCSB's operationcount, memtier's requests), which ends the run
	// before the cell's duration; the duration still bounds it.
	EndWhenDone
	// EndSelf: the clients end the run themselves, returning ErrClientDone
	// once the work is done (a corpus indexed once, as OSB's bulk task ends
	// with its corpus). The cell's duration does not apply: the End's bound
	// does, and the warm-up stays. On several load generators the work must
	// be shared (Shape.Split).
	EndSelf
	// EndPerClient: the runner stops each client after a number of
	// operations (pgbench's -t), an operation and its retries counting once
	// and warm-up operations too; the End's bound replaces the cell's
	// duration. The count is per client, so any number of load generators
	// run it as they are.
	EndPerClient
	// EndTries: the instance runs a fixed set of queries to completion,
	// each a number of times in a row (SSB's and ClickBench's tries). The
	// run has no warm-up (the first try is the cold one, which a warm-up
	// would spend), the End's bound replaces the cell's duration, and the
	// set is not split over load generators. An instance that loops over
	// its queries for a duration (a concurrent mode) ends at the duration.
	EndTries

	endKinds // the number of kinds: a new one goes right before it
)

// EndKinds are every kind of End, in order.
func EndKinds() []EndKind {
	kinds := make([]EndKind, endKinds)
	for i := range kinds {
		kinds[i] = EndKind(i)
	}
	return kinds
}

// String names the kind in messages.
func (k EndKind) String() string {
	switch k {
	case EndAtDuration:
		return "duration"
	case EndWhenDone:
		return "until-done"
	case EndSelf:
		return "self-ending"
	case EndPerClient:
		return "per-client"
	case EndTries:
		return "tries"
	}
	return fmt.Sprintf("end kind %d", uint8(k))
}

// UntilDone is the End of a run whose clients return ErrClientDone once
// their work is done, before the cell's duration, which bounds it; what is
// what ends it, for the plan's estimate ("the 1000 operations of
// operationcount are done").
func UntilDone(what string) End { return End{kind: EndWhenDone, when: what} }

// SelfEnding is the End of a run whose clients end it themselves, within
// limit, which replaces the cell's duration; what is what ends it, for the
// plan ("" says: the work is done).
func SelfEnding(limit time.Duration, what string) End {
	return End{kind: EndSelf, bound: limit, when: what}
}

// PerClient is the End of a run in which each client performs ops
// operations and stops, within limit, which replaces the cell's duration;
// what is what ends it, for the plan.
func PerClient(ops int64, limit time.Duration, what string) End {
	return End{kind: EndPerClient, bound: limit, perClient: ops, when: what}
}

// Tries is the End of a finite query set's run, within bound (every try at
// its timeout), which replaces the cell's duration.
func Tries(bound time.Duration) End { return End{kind: EndTries, bound: bound} }

// Kind is what ends the run.
func (e End) Kind() EndKind { return e.kind }

// Bound is the longest the measured phase of a self-ending, per-client or
// tries run may take, in place of the cell's duration; 0 for the others,
// which the cell's duration bounds.
func (e End) Bound() time.Duration { return e.bound }

// PerClientOps is the number of operations each client of a per-client run
// performs; 0 for the other kinds.
func (e End) PerClientOps() int64 { return e.perClient }

// EndsWhen says what ends a run that the cell's duration does not, for the
// plan's estimate; "" for EndAtDuration.
func (e End) EndsWhen() string {
	switch {
	case e.when != "":
		return e.when
	case e.kind == EndSelf:
		return "the work is done"
	case e.kind == EndTries:
		return "the queries' tries are done, each try up to its timeout"
	}
	return ""
}

// Validate says what is wrong with the shape's combination of fields, for
// the combinations the types leave open; the runner calls it once, where
// it binds a cell's workload, so that an instance with an invalid shape
// never runs.
func (s Shape) Validate() error {
	var errs []string
	e := s.End
	switch e.kind {
	case EndAtDuration:
	case EndWhenDone:
		if e.when == "" {
			errs = append(errs, "a run that ends when its work is done must say what ends it (UntilDone's what)")
		}
	case EndSelf, EndPerClient, EndTries:
		if e.bound <= 0 {
			errs = append(errs, fmt.Sprintf("a %s run needs a positive bound in place of the cell's duration, not %s", e.kind, e.bound))
		}
	default:
		errs = append(errs, fmt.Sprintf("unknown %s", e.kind))
	}
	if e.kind == EndPerClient && e.perClient <= 0 {
		errs = append(errs, fmt.Sprintf("a per-client run needs a positive number of operations per client, not %d", e.perClient))
	}
	if e.kind == EndTries && s.Split != nil {
		errs = append(errs, "a query set's tries are not split over load generators: its shape must have no Split")
	}
	if e.kind != EndTries && s.Stalls != nil {
		errs = append(errs, fmt.Sprintf("Stalls are a query set's dead time, which only a tries run reads, not a %s one", e.kind))
	}
	if (s.Tallies == nil) != (s.AddTallies == nil) {
		errs = append(errs, "Tallies and AddTallies go together: each generator's tallies are added up by the coordinator's instance")
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid workload shape: %s", strings.Join(errs, "; "))
}
