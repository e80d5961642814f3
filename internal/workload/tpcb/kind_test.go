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
		p    map[string]any
		want int64
		ok   bool
	}{
		{map[string]any{"scale": int64(10)}, 10 * 15 << 20, true},
		{map[string]any{"scale": float64(100)}, 100 * 15 << 20, true}, // as JSON reads it back
		{map[string]any{"mode": "select-only"}, 0, false},
	} {
		if got, ok := info.WorkingSet(c.p); got != c.want || ok != c.ok {
			t.Errorf("WorkingSet(%v) = %d, %t; want %d, %t", c.p, got, ok, c.want, c.ok)
		}
	}
	if h := kinds.Headline("tpcb"); h.Unit != "tps" || !h.HigherIsBetter || h.Field != result.FieldRequests || len(h.Ops) != 0 {
		t.Errorf("tpcb headline %+v", h)
	}
}
