package tpcc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/workload"
)

func TestNURandStaysInRangeAndIsSkewed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, 3001)
	for i := 0; i < 300_000; i++ {
		v := nuRand(r, 1023, 259, 1, 3000)
		if v < 1 || v > 3000 {
			t.Fatalf("NURand(1023, 1, 3000) gave %d", v)
		}
		counts[v]++
	}
	// Non-uniform: the most drawn id is drawn far more often than the mean (100).
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	if most < 300 {
		t.Fatalf("the most frequent customer id was drawn %d times of 300 000: NURand looks uniform", most)
	}
}

func TestRunConstantsKeepTheSpecificationsDistanceFromTheLoad(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		load := loadConstants(seed)
		run := runConstants(load, rand.New(rand.NewPCG(seed, 7)))
		d := int64(math.Abs(float64(run.last - load.last)))
		if d < 65 || d > 119 || d == 96 || d == 112 {
			t.Fatalf("seed %d: C_LAST load %d run %d (delta %d) breaks clause 2.1.6.1", seed, load.last, run.last, d)
		}
	}
}

func TestLastNamesAndFormats(t *testing.T) {
	for n, want := range map[int64]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING"} {
		if got := lastName(n); got != want {
			t.Errorf("lastName(%d) = %s, want %s", n, got, want)
		}
	}
	for c, want := range map[int64]string{0: "0.00", 5: "0.05", 1234: "12.34", 500000: "5000.00", -1000: "-10.00"} {
		if got := money(c); got != want {
			t.Errorf("money(%d) = %s, want %s", c, got, want)
		}
	}
	for v, want := range map[int64]string{0: "0.0000", 500: "0.0500", 2000: "0.2000", 4999: "0.4999"} {
		if got := rate(v); got != want {
			t.Errorf("rate(%d) = %s, want %s", v, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	original := 0
	for i := 0; i < 10_000; i++ {
		s := dataString(r)
		if len(s) < 26 || len(s) > 50 {
			t.Fatalf("data string of %d characters", len(s))
		}
		for j := 0; j+8 <= len(s); j++ {
			if s[j:j+8] == "ORIGINAL" {
				original++
				break
			}
		}
		if z := zip(r); len(z) != 9 || z[4:] != "11111" {
			t.Fatalf("zip %q", z)
		}
	}
	if original < 900 || original > 1100 {
		t.Fatalf("%d of 10 000 data strings hold ORIGINAL, want about 10 %%", original)
	}
}

// Over 10 000 transactions of several users the mix is within one point of
// 45/43/4/4/4, and a retried transaction (the same random stream again) is
// dealt the same card.
func TestMixAndRetriesDealTheDeck(t *testing.T) {
	in := &instance{warehouses: 2}
	var counts [5]int
	total := 0
	for u := 0; u < 4; u++ {
		w := &worker{in: in, deal: rand.New(rand.NewPCG(uint64(u), 1))}
		pcg := rand.NewPCG(uint64(u), 99)
		rng := rand.New(pcg)
		for i := 0; i < 2500; i++ {
			state, _ := pcg.MarshalBinary()
			op := w.card(rng)
			if i%7 == 0 { // a retry replays the stream from the same state
				replay := rand.NewPCG(0, 0)
				if err := replay.UnmarshalBinary(state); err != nil {
					t.Fatal(err)
				}
				if again := w.card(rand.New(replay)); again != op {
					t.Fatalf("user %d, transaction %d: a retry was dealt %d after %d", u, i, again, op)
				}
			}
			counts[op]++
			total++
		}
	}
	for op, want := range mix {
		got := 100 * float64(counts[op]) / float64(total)
		if math.Abs(got-float64(want)) > 1 {
			t.Errorf("op %d: %.2f %% of %d transactions, want %d %% ± 1", op, got, total, want)
		}
	}
}

// TestWarehousesMustBePositive: the spec refuses 0 warehouses, naming the
// parameter, for the native workload and the tool cells alike (New takes
// values validated against it and checks no range again).
func TestWarehousesMustBePositive(t *testing.T) {
	w, err := workload.Get("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	spec, ok := params.Find(w.Params(), tpccparams.Warehouses)
	if !ok {
		t.Fatal("no warehouses parameter")
	}
	if _, err := params.Coerce(spec, int64(0)); err == nil || !strings.Contains(err.Error(), "warehouses must be at least 1") {
		t.Fatalf("0 warehouses: %v; want it refused, naming warehouses", err)
	}
}

// The same seed loads the same rows whatever the order of the warehouses.
func TestLoadRowsAreDeterministicPerWarehouse(t *testing.T) {
	collect := func(w int64) []any {
		l := &loader{seed: 42, c: loadConstants(42), at: "2026-01-01 00:00:00"}
		r := tableRand(l.seed, w*100+3, seedOrders)
		perm := r.Perm(customersPerDistrict)
		cnt := make([]int64, ordersPerDistrict+1)
		for o := range cnt[1:] {
			cnt[o+1] = between(r, 5, 15)
		}
		x := &orderLines{l: l, r: r, w: w, d: 3, cnt: cnt}
		var out []any
		for x.Next() {
			out = append(out, x.Values()...)
		}
		return append(out, perm[0], perm[2999])
	}
	a, b := collect(2), collect(2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d values", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("value %d differs between two generations of warehouse 2: %v and %v", i, a[i], b[i])
		}
	}
	c := collect(3)
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Fatal("warehouses 2 and 3 got the same rows")
	}
}
