package tpcb

import (
	"testing"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

func TestKindRegistered(t *testing.T) {
	info, ok := kinds.Lookup("tpcb")
	if !ok || info.WorkingSet == nil {
		t.Fatal("tpcb registers no working-set estimate")
	}
	for _, c := range []struct {
		p     map[string]any
		want  int64
		basis string
		ok    bool
	}{
		{map[string]any{"scale": int64(10)}, 10 * 15 << 20, "scale 10 × ~15 MB", true},
		{map[string]any{"scale": float64(100)}, 100 * 15 << 20, "scale 100 × ~15 MB", true}, // as JSON reads it back
		{map[string]any{"mode": "select-only"}, 0, "", false},
	} {
		if got, basis, ok := kinds.EstimateWorkingSet("tpcb", c.p); got != c.want || ok != c.ok || basis != c.basis {
			t.Errorf("WorkingSet(%v) = %d, %q, %t; want %d, %q, %t", c.p, got, basis, ok, c.want, c.basis, c.ok)
		}
	}
	if h := kinds.Headline("tpcb"); h.Unit != "tps" || !h.HigherIsBetter || h.Field != result.FieldRequests || len(h.Ops) != 0 {
		t.Errorf("tpcb headline %+v", h)
	}
}
