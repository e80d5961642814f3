package kv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Key patterns, memtier_benchmark's (obj_gen.cpp): R uniform over the range,
// S sequential from the minimum, wrapping, G Gaussian around a median, Z
// Zipf over the range, P sequential over the client's own slice of the range
// (the range split between the run's clients, the last taking the leftover).

type keyGen interface {
	next(rng *rand.Rand) uint64
}

type uniformKeys struct{ min, max uint64 }

func (g uniformKeys) next(rng *rand.Rand) uint64 { return g.min + rng.Uint64N(g.max-g.min+1) }

type seqKeys struct{ min, max, at uint64 }

func (g *seqKeys) next(*rand.Rand) uint64 {
	k := g.at
	if g.at++; g.at > g.max {
		g.at = g.min
	}
	return k
}

type gaussKeys struct {
	min, max       uint64
	stddev, median float64
}

// next draws until the value falls in the range, as memtier's
// gaussian_distribution_range does.
func (g gaussKeys) next(rng *rand.Rand) uint64 {
	for {
		x := math.Round(rng.NormFloat64()*g.stddev + g.median)
		if x >= float64(g.min) && x <= float64(g.max) {
			return uint64(x)
		}
	}
}

// zipfKeys samples k in [min, max] with probability ∝ k^-s by
// rejection-inversion (Hörmann and Derflinger, ACM TOMACS 6(3), 1996), the
// sampler memtier uses; any s in (0, 5), s = 1 included, which
// math/rand/v2's Zipf (s > 1 only) cannot give.
type zipfKeys struct {
	min, max   float64
	s          float64
	hMin, hMax float64 // H(min + 0.5) - min^-s and H(max + 0.5)
	cut        float64 // accept at once when k - x ≤ cut
}

func newZipf(min, max uint64, s float64) *zipfKeys {
	if min == 0 {
		min = 1 // as memtier: ranks start at 1
	}
	if max < min {
		max = min
	}
	z := &zipfKeys{min: float64(min), max: float64(max), s: s}
	z.hMin = z.h(z.min+0.5) - math.Pow(z.min, -s)
	z.hMax = z.h(z.max + 0.5)
	z.cut = z.min + 1 - z.hInv(z.h(z.min+1.5)-math.Pow(z.min+1, -s))
	return z
}

// h is the integral of x^-s; hInv its inverse.
func (z *zipfKeys) h(x float64) float64 {
	if math.Abs(z.s-1) < 1e-9 {
		return math.Log(x)
	}
	return math.Pow(x, 1-z.s) / (1 - z.s)
}

func (z *zipfKeys) hInv(u float64) float64 {
	if math.Abs(z.s-1) < 1e-9 {
		return math.Exp(u)
	}
	return math.Pow(u*(1-z.s), 1/(1-z.s))
}

func (z *zipfKeys) next(rng *rand.Rand) uint64 {
	for {
		u := z.hMin + rng.Float64()*(z.hMax-z.hMin)
		x := z.hInv(u)
		k := math.Floor(x + 0.5)
		k = max(z.min, min(k, z.max))
		if k-x <= z.cut || u >= z.h(k+0.5)-math.Pow(k, -z.s) {
			return uint64(k)
		}
	}
}

// keySpace is the key parameters a generator is built from.
type keySpace struct {
	min, max       uint64
	stddev, median float64
	zipfExp        float64
}

// newKeyGen builds the generator of pattern for the client index of clients.
func (ks keySpace) newKeyGen(pattern byte, index, clients int) (keyGen, error) {
	switch pattern {
	case 'R':
		return uniformKeys{ks.min, ks.max}, nil
	case 'S':
		return &seqKeys{min: ks.min, max: ks.max, at: ks.min}, nil
	case 'G':
		sd, med := ks.stddev, ks.median
		if sd <= 0 {
			sd = float64(ks.max-ks.min) / 6 // memtier's default
		}
		if med <= 0 {
			med = float64(ks.max-ks.min)/2 + float64(ks.min)
		}
		return gaussKeys{ks.min, ks.max, sd, med}, nil
	case 'Z':
		return newZipf(ks.min, ks.max, ks.zipfExp), nil
	case 'P':
		if clients < 1 {
			clients = 1
		}
		span := (ks.max-ks.min)/uint64(clients) + 1
		lo := ks.min + span*uint64(index)
		hi := lo + span - 1
		if index == clients-1 || hi > ks.max {
			hi = ks.max
		}
		if lo > ks.max { // more clients than keys
			lo, hi = ks.max, ks.max
		}
		return &seqKeys{min: lo, max: hi, at: lo}, nil
	}
	return nil, fmt.Errorf("key pattern %q: use R (random), S (sequential), G (Gaussian), Z (Zipf) or P (parallel)", pattern)
}

// parsePattern reads "SET:GET" key patterns ("R:R", "P:P").
func parsePattern(s string) (set, get byte, err error) {
	a, b, ok := strings.Cut(strings.ToUpper(s), ":")
	if !ok || len(a) != 1 || len(b) != 1 || !strings.Contains("RSGZP", a) || !strings.Contains("RSGZP", b) {
		return 0, 0, fmt.Errorf("key_pattern %q: write SET:GET with each of R, S, G, Z, P (memtier's --key-pattern, e.g. R:R)", s)
	}
	if (a == "P") != (b == "P") {
		return 0, 0, fmt.Errorf("key_pattern %q: the parallel pattern P must be given for both SET and GET (as memtier requires)", s)
	}
	return a[0], b[0], nil
}
