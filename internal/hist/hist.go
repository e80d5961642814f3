// Package hist records latencies without keeping samples beyond a tick: each
// worker owns a Recorder that a Collector swaps out on every tick and merges
// into HdrHistograms (one per operation type, 1 µs … 1 h at 3 significant
// digits). Memory therefore does not grow with run length, and percentiles over
// repetitions or load generators are computed from merged histograms, never by
// averaging percentiles. A Recorder buffers its latencies rather than holding a
// histogram per operation type (188 KB each, two per type with the spare): a
// YCSB client with six types would need 2.2 MB, so 128 clients 290 MB.
package hist

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/result"
)

// Histogram bounds, in microseconds.
const (
	lowest  = 1
	Highest = int64(time.Hour / time.Microsecond)
	digits  = 3
)

// New returns an empty latency histogram in microseconds.
func New() *hdr.Histogram { return hdr.New(lowest, Highest, digits) }

// Encode serialises a histogram losslessly (HdrHistogram V2 compressed, base64),
// the format HdrHistogram's own log tools read.
func Encode(h *hdr.Histogram) ([]byte, error) { return h.Encode(hdr.V2CompressedEncodingCookieBase) }

// Decode reverses Encode.
func Decode(b []byte) (*hdr.Histogram, error) {
	h, err := hdr.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// micros converts a duration to whole microseconds, clamped to the histogram range.
func micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < 0 {
		return 0
	}
	if us > Highest {
		return Highest
	}
	return us
}

// classes are the error classes in a fixed order, so counting needs no map on the hot path.
var classes = result.ErrorClasses[:]

// nclasses sizes Stats.Errors.
const nclasses = len(result.ErrorClasses)

func classIndex(c result.ErrorClass) int {
	for i, x := range classes {
		if x == c {
			return i
		}
	}
	return otherIndex
}

// otherIndex is where a class this list lacks is counted.
var otherIndex = slices.Index(classes, result.ErrOther)

// Stats are the exact moments next to a histogram: pgbench reports the exact
// mean and standard deviation, which bucketed values would only approximate.
type Stats struct {
	Hist   *hdr.Histogram
	Count  int64
	SumUs  float64
	SumSq  float64
	MinUs  float64
	Errors [nclasses]int64
	// Items and Bytes that the successful requests carried (documents of a
	// bulk request, payload of a SET), where the workload counts them.
	Items int64
	Bytes int64
	// Rate mode only.
	LagCount int64
	LagSumUs float64
	LagMaxUs float64
	Skipped  int64
	Late     int64
	// Retries, pgbench's meaning: operations that needed more than one try, and
	// the total number of extra tries.
	Retried int64
	Retries int64
	// Service, in rate mode only, holds the service times (from the actual
	// send) beside Hist's latencies (from the scheduled start), as OSB keeps
	// them apart; nil in a closed loop, where the two are the same.
	Service *hdr.Histogram

	// A recorder's stats (buffered) keep the latencies and service times of
	// the current tick in lat and svc, in µs, and fold them into Hist and
	// Service only when a buffer reaches foldAt: a client that does fewer
	// operations of a type per tick never holds a histogram for it.
	buffered bool
	lat, svc []uint32
}

// foldAt is the most latencies a recorder buffers per operation type before
// it folds them into a histogram of its own: 16 KB, against 188 KB for the
// histogram. Only a client doing more than foldAt operations of one type per
// tick (1 s) pays for the histogram, and such clients are few: each is busy.
const foldAt = 4096

// RecorderBytes is the most a Recorder of ops operation types holds while its
// worker does fewer than foldAt operations of each type per tick: a full
// buffer per type, in the current set and the spare.
func RecorderBytes(ops int) int64 { return int64(2 * ops * foldAt * 4) }

func newStats() *Stats { return &Stats{Hist: New(), MinUs: math.Inf(1)} }

// newBufferedStats are a recorder's stats: no histogram until one is needed.
func newBufferedStats() *Stats { return &Stats{MinUs: math.Inf(1), buffered: true} }

func (s *Stats) reset() {
	h, sv := s.Hist, s.Service
	if h != nil {
		h.Reset()
	}
	if sv != nil {
		sv.Reset()
	}
	*s = Stats{Hist: h, MinUs: math.Inf(1), Service: sv, buffered: s.buffered, lat: s.lat[:0], svc: s.svc[:0]}
}

// HasService reports whether service times were recorded apart.
func (s *Stats) HasService() bool {
	return len(s.svc) > 0 || s.Service != nil && s.Service.TotalCount() > 0
}

func (s *Stats) addService(d time.Duration) {
	if s.buffered {
		s.svc = bufferValue(s.svc, &s.Service, d)
		return
	}
	if s.Service == nil {
		s.Service = New()
	}
	_ = s.Service.RecordValue(micros(d))
}

// bufferValue appends d in µs to buf, folding buf into *h (made on first
// need) when it is full; it returns the buffer to keep.
func bufferValue(buf []uint32, h **hdr.Histogram, d time.Duration) []uint32 {
	// micros is at most Highest (3.6e9 µs), which fits in a uint32.
	buf = append(buf, uint32(micros(d)))
	if len(buf) < foldAt {
		return buf
	}
	if *h == nil {
		*h = New()
	}
	recordAll(*h, buf)
	return buf[:0]
}

func recordAll(h *hdr.Histogram, vals []uint32) {
	for _, v := range vals {
		_ = h.RecordValue(int64(v))
	}
}

// mergeInto adds the values of o's histogram h and of its buffer vals into
// *dst, made on first need.
func mergeInto(dst **hdr.Histogram, h *hdr.Histogram, vals []uint32) {
	has := h != nil && h.TotalCount() > 0
	if !has && len(vals) == 0 {
		return
	}
	if *dst == nil {
		*dst = New()
	}
	if has {
		(*dst).Merge(h)
	}
	recordAll(*dst, vals)
}

// merge adds o into s (whose histogram is made, if s is buffered, on first need).
func (s *Stats) merge(o *Stats) {
	mergeInto(&s.Hist, o.Hist, o.lat)
	mergeInto(&s.Service, o.Service, o.svc)
	s.Count += o.Count
	s.SumUs += o.SumUs
	s.SumSq += o.SumSq
	s.MinUs = math.Min(s.MinUs, o.MinUs)
	s.Items += o.Items
	s.Bytes += o.Bytes
	for i := range s.Errors {
		s.Errors[i] += o.Errors[i]
	}
	s.LagCount += o.LagCount
	s.LagSumUs += o.LagSumUs
	s.LagMaxUs = math.Max(s.LagMaxUs, o.LagMaxUs)
	s.Skipped += o.Skipped
	s.Late += o.Late
	s.Retried += o.Retried
	s.Retries += o.Retries
}

// ErrorCount sums all error classes.
func (s *Stats) ErrorCount() int64 {
	var n int64
	for _, e := range s.Errors {
		n += e
	}
	return n
}

// ErrorMap returns the non-zero error counts by class.
func (s *Stats) ErrorMap() map[result.ErrorClass]int64 {
	m := map[result.ErrorClass]int64{}
	for i, e := range s.Errors {
		if e > 0 {
			m[classes[i]] = e
		}
	}
	return m
}

// Mean returns the exact mean latency in µs.
func (s *Stats) Mean() float64 {
	if s.Count == 0 {
		return 0
	}
	return s.SumUs / float64(s.Count)
}

// Stddev returns the exact population standard deviation in µs, as pgbench computes it.
func (s *Stats) Stddev() float64 {
	if s.Count == 0 {
		return 0
	}
	m := s.Mean()
	v := s.SumSq/float64(s.Count) - m*m
	if v < 0 {
		return 0
	}
	return math.Sqrt(v)
}

// Recorder belongs to one worker. Its lock is uncontended except for the instant
// of a tick, when the collector swaps the current set for a fresh one.
type Recorder struct {
	mu    sync.Mutex
	cur   []*Stats
	spare []*Stats
}

// NewRecorder makes a recorder for ops operation types.
func NewRecorder(ops int) *Recorder {
	r := &Recorder{cur: make([]*Stats, ops), spare: make([]*Stats, ops)}
	for i := 0; i < ops; i++ {
		r.cur[i], r.spare[i] = newBufferedStats(), newBufferedStats()
	}
	return r
}

// Record adds one successful operation of type op that took d.
func (r *Recorder) Record(op int, d time.Duration) { r.recordRequest(op, d, 0, 0) }

// recordRequest adds one successful request of type op that took d and
// carried items and bytes.
func (r *Recorder) recordRequest(op int, d time.Duration, items, bytes int64) {
	r.mu.Lock()
	r.cur[op].add(d, items, bytes)
	r.mu.Unlock()
}

// Request is one request of an operation that sent several (a pipeline), or
// one that carried many items (a _bulk call); Failed marks a failed one.
type Request struct {
	Op      int
	Latency time.Duration
	Items   int64
	Bytes   int64
	Failed  bool
	Class   result.ErrorClass // when Failed
	// Service, when > 0, is the request's service time, recorded apart from
	// Latency (rate mode: Latency counts from the scheduled start).
	Service time.Duration
}

// RecordRequests adds the requests of one operation at once, so that they
// land in the same interval: a tick never splits a pipeline.
func (r *Recorder) RecordRequests(reqs []Request) {
	r.mu.Lock()
	for _, q := range reqs {
		if q.Failed {
			r.cur[q.Op].Errors[classIndex(q.Class)]++
			continue
		}
		r.cur[q.Op].add(q.Latency, q.Items, q.Bytes)
		if q.Service > 0 {
			r.cur[q.Op].addService(q.Service)
		}
	}
	r.mu.Unlock()
}

// RecordPaced adds one successful operation of type op in rate mode: its
// latency from the scheduled start and its service time from the send.
func (r *Recorder) RecordPaced(op int, latency, service time.Duration) {
	r.mu.Lock()
	r.cur[op].add(latency, 0, 0)
	r.cur[op].addService(max(service, 1))
	r.mu.Unlock()
}

func (s *Stats) add(d time.Duration, items, bytes int64) {
	f := float64(d) / float64(time.Microsecond)
	if s.buffered {
		s.lat = bufferValue(s.lat, &s.Hist, d)
	} else {
		_ = s.Hist.RecordValue(micros(d))
	}
	s.Count++
	s.SumUs += f
	s.SumSq += f * f
	if f < s.MinUs {
		s.MinUs = f
	}
	s.Items += items
	s.Bytes += bytes
}

// RecordError counts one failed operation of type op.
func (r *Recorder) RecordError(op int, c result.ErrorClass) {
	i := classIndex(c)
	r.mu.Lock()
	r.cur[op].Errors[i]++
	r.mu.Unlock()
}

// RecordLag notes, in rate mode, how late an operation started against its schedule.
func (r *Recorder) RecordLag(lag time.Duration) {
	f := float64(lag) / float64(time.Microsecond)
	r.mu.Lock()
	s := r.cur[0]
	s.LagCount++
	s.LagSumUs += f
	if f > s.LagMaxUs {
		s.LagMaxUs = f
	}
	if lag > time.Millisecond {
		s.Late++
	}
	r.mu.Unlock()
}

// RecordRetries notes that an operation of type op took tries attempts (> 1).
func (r *Recorder) RecordRetries(op int, tries int) {
	r.mu.Lock()
	r.cur[op].Retried++
	r.cur[op].Retries += int64(tries - 1)
	r.mu.Unlock()
}

// RecordSkip counts, in rate mode, a start skipped because it was already later than the latency limit.
func (r *Recorder) RecordSkip() {
	r.mu.Lock()
	r.cur[0].Skipped++
	r.mu.Unlock()
}

// Collector merges the recorders of all workers on each tick into an interval
// snapshot and a cumulative total per operation type.
type Collector struct {
	recorders []*Recorder
	interval  []*Stats
	total     []*Stats
}

// NewCollector collects from the given recorders, which all have ops types.
func NewCollector(ops int, recorders []*Recorder) *Collector {
	c := &Collector{recorders: recorders, interval: make([]*Stats, ops), total: make([]*Stats, ops)}
	for i := 0; i < ops; i++ {
		c.interval[i], c.total[i] = newStats(), newStats()
	}
	return c
}

// Reset discards everything recorded so far, in recorders and totals: the
// measured phase starts from zero after warm-up.
func (c *Collector) Reset() {
	c.Tick()
	for _, s := range c.total {
		s.reset()
	}
	for _, s := range c.interval {
		s.reset()
	}
}

// Tick swaps out what every worker recorded since the last tick and returns it,
// merged per operation type. The returned stats are valid until the next Tick.
func (c *Collector) Tick() []*Stats {
	for _, s := range c.interval {
		s.reset()
	}
	// Swap every recorder first and merge afterwards: the instant that separates
	// one interval from the next is then the same for all workers, within the few
	// microseconds the swaps take, instead of spreading over the merges.
	for _, r := range c.recorders {
		r.mu.Lock()
		r.cur, r.spare = r.spare, r.cur
		r.mu.Unlock()
	}
	for _, r := range c.recorders {
		for i, s := range r.spare {
			c.interval[i].merge(s)
			s.reset()
		}
	}
	for i, s := range c.interval {
		c.total[i].merge(s)
	}
	return c.interval
}

// Total returns the cumulative stats per operation type since the last Reset.
func (c *Collector) Total() []*Stats { return c.total }

// Combine merges stats of several operation types into one (for run-level numbers).
func Combine(stats []*Stats) *Stats {
	out := newStats()
	for _, s := range stats {
		out.merge(s)
	}
	return out
}
