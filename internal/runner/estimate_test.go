package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// What each kind of end makes of a cell measured for 60 s after a 10 s
// warm-up, with a 5 s cool-down: its time in the plan and whether it runs
// on several load generators. A new workload.EndKind is given a row here
// (or this test fails) and a case in each switch on the kind: CellTime's
// and splittable's, which this test checks, setupCell's (the phases' time)
// and statusTask's (whether the progress line shows time left).
var endRules = map[workload.EndKind]struct {
	end       workload.End
	time      time.Duration // CellTime's
	atMost    bool
	splitless bool // runs on several generators without a Split
}{
	workload.EndAtDuration: {workload.End{}, 75 * time.Second, false, true},
	workload.EndWhenDone:   {workload.UntilDone("the work is done"), 75 * time.Second, true, true},
	workload.EndSelf:       {workload.SelfEnding(time.Hour, ""), time.Hour + 15*time.Second, true, false},
	workload.EndPerClient:  {workload.PerClient(3, 2*time.Hour, "each client has run its 3"), 2*time.Hour + 15*time.Second, true, true},
	workload.EndTries:      {workload.Tries(time.Hour), time.Hour + 5*time.Second, true, false},
}

func TestEveryEndKindIsPlannedAndSplit(t *testing.T) {
	c := study.Cell{Workload: &study.Workload{Kind: "k"}, Warmup: 10 * time.Second, Duration: time.Minute, Cooldown: 5 * time.Second}
	for _, k := range workload.EndKinds() {
		rule, ok := endRules[k]
		if !ok {
			t.Errorf("end kind %s has no row in endRules", k)
			continue
		}
		shape := workload.Shape{End: rule.end}
		got := CellTime(c, shape)
		if got.Time != rule.time || got.AtMost != rule.atMost {
			t.Errorf("%s: CellTime %s (at most %v), want %s (at most %v)", k, got.Time, got.AtMost, rule.time, rule.atMost)
		}
		if got.AtMost && got.EndsWhen == "" {
			t.Errorf("%s: the plan's bound does not say what ends the cell", k)
		}
		if err := splittable(shape, c, 2); (err == nil) != rule.splitless {
			t.Errorf("%s on 2 generators without a Split: %v", k, err)
		}
	}
}

// badShapeWorkload declares a shape that Validate refuses.
type badShapeWorkload struct{ fakeWorkload }

func (badShapeWorkload) Kind() string { return "fake-badshape" }
func (badShapeWorkload) New(params.Values) (workload.Instance, error) {
	return badShapeInstance{}, nil
}

type badShapeInstance struct{ fakeInstance }

func (badShapeInstance) Shape() workload.Shape {
	return workload.Shape{End: workload.PerClient(0, time.Hour, "never")}
}

func init() { workload.Register(workload.Plugin{Workload: badShapeWorkload{}}) }

// Binding a cell refuses a workload whose shape is invalid, naming the
// workload and the fault, before anything connects.
func TestBindRefusesAnInvalidShape(t *testing.T) {
	c := study.Cell{Target: &study.Target{Name: "t", URL: "bbolt:unused.bolt"},
		Workload: &study.Workload{Name: "w", Kind: "fake-badshape"}, Clients: 1}
	_, err := ShapeOf(c)
	if err == nil || !strings.Contains(err.Error(), "fake-badshape") || !strings.Contains(err.Error(), "operations per client") {
		t.Errorf("ShapeOf: %v, want the invalid shape refused", err)
	}
}
