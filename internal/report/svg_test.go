package report

import (
	"math"
	"testing"
)

// An axis gets a handful of ticks, in order, from 0 to a top at or above
// its largest value, whatever that value: the largest float used to step
// to an infinite top, appending ticks until memory ran out.
func TestNiceTicksEndForAnyMaximum(t *testing.T) {
	for _, max := range []float64{0, -1, 0.003, 1, 7, 1234.5, 1e12, math.MaxFloat64 / 3, math.MaxFloat64, math.Inf(1), math.NaN()} {
		ts, top := niceTicks(max)
		if len(ts) < 2 || len(ts) > 12 {
			t.Errorf("niceTicks(%g): %d ticks", max, len(ts))
			continue
		}
		if ts[0].V != 0 || ts[len(ts)-1].V != top || math.IsInf(top, 0) || max > 0 && !math.IsInf(max, 0) && top < max {
			t.Errorf("niceTicks(%g): ticks %v…%v, top %g", max, ts[0].V, ts[len(ts)-1].V, top)
		}
		for i := 1; i < len(ts); i++ {
			if !(ts[i].V > ts[i-1].V) {
				t.Errorf("niceTicks(%g): tick %d (%g) not above %g", max, i, ts[i].V, ts[i-1].V)
			}
		}
	}
}

// A span of x values gets at most a few ticks inside it, and its two ends
// where no step of floats can divide it: a span below the values'
// precision used to step forever, v += step leaving v where it was.
func TestLinearTicksEndForAnySpan(t *testing.T) {
	for _, c := range [][2]float64{{0, 60}, {1, 2}, {-5, 5}, {1, 1 + 1e-15}, {1e15, 1e15 + 1}, {-math.MaxFloat64, math.MaxFloat64}, {0, math.Inf(1)}} {
		ts := linearTicks(c[0], c[1], 6)
		if len(ts) == 0 || len(ts) > 24 {
			t.Errorf("linearTicks(%g, %g): %d ticks", c[0], c[1], len(ts))
			continue
		}
		for _, tk := range ts {
			if tk.V < c[0] || tk.V > c[1]+(c[1]-c[0])/1e6 {
				t.Errorf("linearTicks(%g, %g): tick %g outside the span", c[0], c[1], tk.V)
			}
		}
	}
}
