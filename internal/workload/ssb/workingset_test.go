package ssb

import (
	"testing"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
)

// A whole scale reads back from a results file as an integer: the estimate
// takes it as the Float the spec declares.
func TestWorkingSetOfARecordedWholeScale(t *testing.T) {
	for _, scale := range []any{int64(2), 2.0} {
		b, basis, ok := kinds.EstimateWorkingSet(Kind, params.Values{paramScale: scale})
		if !ok || b != 2*6e6*100 || basis != "scale 2 × ~600 MB of lineorder" {
			t.Errorf("scale %#v: %d, %q, %t", scale, b, basis, ok)
		}
	}
}
