package kv

import (
	"math"
	"math/rand/v2"
	"testing"
)

func draw(t *testing.T, g keyGen, n int) map[uint64]int {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	out := map[uint64]int{}
	for range n {
		out[g.next(rng)]++
	}
	return out
}

// The parallel pattern gives each client its own slice of the range, in
// order, the last client taking the leftover, as memtier splits it.
func TestParallelPatternSplitsTheRange(t *testing.T) {
	ks := keySpace{min: 10, max: 109}
	seen := map[uint64]int{}
	for c := range 3 {
		g, err := ks.newKeyGen('P', c, 3)
		if err != nil {
			t.Fatal(err)
		}
		prev := uint64(0)
		for i := range 40 {
			k := g.next(nil)
			if i > 0 && k != prev+1 && k >= prev {
				t.Fatalf("client %d: %d after %d, want sequential", c, k, prev)
			}
			prev = k
			seen[k] = c
		}
	}
	// (109 − 10) / 3 + 1 = 34 keys per client, the last one 32.
	if seen[10] != 0 || seen[43] != 0 || seen[44] != 1 || seen[78] != 2 || seen[109] != 2 {
		t.Fatalf("slices: 10→%d 43→%d 44→%d 78→%d 109→%d", seen[10], seen[43], seen[44], seen[78], seen[109])
	}
}

func TestSequentialWrapsAndUniformCoversTheRange(t *testing.T) {
	g, _ := keySpace{min: 5, max: 7}.newKeyGen('S', 0, 1)
	var got []uint64
	for range 5 {
		got = append(got, g.next(nil))
	}
	if got[0] != 5 || got[2] != 7 || got[3] != 5 {
		t.Fatalf("sequential: %v", got)
	}
	u, _ := keySpace{min: 1, max: 100}.newKeyGen('R', 0, 1)
	c := draw(t, u, 100000)
	if len(c) != 100 {
		t.Fatalf("uniform drew %d of 100 keys", len(c))
	}
	for k, n := range c {
		if k < 1 || k > 100 || n < 800 || n > 1200 {
			t.Fatalf("uniform: key %d drawn %d times of 100000", k, n)
		}
	}
}

// Zipf with exponent s: P(k) ∝ k^-s over the range, s = 1 included.
func TestZipfFollowsItsLaw(t *testing.T) {
	for _, s := range []float64{0.5, 1, 2} {
		z := newZipf(1, 1000, s)
		c := draw(t, z, 400000)
		var norm float64
		for k := 1; k <= 1000; k++ {
			norm += math.Pow(float64(k), -s)
		}
		for _, k := range []uint64{1, 2, 10} {
			want := 400000 * math.Pow(float64(k), -s) / norm
			if got := float64(c[k]); math.Abs(got-want) > 5*math.Sqrt(want)+0.01*want {
				t.Errorf("s=%v: key %d drawn %v times, want %.0f", s, k, got, want)
			}
		}
		for k := range c {
			if k < 1 || k > 1000 {
				t.Fatalf("s=%v: key %d outside the range", s, k)
			}
		}
	}
}

func TestGaussianCentresOnTheMedian(t *testing.T) {
	g, _ := keySpace{min: 0, max: 600}.newKeyGen('G', 0, 1)
	c := draw(t, g, 60000)
	var sum, n float64
	within := 0
	for k, m := range c {
		sum += float64(k) * float64(m)
		n += float64(m)
		if k >= 200 && k <= 400 {
			within += m
		}
	}
	// stddev (600 − 0) / 6 = 100 around 300: 68 % within one.
	if mean := sum / n; math.Abs(mean-300) > 3 || within < 39600 || within > 42000 {
		t.Fatalf("mean %.1f, %d of 60000 within one deviation", mean, within)
	}
}

func TestPatternAndRatioParsing(t *testing.T) {
	if s, g, err := parsePattern("s:r"); err != nil || s != 'S' || g != 'R' {
		t.Fatalf("%c %c %v", s, g, err)
	}
	for _, bad := range []string{"R", "X:R", "P:R", "RR:R"} {
		if _, _, err := parsePattern(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if r, err := parseRatio("1:10"); err != nil || r != (ratio{1, 10}) {
		t.Fatalf("%v %v", r, err)
	}
	for _, bad := range []string{"0:0", "1", "a:b", "-1:2"} {
		if _, err := parseRatio(bad); err == nil {
			t.Errorf("ratio %q accepted", bad)
		}
	}
}
