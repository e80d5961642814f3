package runner

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// deviatorWorkload is the fake workload whose instance names a deviation
// when operations failed (workload.Deviator), as YCSB's does.
type deviatorWorkload struct{ fakeWorkload }

func (deviatorWorkload) Kind() string { return "fake-deviator" }
func (deviatorWorkload) New(params.Values) (workload.Instance, error) {
	behaveMu.Lock()
	defer behaveMu.Unlock()
	return deviatorInstance{fakeInstance{op: behave}}, nil
}

type deviatorInstance struct{ fakeInstance }

const fakeDeviation = "the fake peer would count failed operations"

func (deviatorInstance) Deviations(s *result.Summary) []string {
	if s.Failed > 0 {
		return []string{fakeDeviation}
	}
	return nil
}

func init() { workload.Register(workload.Plugin{Workload: deviatorWorkload{}}) }

// The runner stores what a workload's Deviator names of the measured run,
// once, from the run's own summary: with failed operations the deviation is
// there, without them it is not.
func TestWorkloadDeviationsOfTheMeasuredRunAreStored(t *testing.T) {
	for _, failing := range []bool{false, true} {
		var n atomic.Int64
		op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
			if failing && n.Add(1)%3 == 0 {
				return 0, classErr{result.ErrOther}
			}
			return 0, nil
		}
		run, err := runOne(t, context.Background(), op, study.Workload{Kind: "fake-deviator", Clients: []study.ClientLevel{{N: 1}}}, 0, 300*time.Millisecond)
		if err != nil && !failing {
			t.Fatal(err)
		}
		if failing && run.Summary.Failed == 0 {
			t.Fatalf("no operation failed: %+v", run.Summary)
		}
		named := 0
		for _, d := range run.Deviations {
			if d == fakeDeviation {
				named++
			}
		}
		if (named == 1) != failing || named > 1 {
			t.Fatalf("failing=%v: deviations %q, want the workload's named once exactly when operations failed", failing, run.Deviations)
		}
	}
}
