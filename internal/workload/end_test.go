package workload

import (
	"strings"
	"testing"
	"time"
)

// validEnds has a valid End of every kind, made by its constructor: a new
// kind of End is added here (TestEveryEndKindHasAValidEnd says so) and to
// Validate's switch, whose default refuses a kind it does not know.
var validEnds = map[EndKind]End{
	EndAtDuration: {},
	EndWhenDone:   UntilDone("the 1000 operations of operationcount are done"),
	EndSelf:       SelfEnding(time.Hour, ""),
	EndPerClient:  PerClient(10, time.Hour, "each client has run its 10 transactions (-t)"),
	EndTries:      Tries(time.Hour),
}

func TestEveryEndKindHasAValidEnd(t *testing.T) {
	for _, k := range EndKinds() {
		e, ok := validEnds[k]
		if !ok {
			t.Errorf("end kind %s has no valid example in validEnds", k)
			continue
		}
		if e.Kind() != k {
			t.Errorf("validEnds[%s] is of kind %s", k, e.Kind())
		}
		if err := (Shape{End: e}).Validate(); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		// The plan says what ends every run the cell's duration does not.
		if (e.EndsWhen() == "") != (k == EndAtDuration) {
			t.Errorf("%s: EndsWhen %q", k, e.EndsWhen())
		}
	}
}

// The End's accessors give what its constructor was told, and nothing of
// another kind's.
func TestEndHoldsOnlyItsKindsFields(t *testing.T) {
	pc := PerClient(7, 2*time.Hour, "each client has run its 7 transactions")
	if pc.PerClientOps() != 7 || pc.Bound() != 2*time.Hour || pc.EndsWhen() != "each client has run its 7 transactions" {
		t.Errorf("PerClient: %d ops, bound %s, ends when %q", pc.PerClientOps(), pc.Bound(), pc.EndsWhen())
	}
	for _, e := range []End{{}, UntilDone("x"), SelfEnding(time.Hour, ""), Tries(time.Hour)} {
		if e.PerClientOps() != 0 {
			t.Errorf("%s: %d operations per client", e.Kind(), e.PerClientOps())
		}
	}
	for _, e := range []End{{}, UntilDone("x")} {
		if e.Bound() != 0 {
			t.Errorf("%s: bound %s, want the cell's duration (0)", e.Kind(), e.Bound())
		}
	}
}

// Validate refuses each combination the types leave open, saying which.
func TestValidateRefusesInvalidShapes(t *testing.T) {
	tallies := func() map[string]int64 { return nil }
	addTallies := func(map[string]int64) {}
	split := func(int, int) error { return nil }
	stalls := func() []Stall { return nil }
	for _, tc := range []struct {
		name  string
		shape Shape
		want  string
	}{
		{"until done without what ends it", Shape{End: UntilDone("")}, "must say what ends it"},
		{"self-ending without a bound", Shape{End: SelfEnding(0, "")}, "self-ending run needs a positive bound"},
		{"self-ending with a negative bound", Shape{End: SelfEnding(-time.Second, "")}, "not -1s"},
		{"per-client without a bound", Shape{End: PerClient(10, 0, "x")}, "per-client run needs a positive bound"},
		{"per-client without operations", Shape{End: PerClient(0, time.Hour, "x")}, "positive number of operations per client, not 0"},
		{"tries without a bound", Shape{End: Tries(0)}, "tries run needs a positive bound"},
		{"tries split over generators", Shape{End: Tries(time.Hour), Split: split}, "must have no Split"},
		{"stalls at the duration", Shape{Stalls: stalls}, "only a tries run reads, not a duration one"},
		{"stalls of a self-ending run", Shape{End: SelfEnding(time.Hour, ""), Stalls: stalls}, "not a self-ending one"},
		{"tallies without their sum", Shape{End: SelfEnding(time.Hour, ""), Split: split, Tallies: tallies}, "Tallies and AddTallies go together"},
		{"a sum without tallies", Shape{AddTallies: addTallies}, "Tallies and AddTallies go together"},
		{"an unknown kind", Shape{End: End{kind: endKinds}}, "unknown end kind"},
	} {
		err := tc.shape.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", tc.name, err, tc.want)
		}
	}
	// Several faults are all named, in one line.
	err := Shape{End: PerClient(0, 0, "x"), Tallies: tallies}.Validate()
	if err == nil || strings.Count(err.Error(), ";") != 2 || strings.Contains(err.Error(), "\n") {
		t.Errorf("three faults: %v", err)
	}
}

// The shapes the workloads declare are valid: tries with their stalls,
// self-ending with its split and tallies, a per-client count with a log.
func TestValidateAcceptsWorkloadShapes(t *testing.T) {
	for _, s := range []Shape{
		{},
		{End: Tries(time.Hour), Stalls: func() []Stall { return nil }},
		{End: SelfEnding(time.Hour, ""), Split: func(int, int) error { return nil },
			Tallies: func() map[string]int64 { return nil }, AddTallies: func(map[string]int64) {}},
		{End: PerClient(5, time.Hour, "x"), Log: func(Logged) {}, Close: func() error { return nil }},
		{End: UntilDone("x"), Split: func(int, int) error { return nil }},
	} {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", s.End.Kind(), err)
		}
	}
}
