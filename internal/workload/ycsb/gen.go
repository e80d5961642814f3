package ycsb

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// generator draws integers, as YCSB's NumberGenerator. Next takes the caller's
// random stream; Last is the last value drawn (or, for the counters, YCSB's
// lastValue()).
type generator interface {
	Next(r *rand.Rand) int64
	Last() int64
}

// lastValue keeps the last value drawn; it is shared between clients, so it
// is atomic (YCSB's NumberGenerator.lastVal is a plain field).
type lastValue struct{ v atomic.Int64 }

func (l *lastValue) set(v int64) { l.v.Store(v) }

// Last returns the last value drawn.
func (l *lastValue) Last() int64 { return l.v.Load() }

// constant always returns the same value (YCSB's ConstantIntegerGenerator).
type constant struct{ V int64 }

// Next returns c.V.
func (c constant) Next(*rand.Rand) int64 { return c.V }

// Last returns c.V.
func (c constant) Last() int64 { return c.V }

// uniform draws uniformly from lb..ub inclusive (YCSB's UniformLongGenerator).
type uniform struct {
	lastValue
	lb, interval int64
}

// newUniform returns a uniform generator over lb..ub inclusive.
func newUniform(lb, ub int64) *uniform {
	return &uniform{lb: lb, interval: ub - lb + 1}
}

// Next draws the next value.
func (u *uniform) Next(r *rand.Rand) int64 {
	v := u.lb + r.Int64N(u.interval)
	u.set(v)
	return v
}

// sequential returns countstart, countstart+1, …, countend and wraps around
// (YCSB's SequentialGenerator).
type sequential struct {
	lastValue
	counter              atomic.Int64
	countstart, interval int64
}

// newSequential returns a sequential generator over countstart..countend.
func newSequential(countstart, countend int64) *sequential {
	return &sequential{countstart: countstart, interval: countend - countstart + 1}
}

// Next returns the next value in sequence.
func (s *sequential) Next(*rand.Rand) int64 {
	v := s.countstart + (s.counter.Add(1)-1)%s.interval
	s.set(v)
	return v
}

// Counter returns countstart, countstart+1, … (YCSB's CounterGenerator). Safe
// for concurrent use.
type Counter struct{ counter atomic.Int64 }

// newCounter returns a counter starting at countstart.
func newCounter(countstart int64) *Counter {
	c := &Counter{}
	c.counter.Store(countstart)
	return c
}

// Next returns the next number.
func (c *Counter) Next(*rand.Rand) int64 { return c.counter.Add(1) - 1 }

// Last returns the last number handed out.
func (c *Counter) Last() int64 { return c.counter.Load() - 1 }

// ackWindowSize is the number of insert numbers that may be handed out but
// not yet acknowledged (YCSB's AcknowledgedCounterGenerator.WINDOW_SIZE, 2^20).
const ackWindowSize = 1 << 20

const ackWindowMask = ackWindowSize - 1

// errAckWindowFull is returned by Acknowledge when more than AckWindowSize
// numbers are outstanding (YCSB throws "Too many unacknowledged insertion
// keys.").
var errAckWindowFull = errors.New("ycsb: too many unacknowledged insertion keys")

// ackCounter is YCSB's AcknowledgedCounterGenerator: Next hands out insert
// numbers like Counter, but Last (the limit the key choosers draw below) only
// advances over numbers that have been acknowledged, in order, so that a
// reader never picks a key whose insert has not completed. Safe for
// concurrent use by many clients.
type ackCounter struct {
	Counter
	mu     sync.Mutex
	window []atomic.Bool
	limit  atomic.Int64
}

// newAckCounter returns an acknowledged counter starting at countstart; its
// limit starts at countstart-1.
func newAckCounter(countstart int64) *ackCounter {
	a := &ackCounter{window: make([]atomic.Bool, ackWindowSize)}
	a.counter.Store(countstart)
	a.limit.Store(countstart - 1)
	return a
}

// Last returns the highest number below which all numbers are acknowledged.
func (a *ackCounter) Last() int64 { return a.limit.Load() }

// acknowledge marks v (a number returned by Next) as inserted. As in YCSB,
// the caller that gets the lock advances the limit over every acknowledged
// number that follows it, and a caller that does not get it leaves the work
// to the holder. Unlike YCSB, the holder looks again after unlocking: in YCSB
// an acknowledgement that arrives while the holder is past its slot stays
// unseen until the next Acknowledge (at the end of a run, for good).
func (a *ackCounter) acknowledge(v int64) error {
	if a.window[v&ackWindowMask].Swap(true) {
		return errAckWindowFull
	}
	for a.mu.TryLock() {
		index := a.limit.Load() + 1
		for n := 0; n < ackWindowSize; n++ {
			s := index & ackWindowMask
			if !a.window[s].Load() {
				break
			}
			a.window[s].Store(false)
			index++
		}
		a.limit.Store(index - 1)
		a.mu.Unlock()
		if !a.window[index&ackWindowMask].Load() {
			break
		}
	}
	return nil
}

// zipfianConstant is YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT.
const zipfianConstant = 0.99

// zeta returns ζ(n, θ) = Σ_{i=1..n} 1/i^θ (YCSB's zetastatic).
func zeta(n int64, theta float64) float64 { return zetaFrom(0, n, theta, 0) }

// zetaFrom adds the terms st+1..n to initial (YCSB's incremental zeta).
func zetaFrom(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// zipfState is what the item count changes: an immutable snapshot.
type zipfState struct {
	countforzeta int64
	zetan, eta   float64
}

// zipfian is YCSB's ZipfianGenerator: Gray et al.'s "Quickly generating
// billion-record synthetic databases" (SIGMOD 1994) over base..base+items-1,
// item 0 (base) the most popular. NextN draws over a grown item count,
// extending ζ incrementally as YCSB does for "latest".
type zipfian struct {
	lastValue
	items, base            int64
	theta, alpha, zeta2the float64
	mu                     sync.Mutex
	st                     atomic.Pointer[zipfState]
}

// newZipfian returns a zipfian generator over min..max with YCSB's constant.
func newZipfian(min, max int64) *zipfian {
	return newZipfianTheta(min, max, zipfianConstant)
}

// newZipfianTheta returns a zipfian generator over min..max with constant
// theta; it computes ζ(max-min+1, θ), O(items).
func newZipfianTheta(min, max int64, theta float64) *zipfian {
	return newZipfianZetan(min, max, theta, zeta(max-min+1, theta))
}

func newZipfianZetan(min, max int64, theta, zetan float64) *zipfian {
	z := &zipfian{items: max - min + 1, base: min, theta: theta}
	z.zeta2the = zeta(2, theta)
	z.alpha = 1 / (1 - theta)
	z.st.Store(&zipfState{countforzeta: z.items, zetan: zetan, eta: z.eta(zetan)})
	return z
}

// eta is YCSB's η; like YCSB it uses the item count the generator was built
// with, also after ζ has been extended to a larger count.
func (z *zipfian) eta(zetan float64) float64 {
	return (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2the/zetan)
}

// Items is the item count the generator was built with.
func (z *zipfian) Items() int64 { return z.items }

// Next draws over the generator's own item count.
func (z *zipfian) Next(r *rand.Rand) int64 { return z.nextN(r, z.items) }

// nextN draws over itemcount items (YCSB's nextLong(itemcount)). When
// itemcount has grown, ζ is extended from the count it was computed for; a
// smaller itemcount keeps the larger ζ (YCSB's allowitemcountdecrease is
// false and cannot be set).
func (z *zipfian) nextN(r *rand.Rand, itemcount int64) int64 {
	st := z.st.Load()
	if itemcount > st.countforzeta {
		z.mu.Lock()
		st = z.st.Load()
		if itemcount > st.countforzeta {
			zetan := zetaFrom(st.countforzeta, itemcount, z.theta, st.zetan)
			st = &zipfState{countforzeta: itemcount, zetan: zetan, eta: z.eta(zetan)}
			z.st.Store(st)
		}
		z.mu.Unlock()
	}
	u := r.Float64()
	uz := u * st.zetan
	if uz < 1.0 {
		return z.base
	}
	if uz < 1.0+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	v := z.base + int64(float64(itemcount)*math.Pow(st.eta*u-st.eta+1, z.alpha))
	z.set(v)
	return v
}

// Scrambled-zipfian constants (YCSB's ScrambledZipfianGenerator).
const (
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302 // ζ(ScrambledItemCount, 0.99)
)

// scrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian draw over
// 0..10^10 (with the precomputed ζ), FNV-hashed (Utils.fnvhash64) and taken
// modulo the item count, so the popular items are spread over min..max.
type scrambledZipfian struct {
	lastValue
	gen            *zipfian
	min, itemcount int64
}

// newScrambledZipfian returns a scrambled zipfian over min..max.
func newScrambledZipfian(min, max int64) *scrambledZipfian {
	return &scrambledZipfian{
		// YCSB builds ZipfianGenerator(0, ITEM_COUNT, …): ITEM_COUNT+1 items.
		gen:       newZipfianZetan(0, scrambledItemCount, zipfianConstant, scrambledZetan),
		min:       min,
		itemcount: max - min + 1,
	}
}

// Next draws the next value.
func (s *scrambledZipfian) Next(r *rand.Rand) int64 {
	v := s.min + fnvHash64(s.gen.Next(r))%s.itemcount
	s.set(v)
	return v
}

// skewedLatest is YCSB's SkewedLatestGenerator: a zipfian draw subtracted
// from the basis' Last, so the most recently inserted (acknowledged) items are
// the most popular.
type skewedLatest struct {
	lastValue
	basis interface{ Last() int64 }
	zipf  *zipfian
}

// newSkewedLatest returns a skewed-latest generator over basis (in
// CoreWorkload the run's AckCounter). As YCSB, the zipfian is built for
// basis.Last() items.
func newSkewedLatest(basis interface{ Last() int64 }) *skewedLatest {
	return &skewedLatest{basis: basis, zipf: newZipfian(0, basis.Last()-1)}
}

// Next draws the next value.
func (s *skewedLatest) Next(r *rand.Rand) int64 {
	max := s.basis.Last()
	v := max - s.zipf.nextN(r, max)
	s.set(v)
	return v
}

// hotspot is YCSB's HotspotIntegerGenerator: a fraction hotOpn of the draws
// fall uniformly in the first hotSet fraction of lb..ub, the rest uniformly
// in the remainder.
type hotspot struct {
	lastValue
	lb, hotInterval, coldInterval int64
	hotOpn                        float64
}

// newHotspot returns a hotspot generator. Fractions outside [0, 1] are an
// error (YCSB prints a warning and uses 0); lb > ub are swapped as in YCSB.
func newHotspot(lb, ub int64, hotSet, hotOpn float64) (*hotspot, error) {
	if hotSet < 0 || hotSet > 1 {
		return nil, fmt.Errorf("ycsb: hotspotdatafraction %v not in [0, 1]", hotSet)
	}
	if hotOpn < 0 || hotOpn > 1 {
		return nil, fmt.Errorf("ycsb: hotspotopnfraction %v not in [0, 1]", hotOpn)
	}
	if lb > ub {
		lb, ub = ub, lb
	}
	interval := ub - lb + 1
	hot := javaInt(float64(interval) * hotSet) // YCSB casts to int
	return &hotspot{lb: lb, hotInterval: hot, coldInterval: interval - hot, hotOpn: hotOpn}, nil
}

// Next draws the next value. YCSB divides by zero when the chosen set is
// empty; here the draw goes to the other set.
func (h *hotspot) Next(r *rand.Rand) int64 {
	var v int64
	hot := r.Float64() < h.hotOpn
	if (hot && h.hotInterval > 0) || h.coldInterval == 0 {
		v = h.lb + r.Int64N(h.hotInterval)
	} else {
		v = h.lb + h.hotInterval + r.Int64N(h.coldInterval)
	}
	h.set(v)
	return v
}

// Exponential defaults (YCSB's ExponentialGenerator).
const (
	exponentialPercentileDefault = 95.0
	exponentialFracDefault       = 0.8571428571
)

// exponential is YCSB's ExponentialGenerator: exponentially distributed with
// percentile percent of the draws below rangeV. CoreWorkload uses
// rangeV = recordcount·exponential.frac and draws keys as
// Last() of the insert counter minus the value (see NextKeynum).
type exponential struct{ gamma float64 }

// newExponential returns the generator for (percentile, rangeV).
func newExponential(percentile, rangeV float64) *exponential {
	return &exponential{gamma: -math.Log(1-percentile/100) / rangeV}
}

// float draws the next value.
func (e *exponential) float(r *rand.Rand) float64 {
	return -math.Log(r.Float64()) / e.gamma
}

// mean is 1/γ.
func (e *exponential) mean() float64 { return 1 / e.gamma }

// Next draws the next value truncated to an integer (as YCSB's intValue()).
func (e *exponential) Next(r *rand.Rand) int64 { return javaInt(e.float(r)) }

// Last is not tracked for the exponential.
func (e *exponential) Last() int64 { return 0 }

// nextKeynum is CoreWorkload.nextKeynum: a key number drawn by chooser that
// is not beyond the acknowledged inserts (limit is the AckCounter); for the
// exponential the draw counts back from the limit.
func nextKeynum(r *rand.Rand, chooser generator, limit interface{ Last() int64 }) int64 {
	if _, ok := chooser.(*exponential); ok {
		for {
			k := limit.Last() - chooser.Next(r)
			if k >= 0 {
				return k
			}
		}
	}
	for {
		k := int64(int32(chooser.Next(r)))
		if k <= limit.Last() {
			return k
		}
	}
}

// newFieldLength returns CoreWorkload's field-length generator for
// fieldlengthdistribution: constant (fieldlength), uniform or zipfian over
// minfieldlength..fieldlength. YCSB's "histogram" (from a file) is not
// supported.
func newFieldLength(dist string, minLen, maxLen int64) (generator, error) {
	switch dist {
	case "constant":
		return constant{V: maxLen}, nil
	case "uniform":
		return newUniform(minLen, maxLen), nil
	case "zipfian":
		return newZipfian(minLen, maxLen), nil
	}
	return nil, fmt.Errorf("ycsb: unknown field length distribution %q", dist)
}

// javaInt is Java's (int) cast of a double: truncation, saturating at the
// int range, NaN to 0.
func javaInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}
