package oltp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// dist is sysbench 1.0's sysbench.rand.default: the distribution --rand-type
// picks, with its --rand-spec-* and --rand-pareto-h shape parameters. The
// formulas follow sysbench's sb_rand.c, drawing from the runner's rng so that a
// retried transaction repeats its choices.
type dist struct {
	kind        string
	iter        int     // rand-spec-iter
	iterMult    float64 // 1 / iter
	pctMult     float64 // rand-spec-pct / 100
	pct2Mult    float64 // rand-spec-pct / 200
	resMult     float64 // 100 / (100 - rand-spec-res)
	paretoPower float64 // log(h) / log(1-h)
}

func newDist(kind string, iter, pct, res int64, paretoH float64) (*dist, error) {
	d := &dist{kind: kind}
	switch kind {
	case "uniform", "gaussian", "special", "pareto":
	default:
		return nil, fmt.Errorf("rand_type %q is not one of uniform, gaussian, special, pareto", kind)
	}
	// The specs bound rand_spec_iter, rand_spec_pct and rand_spec_res; the
	// Pareto shape's [0, 1] takes its ends, which the distribution cannot.
	if paretoH <= 0 || paretoH >= 1 {
		return nil, fmt.Errorf("rand_pareto_h must be between 0 and 1 (exclusive), got %g", paretoH)
	}
	d.iter = int(iter)
	d.iterMult = 1 / float64(iter)
	d.pctMult = float64(pct) / 100
	d.pct2Mult = float64(pct) / 200
	d.resMult = 100 / (100 - float64(res))
	d.paretoPower = math.Log(paretoH) / math.Log(1-paretoH)
	return d, nil
}

// uniform is sb_rand_uniform: an integer in [a, b].
func uniform(rng *rand.Rand, a, b int64) int64 {
	return a + int64(rng.Float64()*float64(b-a+1))
}

// next draws from the configured distribution in [a, b].
func (d *dist) next(rng *rand.Rand, a, b int64) int64 {
	switch d.kind {
	case "gaussian":
		t := float64(b - a + 1)
		sum := 0.0
		for i := 0; i < d.iter; i++ {
			sum += rng.Float64() * t
		}
		return a + int64(sum*d.iterMult)
	case "special":
		// (100 - res) % of the values follow a gaussian over the whole range; the
		// other res % fall uniformly into pct % of the range, centred: "hot" rows.
		t := float64(b - a)
		rnd := rng.Float64()
		if rnd*t*d.resMult < t {
			sum := 0.0
			for i := 0; i < d.iter; i++ {
				sum += rng.Float64()
			}
			return a + int64(sum*t*d.iterMult)
		}
		w := t * d.pctMult
		res := rnd*(w+1) + t/2 - t*d.pct2Mult
		return a + int64(res)
	case "pareto":
		return a + int64(float64(b-a+1)*math.Pow(rng.Float64(), d.paretoPower))
	}
	return uniform(rng, a, b)
}

// Templates of sysbench's c and pad values: '#' becomes a random digit.
const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	padTemplate = "###########-###########-###########-###########-###########"
)

// randString is sysbench.rand.string: each '#' a uniform digit, each '@' a
// uniform lower-case letter, everything else kept. buf is reused.
func randString(rng *rand.Rand, tmpl string, buf []byte) []byte {
	buf = buf[:0]
	for i := 0; i < len(tmpl); i++ {
		switch tmpl[i] {
		case '#':
			buf = append(buf, byte(uniform(rng, '0', '9')))
		case '@':
			buf = append(buf, byte(uniform(rng, 'a', 'z')))
		default:
			buf = append(buf, tmpl[i])
		}
	}
	return buf
}

// unique is sysbench.rand.unique: a sequence of distinct 32-bit values in a
// scrambled order (a quadratic-residue permutation), shared by all clients, used
// by oltp_insert for client-generated ids.
type unique struct {
	index  atomic.Uint32
	offset uint32
}

func permute(x uint32) uint32 {
	const prime = 4294967291
	if x >= prime {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % prime)
	if x <= prime/2 {
		return residue
	}
	return prime - residue
}

func newUnique(index, offset uint32) *unique {
	u := &unique{offset: permute(permute(offset) + 0x46790905)}
	u.index.Store(permute(permute(index) + 0x682f0161))
	return u
}

func (u *unique) next() uint32 {
	i := u.index.Add(1) - 1
	return permute((permute(i) + u.offset) ^ 0x5bf03635)
}
