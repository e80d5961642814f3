package ycsb

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
)

const draws = 1_000_000

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// grayP is the probability that Gray et al.'s algorithm (as YCSB codes it,
// with ζ = zetan over n items) returns rank i (1-based): ranks 1 and 2 from
// the two thresholds, rank i ≥ 3 the u for which ⌊n·(ηu−η+1)^α⌋ = i−1.
func grayP(i int, n int64, theta, zetan float64) float64 {
	switch i {
	case 1:
		return 1 / zetan
	case 2:
		return math.Pow(0.5, theta) / zetan
	}
	eta := (1 - math.Pow(2.0/float64(n), 1-theta)) / (1 - zeta(2, theta)/zetan)
	u := func(k int) float64 { return (math.Pow(float64(k)/float64(n), 1-theta) - 1 + eta) / eta }
	u0 := (1 + math.Pow(0.5, theta)) / zetan
	lo, hi := max(u(i-1), u0), min(u(i), 1)
	return max(0, hi-lo)
}

// zipfP is p(i) = i^-θ / ζ(n, θ) for rank i (1-based).
func zipfP(i int, n int64, theta float64) float64 {
	return math.Pow(float64(i), -theta) / zeta(n, theta)
}

// TestZipfianFrequencies draws 10^6 values over 1000 items and compares the
// frequencies with p(i) = i^-0.99 / ζ(1000, 0.99). Gray et al.'s algorithm is
// exact for ranks 1 and 2 and approximate beyond (in YCSB as here: rank 3
// comes out ~17% above p(3)), hence the two tolerances.
func TestZipfianFrequencies(t *testing.T) {
	const n = 1000
	r := newRand(1)
	z := newZipfian(0, n-1)
	c := make([]int, n+1)
	for i := 0; i < draws; i++ {
		v := z.Next(r)
		if v < 0 || v > n {
			t.Fatalf("draw %d outside 0..%d", v, n)
		}
		c[v]++
	}
	for i := 1; i <= 10; i++ {
		f := float64(c[i-1]) / draws
		p := zipfP(i, n, zipfianConstant)
		tol := 0.20 // Gray's approximation for ranks ≥ 3
		if i <= 2 {
			tol = 0.02 // exact; sampling sd < 0.5%
		}
		if rel := f/p - 1; math.Abs(rel) > tol {
			t.Errorf("rank %d: frequency %.5f, p %.5f (%+.1f%%, tolerance %.0f%%)", i, f, p, 100*rel, 100*tol)
		}
		// And exactly Gray's algorithm: within 3% of its own probability
		// (sampling sd ≤ 1% for these ranks).
		if g := grayP(i, n, zipfianConstant, zeta(n, zipfianConstant)); math.Abs(f/g-1) > 0.03 {
			t.Errorf("rank %d: frequency %.5f, Gray's algorithm %.5f (tolerance 3%%)", i, f, g)
		}
	}
	tail, ptail := 0, 0.0
	for i := 100; i <= n; i++ {
		tail += c[i]
	}
	for i := 101; i <= n; i++ {
		ptail += zipfP(i, n, zipfianConstant)
	}
	if f := float64(tail) / draws; math.Abs(f/ptail-1) > 0.05 {
		t.Errorf("ranks > 100: frequency %.4f, p %.4f (tolerance 5%%)", f, ptail)
	}
	// Monotone head: each of the 10 hottest ranks is drawn more than the next.
	for i := 0; i < 9; i++ {
		if c[i] <= c[i+1] {
			t.Errorf("rank %d drawn %d times, rank %d %d times", i+1, c[i], i+2, c[i+1])
		}
	}
}

// TestZipfianIncrementalZeta: drawing over a grown item count extends ζ from
// the count it had (YCSB's incremental zeta), η keeping the built item count.
func TestZipfianIncrementalZeta(t *testing.T) {
	z := newZipfian(0, 999)
	r := newRand(2)
	z.nextN(r, 1500)
	z.nextN(r, 2000)
	st := z.st.Load()
	if st.countforzeta != 2000 {
		t.Fatalf("countforzeta %d, want 2000", st.countforzeta)
	}
	if want := zeta(2000, zipfianConstant); math.Abs(st.zetan-want) > 1e-9 {
		t.Errorf("zetan %v, want ζ(2000) = %v", st.zetan, want)
	}
	wantEta := (1 - math.Pow(2.0/1000, 0.01)) / (1 - zeta(2, 0.99)/st.zetan)
	if math.Abs(st.eta-wantEta) > 1e-12 {
		t.Errorf("eta %v, want %v", st.eta, wantEta)
	}
	z.nextN(r, 1200) // smaller: ζ stays
	if z.st.Load().countforzeta != 2000 {
		t.Errorf("ζ recomputed for a smaller item count")
	}
	// Concurrent growth: every grown count is reached exactly once.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := newRand(uint64(10 + g))
			for n := int64(2001); n <= 3000; n++ {
				z.nextN(r, n)
			}
		}(g)
	}
	wg.Wait()
	if st := z.st.Load(); st.countforzeta != 3000 || math.Abs(st.zetan-zeta(3000, 0.99)) > 1e-9 {
		t.Errorf("after concurrent growth: count %d zetan %v, want 3000 %v", st.countforzeta, st.zetan, zeta(3000, 0.99))
	}
}

// TestScrambledZetan: the precomputed constant is YCSB's.
func TestScrambledZetan(t *testing.T) {
	if scrambledZetan != 26.46902820178302 || scrambledItemCount != 1e10 || zipfianConstant != 0.99 {
		t.Fatal("scrambled zipfian constants differ from YCSB's")
	}
}

// TestScrambledZipfian: over 1000 items, the sorted frequency profile is that
// of a zipfian over 10^10 items folded onto 1000 (each rank i of the head
// keeps i^-0.99/26.469 up to Gray's approximation; the rest, ~71% of the
// mass, spreads evenly, ~0.07% per key), and the hottest keys are spread over the range, not at its start.
func TestScrambledZipfian(t *testing.T) {
	const n = 1000
	r := newRand(3)
	s := newScrambledZipfian(0, n-1)
	c := make([]int, n)
	for i := 0; i < draws; i++ {
		v := s.Next(r)
		if v < 0 || v >= n {
			t.Fatalf("draw %d outside 0..%d", v, n-1)
		}
		c[v]++
	}
	type kc struct{ k, c int }
	sorted := make([]kc, n)
	for k := range c {
		sorted[k] = kc{k, c[k]}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].c > sorted[j].c })
	head := 0.0
	for i := 1; i <= 1000; i++ {
		head += math.Pow(float64(i), -0.99) / scrambledZetan
	}
	spread := (1 - head) / n
	for i := 1; i <= 5; i++ {
		p := math.Pow(float64(i), -0.99)/scrambledZetan + spread
		g := grayP(i, scrambledItemCount+1, 0.99, scrambledZetan) + spread
		f := float64(sorted[i-1].c) / draws
		if math.Abs(f/g-1) > 0.05 {
			t.Errorf("hottest #%d: frequency %.5f, Gray's algorithm %.5f (tolerance 5%%)", i, f, g)
		}
		if math.Abs(f/p-1) > 0.25 {
			t.Errorf("hottest #%d: frequency %.5f, zipfian %.5f (tolerance 25%%)", i, f, p)
		}
	}
	// Skew remains: the 10 hottest keys (1% of them) take far more than 1%.
	top := 0
	minK, maxK := n, 0
	for _, e := range sorted[:10] {
		top += e.c
		minK, maxK = min(minK, e.k), max(maxK, e.k)
	}
	if f := float64(top) / draws; f < 0.08 {
		t.Errorf("10 hottest keys take %.3f of the draws, want a zipfian head (> 0.08)", f)
	}
	if maxK-minK < n/2 {
		t.Errorf("10 hottest keys within %d..%d: not spread over the range", minK, maxK)
	}
	// The key YCSB's hash makes hottest: fnvhash64(0) % 1000.
	if want := int(fnvHash64(0) % n); sorted[0].k != want {
		t.Errorf("hottest key %d, want fnvhash64(0)%%1000 = %d", sorted[0].k, want)
	}
}

// TestSkewedLatest: the most recently acknowledged keys are the hottest, and
// the hot spot follows the inserts.
func TestSkewedLatest(t *testing.T) {
	ack := newAckCounter(1000) // CoreWorkload: recordcount loaded, limit 999
	s := newSkewedLatest(ack)
	r := newRand(4)
	count := func() map[int64]int {
		c := map[int64]int{}
		for i := 0; i < 200_000; i++ {
			v := s.Next(r)
			if v < 0 || v > ack.Last() {
				t.Fatalf("draw %d outside 0..%d", v, ack.Last())
			}
			c[v]++
		}
		return c
	}
	c := count()
	if !(c[999] > c[998] && c[998] > c[997] && c[997] > c[990] && c[990] > c[900]) {
		t.Errorf("not hottest at the latest: 999:%d 998:%d 997:%d 990:%d 900:%d", c[999], c[998], c[997], c[990], c[900])
	}
	for i := 0; i < 100; i++ {
		if err := ack.acknowledge(ack.Next(r)); err != nil {
			t.Fatal(err)
		}
	}
	if ack.Last() != 1099 {
		t.Fatalf("limit %d, want 1099", ack.Last())
	}
	c = count()
	if !(c[1099] > c[1098] && c[1098] > c[999]) {
		t.Errorf("hot spot did not follow the inserts: 1099:%d 1098:%d 999:%d", c[1099], c[1098], c[999])
	}
}

// TestHotspot: the share of draws in the hot set is hotopnfraction, and both
// sets are covered uniformly.
func TestHotspot(t *testing.T) {
	h, err := newHotspot(0, 999, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(5)
	hot := 0
	c := make([]int, 1000)
	for i := 0; i < draws; i++ {
		v := h.Next(r)
		if v < 0 || v > 999 {
			t.Fatalf("draw %d outside 0..999", v)
		}
		c[v]++
		if v < 200 {
			hot++
		}
	}
	if f := float64(hot) / draws; math.Abs(f-0.8) > 0.003 {
		t.Errorf("hot share %.4f, want 0.8 ± 0.003", f)
	}
	// per key: hot 0.8/200 = 0.004, cold 0.2/800 = 0.00025
	for k, n := range c {
		p := 0.00025
		if k < 200 {
			p = 0.004
		}
		if math.Abs(float64(n)/draws/p-1) > 0.3 { // cold: 250 expected, sd 6%
			t.Errorf("key %d: frequency %.6f, want %.6f ± 30%%", k, float64(n)/draws, p)
			break
		}
	}
	if _, err := newHotspot(0, 9, 1.5, 0.8); err == nil {
		t.Error("hotspotdatafraction 1.5 accepted")
	}
}

// TestExponential: with YCSB's defaults (percentile 95, range recordcount·
// 0.8571428571) 95% of the draws are below the range, the mean is 1/γ.
func TestExponential(t *testing.T) {
	rng := 1000 * exponentialFracDefault
	e := newExponential(exponentialPercentileDefault, rng)
	r := newRand(6)
	below, sum := 0, 0.0
	for i := 0; i < draws; i++ {
		v := e.float(r)
		if v < 0 {
			t.Fatalf("negative draw %v", v)
		}
		sum += v
		if v < rng {
			below++
		}
	}
	if f := float64(below) / draws; math.Abs(f-0.95) > 0.002 {
		t.Errorf("%.4f of draws below the range, want 0.95 ± 0.002", f)
	}
	if m := sum / draws; math.Abs(m/e.mean()-1) > 0.01 {
		t.Errorf("mean %.2f, want %.2f ± 1%%", m, e.mean())
	}
	// CoreWorkload's key choice counts back from the acknowledged limit.
	ack := newAckCounter(1000)
	c := map[int64]int{}
	for i := 0; i < 100_000; i++ {
		k := nextKeynum(r, e, ack)
		if k < 0 || k > 999 {
			t.Fatalf("key %d outside 0..999", k)
		}
		c[k]++
	}
	if !(c[999] > c[900] && c[900] > c[500]) {
		t.Errorf("exponential keys not hottest at the latest: 999:%d 900:%d 500:%d", c[999], c[900], c[500])
	}
}

// TestUniform: all of lb..ub and nothing else, evenly.
func TestUniform(t *testing.T) {
	u := newUniform(10, 109)
	r := newRand(7)
	c := map[int64]int{}
	for i := 0; i < draws; i++ {
		c[u.Next(r)]++
	}
	if len(c) != 100 {
		t.Fatalf("%d distinct values, want 100", len(c))
	}
	for k, n := range c {
		if k < 10 || k > 109 {
			t.Fatalf("draw %d outside 10..109", k)
		}
		if math.Abs(float64(n)/(draws/100)-1) > 0.05 {
			t.Errorf("value %d drawn %d times, want %d ± 5%%", k, n, draws/100)
		}
	}
}

func TestSequentialAndCounter(t *testing.T) {
	s := newSequential(5, 7)
	var got []int64
	for i := 0; i < 7; i++ {
		got = append(got, s.Next(nil))
	}
	want := []int64{5, 6, 7, 5, 6, 7, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequential %v, want %v", got, want)
		}
	}
	c := newCounter(3)
	if c.Last() != 2 || c.Next(nil) != 3 || c.Next(nil) != 4 || c.Last() != 4 {
		t.Error("counter does not count from 3")
	}
}

// TestAckCounterConcurrent: 8 clients take insert numbers and acknowledge
// them out of order; the limit never passes an unacknowledged number and ends
// at the last one.
func TestAckCounterConcurrent(t *testing.T) {
	const start, clients, per = 1000, 8, 20_000
	a := newAckCounter(start)
	if a.Last() != start-1 {
		t.Fatalf("initial limit %d, want %d", a.Last(), start-1)
	}
	acked := make([]bool, clients*per)
	var mu sync.Mutex
	stop := make(chan struct{})
	var bad []int64
	var wgW sync.WaitGroup
	wgW.Add(1)
	go func() { // watcher: everything at or below the limit is acknowledged
		defer wgW.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			l := a.Last()
			mu.Lock()
			for v := l; v >= start && v > l-64; v-- {
				if !acked[v-start] {
					bad = append(bad, v)
				}
			}
			mu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	for g := 0; g < clients; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := newRand(uint64(100 + g))
			var pending []int64
			for i := 0; i < per; i++ {
				pending = append(pending, a.Next(r))
				if len(pending) == 16 || i == per-1 {
					r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
					for _, v := range pending {
						mu.Lock()
						acked[v-start] = true
						mu.Unlock()
						if err := a.acknowledge(v); err != nil {
							t.Error(err)
							return
						}
					}
					pending = pending[:0]
				}
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	wgW.Wait()
	if len(bad) > 0 {
		t.Errorf("limit passed unacknowledged numbers, e.g. %d", bad[0])
	}
	if want := int64(start + clients*per - 1); a.Last() != want {
		t.Errorf("final limit %d, want %d", a.Last(), want)
	}
	// The same slot twice without the limit passing it: window full.
	b := newAckCounter(0)
	b.Next(nil)
	v := b.Next(nil)
	if err := b.acknowledge(v); err != nil {
		t.Fatal(err)
	}
	if err := b.acknowledge(v + ackWindowSize); err != errAckWindowFull {
		t.Errorf("overlapping acknowledgement: %v, want ErrAckWindowFull", err)
	}
}

func TestFieldLength(t *testing.T) {
	r := newRand(8)
	g, err := newFieldLength("constant", 1, 100)
	if err != nil || g.Next(r) != 100 {
		t.Fatalf("constant: %v", err)
	}
	g, _ = newFieldLength("uniform", 10, 20)
	seen := map[int64]bool{}
	for i := 0; i < 10_000; i++ {
		v := g.Next(r)
		if v < 10 || v > 20 {
			t.Fatalf("uniform length %d outside 10..20", v)
		}
		seen[v] = true
	}
	if len(seen) != 11 {
		t.Errorf("uniform lengths: %d distinct, want 11", len(seen))
	}
	g, _ = newFieldLength("zipfian", 10, 100)
	c := map[int64]int{}
	for i := 0; i < 100_000; i++ {
		v := g.Next(r)
		if v < 10 || v > 101 {
			t.Fatalf("zipfian length %d outside 10..100", v)
		}
		c[v]++
	}
	if !(c[10] > c[11] && c[11] > c[12] && c[12] > c[50]) {
		t.Errorf("zipfian lengths not most frequent at minfieldlength: %v %v %v %v", c[10], c[11], c[12], c[50])
	}
	if _, err := newFieldLength("histogram", 1, 100); err == nil {
		t.Error("histogram accepted")
	}
}
