package oltp

import (
	"math/rand/v2"
	"testing"
)

func TestTemplatesMatchSysbench(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := randString(rng, cTemplate, nil)
	pad := randString(rng, padTemplate, nil)
	// oltp_common.lua: 10 groups of 11 digits (119 chars) and 5 groups (59 chars).
	if len(c) != 119 || len(pad) != 59 {
		t.Fatalf("c %d chars, pad %d chars; sysbench's are 119 and 59", len(c), len(pad))
	}
	for i, ch := range c {
		if (i+1)%12 == 0 {
			if ch != '-' {
				t.Fatalf("c[%d] = %q, want '-'", i, ch)
			}
		} else if ch < '0' || ch > '9' {
			t.Fatalf("c[%d] = %q, want a digit", i, ch)
		}
	}
}

func TestDistributionsStayInRangeAndHaveTheirShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, draws = 10000, 200000
	for _, kind := range []string{"uniform", "gaussian", "special", "pareto"} {
		d, err := newDist(kind, 12, 1, 75, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		hot, low := 0, 0
		for i := 0; i < draws; i++ {
			v := d.next(rng, 1, n)
			if v < 1 || v > n {
				t.Fatalf("%s: %d outside [1, %d]", kind, v, n)
			}
			if v >= n/2-n/200 && v <= n/2+n/200+1 {
				hot++
			}
			if v <= n/5 {
				low++
			}
		}
		hotShare, lowShare := float64(hot)/draws, float64(low)/draws
		switch kind {
		case "uniform":
			if hotShare > 0.02 || lowShare < 0.19 || lowShare > 0.21 {
				t.Errorf("uniform: hot %.3f, lowest fifth %.3f", hotShare, lowShare)
			}
		case "special":
			// rand-spec-res 75: three quarters of the draws hit the central 1 %.
			if hotShare < 0.74 || hotShare > 0.80 {
				t.Errorf("special: %.3f of the draws in the central 1 %%, want about 0.75", hotShare)
			}
		case "pareto":
			// h = 0.2: 80 % of the draws in the lowest 20 % of the range.
			if lowShare < 0.78 || lowShare > 0.82 {
				t.Errorf("pareto: %.3f in the lowest fifth, want about 0.8", lowShare)
			}
		case "gaussian":
			if lowShare > 0.01 {
				t.Errorf("gaussian (12 iterations): %.3f in the lowest fifth", lowShare)
			}
		}
	}
	if _, err := newDist("zipfian", 12, 1, 75, 0.2); err == nil {
		t.Error("zipfian is not in sysbench 1.0 and must be refused")
	}
}

func TestUniqueNeverRepeats(t *testing.T) {
	u := newUnique(7, 11)
	seen := map[uint32]bool{}
	for i := 0; i < 100000; i++ {
		v := u.next()
		if seen[v] {
			t.Fatalf("value %d repeated after %d draws", v, i)
		}
		seen[v] = true
	}
}
