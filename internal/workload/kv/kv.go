// Package kv is the memtier_benchmark-compatible key-value workload: SETs and
// GETs in memtier's SET:GET ratio, or one arbitrary command ("INCR __key__"),
// sent in pipelines, over keys drawn by memtier's key patterns, against any
// target whose sessions speak the driver.KV capability (Redis, Valkey, the
// embedded KV engines). The pipeline is memtier's window by default: up to
// pipeline requests outstanding on each connection, refilled after every read
// of replies (memtier 2.3.0 shard_connection.cpp, process_response then
// fill_pipeline), each request timed from its own send to its reply. With
// pipeline_mode = batch it is redis-benchmark's -P: pipeline requests sent
// together and all their replies awaited before the next batch, each timed
// from the batch's send. Hits and misses of GETs are counted as memtier
// counts them.
//
// Decisions where memtier leaves room: clients get distinct random seeds
// unless distinct_client_seed = false (memtier's default shares one seed, so
// every connection sends the same key sequence); the read-modify-write
// profile (rmw), which memtier lacks, is a GET and then a SET of the same key,
// recorded as one request timed from the GET's send to the SET's reply.
package kv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

func init() {
	workload.Register(workload.Plugin{
		Workload: Workload{},
		Kind: kinds.Info{
			Headline:   result.Headline{Name: "throughput", Unit: "ops/s", HigherIsBetter: true, Field: result.FieldRequests},
			WorkingSet: workingSet,
			Summary:    peerSummary,
			RunFormats: map[string]func(io.Writer, *result.Run) error{memtierJSON: writeMemtierJSON},
		},
	})
}

// Workload is the kv workload kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return "kv" }

// Needs is the capability kvConn asserts, for validate to check first.
func (Workload) Needs() []driver.Family { return []driver.Family{driver.FamilyKV} }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "memtier_benchmark-compatible key-value load (SET:GET ratio, pipelines, key patterns, arbitrary commands) on Redis, Valkey and embedded KV engines"
}

// Params implements workload.Workload: memtier's options and defaults,
// snake_case, declared once for this workload and the tool cells.
func (Workload) Params() []params.Spec { return kvparams.Specs() }

// ratio is memtier's SET:GET.
type ratio struct{ set, get int }

func parseRatio(s string) (ratio, error) {
	a, b, ok := strings.Cut(s, ":")
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 || x+y == 0 {
		return ratio{}, fmt.Errorf("ratio %q: write SET:GET with whole numbers, not both 0 (memtier --ratio, e.g. 1:10)", s)
	}
	return ratio{x, y}, nil
}

// Op types: SET and GET (memtier's Sets and Gets), an arbitrary command's
// name, or rmw.
const (
	opSet = iota
	opGet
)

type instance struct {
	opt      kvparams.Options
	ratio    ratio
	setPat   byte
	getPat   byte
	commands []command // arbitrary commands, nil for SET/GET
	rmw      bool
	ops      []string
	keys     keySpace
	prefix   string
	size     int
	sizeMin  int
	sizeMax  int
	pipeline int
	// window: keep up to pipeline requests outstanding (memtier's), on
	// sessions that can (driver.KVStream); otherwise batches. paced: the
	// cell has a rate schedule (set by Prepare), which paces whole
	// operations: a window's replies would carry the lateness of the
	// operation that read them, not of the one that sent them, so batches.
	window bool
	paced  bool
	// value is data_size (or the range's maximum) bytes of 'x', as memtier's
	// values; with random_data, twice that many random bytes, each value a
	// window at a random offset (memtier changes one byte of its random
	// buffer per value: either way consecutive values differ).
	value  []byte
	random bool
	// counts of every worker, summed by Counts
	stats atomic.Pointer[[]*counts]
}

type counts struct{ hits, misses, moved, ask atomic.Int64 }

// command is one arbitrary command (memtier --command), run ratio times in
// turn with the others, its keys drawn by its own pattern.
type command struct {
	words   []string
	ratio   int
	pattern byte
}

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	o, err := kvparams.Decode(p)
	if err != nil {
		return nil, err
	}
	in := &instance{opt: o, prefix: o.KeyPrefix, pipeline: int(o.Pipeline), size: int(o.DataSize),
		sizeMin: int(o.DataSizeMin), sizeMax: int(o.DataSizeMax), window: o.PipelineMode == kvparams.Window}
	in.stats.Store(&[]*counts{})
	rs := o.Ratio
	cmds := o.Commands
	switch o.Profile {
	case "get-heavy":
		rs = "1:10"
	case "set-only":
		rs = "1:0"
	case "get-only":
		rs = "0:1"
	case "incr-only":
		cmds = []string{"INCR __key__"}
	case "rmw":
		in.rmw = true
		in.window = false // each SET needs its GET's reply: batches
	}
	if in.ratio, err = parseRatio(rs); err != nil {
		return nil, err
	}
	if in.setPat, in.getPat, err = parsePattern(o.KeyPattern); err != nil {
		return nil, err
	}
	in.keys = keySpace{min: uint64(o.KeyMinimum), max: uint64(o.KeyMaximum), stddev: o.KeyStddev, median: o.KeyMedian, zipfExp: o.KeyZipfExp}
	// The spec bounds the exponent to [0, 5]; memtier takes neither end.
	if z := in.keys.zipfExp; z <= 0 || z >= 5 {
		return nil, fmt.Errorf("%s %v must be within (0, 5), as memtier requires", kvparams.KeyZipfExp, z)
	}
	if in.prefix == "" {
		return nil, fmt.Errorf("%s must not be empty: cleanup deletes the keys under it, and only them", kvparams.KeyPrefix)
	}
	in.value = bytes.Repeat([]byte("x"), in.sizeMax)
	if o.RandomData {
		in.random = true
		in.value = make([]byte, 2*in.sizeMax)
		src := rand.NewChaCha8([32]byte{})
		_, _ = src.Read(in.value) // a ChaCha8 stream never fails
	}
	ratios, patterns := o.CommandRatios, o.CommandKeyPatterns
	seen := map[string]int{}
	for i, text := range cmds {
		c := command{words: strings.Fields(text), ratio: 1, pattern: 'R'}
		if len(c.words) == 0 {
			return nil, fmt.Errorf("command %d is empty", i+1)
		}
		if !slices.Contains(c.words, "__key__") {
			return nil, fmt.Errorf("command %q has no __key__: the key is what routes and counts it", text)
		}
		if len(ratios) > 0 {
			r, err := strconv.Atoi(ratios[i])
			if err != nil || r < 1 {
				return nil, fmt.Errorf("%s %q for %q: a whole number ≥ 1", kvparams.CommandRatio, ratios[i], text)
			}
			c.ratio = r
		}
		if len(patterns) > 0 {
			pat := strings.ToUpper(patterns[i])
			if len(pat) != 1 || !strings.Contains("RSGZP", pat) {
				return nil, fmt.Errorf("%s %q for %q: use R, S, G, Z or P", kvparams.CommandKeyPattern, patterns[i], text)
			}
			c.pattern = pat[0]
		}
		in.commands = append(in.commands, c)
		// Op types are the commands' names, numbered when one repeats.
		name := strings.ToLower(c.words[0])
		if seen[name]++; seen[name] > 1 {
			name += strconv.Itoa(seen[name])
		}
		in.ops = append(in.ops, name)
	}
	switch {
	case in.commands != nil:
	case in.rmw:
		in.ops = []string{"rmw"}
	default:
		in.ops = []string{"set", "get"}
	}
	return in, nil
}

// Ops implements workload.Instance.
func (in *instance) Ops() []string { return in.ops }

// Shape implements workload.Shaper: with requests, each client ends once it
// has sent them (memtier's --requests), before the cell's duration.
func (in *instance) Shape() workload.Shape {
	if in.opt.Requests > 0 {
		return workload.Shape{End: workload.UntilDone(fmt.Sprintf("each client has sent its %d requests", in.opt.Requests))}
	}
	return workload.Shape{}
}

// Hooks implements workload.Hooker.
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{Cleanup: in.cleanup, Describe: in.describe, Counts: in.counts}
}

// counts is the Counts hook: hits and misses of GETs and of the
// arbitrary command (a nil reply is a miss, as memtier counts it), and the
// cluster redirections followed.
func (in *instance) counts() map[string]int64 {
	out := map[string]int64{"hits": 0, "misses": 0, "moved": 0, "ask": 0}
	for _, c := range *in.stats.Load() {
		out["hits"] += c.hits.Load()
		out["misses"] += c.misses.Load()
		out["moved"] += c.moved.Load()
		out["ask"] += c.ask.Load()
	}
	return out
}

func (in *instance) newCounts() *counts {
	c := &counts{}
	for {
		old := in.stats.Load()
		next := append(append([]*counts(nil), *old...), c)
		if in.stats.CompareAndSwap(old, &next) {
			return c
		}
	}
}

// KV asserts the KV capability, with an error naming the workload.
func kvConn(c driver.Conn) (driver.KV, error) {
	k, ok := c.(driver.KV)
	if !ok {
		return nil, fmt.Errorf("workload kv needs a key-value target (redis://, valkey://, bbolt:, pebble:); this target does not speak it")
	}
	return k, nil
}

// NewWorker implements workload.Instance, for a client whose place among the
// run's clients is unknown (the parallel pattern then takes the whole range).
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	return in.NewSlotWorker(ctx, conn, workload.ClientSlot{Index: 0, Clients: 1})
}

// worker is one client's state: its key generators, the ratio's turn, and
// the pipeline it reuses.
type worker struct {
	in       *instance
	kv       driver.KV
	c        *counts
	own      *rand.Rand // memtier's shared seed when distinct_client_seed = false
	setKeys  keyGen
	getKeys  keyGen
	cmdKeys  []keyGen // per arbitrary command
	cmdAt    int      // the command whose turn it is
	turn     int      // position in the SET:GET cycle
	cmds     []driver.KVCommand
	kinds    []int
	replies  []driver.KVReply
	keyBuf   []byte
	setCmds  []driver.KVCommand // rmw's second round
	setReply []driver.KVReply
	counted  bool  // requests > 0: the client stops after that many
	left     int64 // requests still to send, when counted
	// The window: stream is the session's, nil in batch mode; sent holds
	// the op type of each request in flight, oldest at sent[oldest], in a
	// ring of pipeline entries (the window never holds more).
	stream  driver.KVStream
	sent    []sentRequest
	oldest  int
	waiting int
}

// sentRequest is a request in the window: its op type, and whether a nil
// reply to it is a miss.
type sentRequest struct {
	op   int
	read bool
}

// NewSlotWorker implements workload.SlotWorkers.
func (in *instance) NewSlotWorker(_ context.Context, conn driver.Conn, slot workload.ClientSlot) (workload.Op, error) {
	kv, err := kvConn(conn)
	if err != nil {
		return nil, err
	}
	w := &worker{in: in, kv: kv, c: in.newCounts()}
	if !in.opt.DistinctClientSeed {
		w.own = rand.New(rand.NewPCG(0x6d656d74, 0x69657221)) // one sequence for every client
	}
	if w.setKeys, err = in.keys.newKeyGen(in.setPat, slot.Index, slot.Clients); err != nil {
		return nil, err
	}
	if w.getKeys, err = in.keys.newKeyGen(in.getPat, slot.Index, slot.Clients); err != nil {
		return nil, err
	}
	for _, c := range in.commands {
		g, err := in.keys.newKeyGen(c.pattern, slot.Index, slot.Clients)
		if err != nil {
			return nil, err
		}
		w.cmdKeys = append(w.cmdKeys, g)
	}
	w.left = in.opt.Requests
	w.counted = w.left > 0
	n := in.pipeline
	w.cmds = make([]driver.KVCommand, n)
	w.kinds = make([]int, n)
	w.replies = make([]driver.KVReply, n)
	w.keyBuf = make([]byte, 0, n*(len(in.prefix)+20))
	if in.rmw {
		w.setCmds = make([]driver.KVCommand, n)
		w.setReply = make([]driver.KVReply, n)
	}
	if s, ok := kv.(driver.KVStream); ok && in.window && !in.paced {
		w.stream, w.sent = s, make([]sentRequest, n)
		return w.refill, nil
	}
	return w.op, nil
}

// key appends the key of index k to the worker's key buffer and returns it.
// The buffer is sized for a full pipeline, so earlier keys stay valid.
func (w *worker) key(k uint64) []byte {
	s := len(w.keyBuf)
	w.keyBuf = append(w.keyBuf, w.in.prefix...)
	w.keyBuf = strconv.AppendUint(w.keyBuf, k, 10)
	return w.keyBuf[s:len(w.keyBuf):len(w.keyBuf)]
}

func (w *worker) valueFor(rng *rand.Rand) []byte {
	in := w.in
	size := in.sizeMax
	if in.sizeMin != in.sizeMax {
		size = in.sizeMin + rng.IntN(in.sizeMax-in.sizeMin+1)
	}
	if in.random {
		off := rng.IntN(in.sizeMax + 1)
		return in.value[off : off+size]
	}
	return in.value[:size]
}

// next fills cmds[i] with the next command of the SET:GET cycle (memtier
// sends ratio.set SETs, then ratio.get GETs, and starts over) or the
// arbitrary command, and returns its op type.
func (w *worker) next(rng *rand.Rand, c *driver.KVCommand) int {
	in := w.in
	*c = driver.KVCommand{}
	if in.commands != nil {
		// memtier's turn: each command ratio times, then the next.
		if w.turn >= in.commands[w.cmdAt].ratio {
			w.turn, w.cmdAt = 0, (w.cmdAt+1)%len(in.commands)
		}
		w.turn++
		i := w.cmdAt
		k := w.key(w.cmdKeys[i].next(rng))
		words := in.commands[i].words
		c.Name = words[0]
		for _, word := range words[1:] {
			switch word {
			case "__key__":
				if c.Key == nil {
					c.Key = k
					continue
				}
				c.Args = append(c.Args, k)
			case "__data__":
				c.Args = append(c.Args, w.valueFor(rng))
			default:
				c.Args = append(c.Args, []byte(word))
			}
		}
		return i
	}
	if in.rmw {
		c.Name, c.Key = "GET", w.key(w.getKeys.next(rng))
		return 0
	}
	if w.turn >= in.ratio.set+in.ratio.get {
		w.turn = 0
	}
	w.turn++
	if w.turn <= in.ratio.set {
		c.Name, c.Key, c.Value = "SET", w.key(w.setKeys.next(rng)), w.valueFor(rng)
		return opSet
	}
	c.Name, c.Key = "GET", w.key(w.getKeys.next(rng))
	return opGet
}

// refill is one turn of memtier's window: send requests until pipeline of
// them are outstanding (fill_pipeline), then read the oldest one's reply and
// every other that has arrived, and record each as a request timed from its
// own send (process_response).
func (w *worker) refill(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
	if w.own != nil {
		rng = w.own
	}
	free := int64(len(w.sent) - w.waiting)
	if w.counted {
		free = min(free, w.left)
		w.left -= free
	}
	if free > 0 {
		w.keyBuf = w.keyBuf[:0]
		cmds := w.cmds[:free]
		for i := range cmds {
			op := w.next(rng, &cmds[i])
			w.sent[(w.oldest+w.waiting)%len(w.sent)] = sentRequest{op: op, read: cmds[i].Name == "GET"}
			w.waiting++
		}
		if err := w.stream.Send(ctx, cmds); err != nil {
			return 0, err
		}
	}
	if w.waiting == 0 {
		return 0, workload.ErrClientDone
	}
	n, err := w.stream.Receive(ctx, w.replies)
	for i := range n {
		s := w.sent[w.oldest]
		w.oldest = (w.oldest + 1) % len(w.sent)
		w.waiting--
		w.record(req, s.op, &w.replies[i], s.read)
	}
	return 0, err
}

// op sends one pipeline and records each reply as a request.
func (w *worker) op(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
	if w.own != nil {
		rng = w.own
	}
	cmds, replies := w.cmds, w.replies
	if w.counted { // read once, not a map lookup per pipeline
		if w.left <= 0 {
			return 0, workload.ErrClientDone
		}
		// The last pipeline is as deep as the requests left.
		n := min(int64(len(cmds)), w.left)
		w.left -= n
		cmds, replies = cmds[:n], replies[:n]
	}
	w.keyBuf = w.keyBuf[:0]
	for i := range cmds {
		w.kinds[i] = w.next(rng, &w.cmds[i])
	}
	if err := w.kv.Pipeline(ctx, cmds, replies); err != nil {
		return 0, err
	}
	if w.in.rmw {
		return w.modify(ctx, rng, req, cmds, replies)
	}
	for i := range replies {
		w.record(req, w.kinds[i], &replies[i], cmds[i].Name == "GET")
	}
	return 0, nil
}

// record counts one reply: a server error is a failed request of its class;
// a nil reply to a read is a miss, any other a hit.
func (w *worker) record(req workload.Requests, op int, r *driver.KVReply, read bool) {
	switch r.Redirect {
	case "moved":
		w.c.moved.Add(1)
	case "ask":
		w.c.ask.Add(1)
	}
	if r.Err != nil {
		req.Failed(op, r.Class)
		return
	}
	if read {
		if r.Miss {
			w.c.misses.Add(1)
		} else {
			w.c.hits.Add(1)
		}
	}
	req.Request(op, r.Latency, 1, r.Bytes)
}

// modify is rmw's second round: a SET of each key the GETs read, timed on
// from the GETs' send.
func (w *worker) modify(ctx context.Context, rng *rand.Rand, req workload.Requests, cmds []driver.KVCommand, replies []driver.KVReply) (int, error) {
	var gets time.Duration
	sets, setReplies := w.setCmds[:len(cmds)], w.setReply[:len(cmds)]
	for i := range replies {
		gets = max(gets, replies[i].Latency)
		sets[i] = driver.KVCommand{Name: "SET", Key: cmds[i].Key, Value: w.valueFor(rng)}
	}
	if err := w.kv.Pipeline(ctx, sets, setReplies); err != nil {
		return 0, err
	}
	for i := range setReplies {
		g, s := &replies[i], &setReplies[i]
		if g.Err != nil {
			w.record(req, 0, g, true)
			continue
		}
		if g.Miss {
			w.c.misses.Add(1)
		} else {
			w.c.hits.Add(1)
		}
		if s.Err != nil {
			req.Failed(0, s.Class)
			continue
		}
		req.Request(0, gets+s.Latency, 1, g.Bytes+s.Bytes)
	}
	return 0, nil
}

// workingSet is the key range times the key and value sizes.
func workingSet(v params.Values) (int64, string, bool) {
	lo, ok1 := v[kvparams.KeyMinimum].(int64)
	hi, ok2 := v[kvparams.KeyMaximum].(int64)
	size, ok3 := v[kvparams.DataSize].(int64)
	if !ok1 || !ok2 || !ok3 || hi < lo {
		return 0, "", false
	}
	n := hi - lo + 1
	// A Redis key-value pair costs about 60 bytes besides its key and value
	// (dictEntry, robj, SDS headers, allocator rounding).
	per := size + 20 + 60
	return n * per, fmt.Sprintf("%d keys × (%d-byte values + ~80 bytes of key and overhead)", n, size), true
}

// describe is the Describe hook: the facts memtier prints in its
// header, and where this run differs from memtier's defaults in a way a
// reader comparing with memtier must know.
func (in *instance) describe(conn driver.Conn) (facts [][2]string, deviations []string) {
	what := fmt.Sprintf("SET:GET %d:%d", in.ratio.set, in.ratio.get)
	switch {
	case in.commands != nil:
		var parts []string
		for _, c := range in.commands {
			parts = append(parts, fmt.Sprintf("%s ×%d", strings.Join(c.words, " "), c.ratio))
		}
		what = "commands " + strings.Join(parts, ", ")
	case in.rmw:
		what = "rmw (GET then SET of one key)"
	}
	if p := in.opt.Profile; p != "" {
		what = p + ": " + what
	}
	facts = [][2]string{
		{"profile", what},
		{"pipeline", strconv.Itoa(in.pipeline)},
		{"pipeline mode", in.pipelineMode(conn)},
		{"key range", fmt.Sprintf("%s%d … %s%d", in.prefix, in.keys.min, in.prefix, in.keys.max)},
		{"data size", sizeText(in.sizeMin, in.sizeMax)},
		{"key pattern", in.opt.KeyPattern},
	}
	if in.opt.PipelineMode == kvparams.Window && in.pipeline > 1 && !in.keepsWindow(conn) {
		why := "this target's sessions cannot keep requests outstanding (embedded engines answer in-process, cluster and client=go-redis sessions send pipelines whole)"
		switch {
		case in.rmw:
			why = "rmw's SETs need their GETs' replies"
		case in.paced:
			why = "a rate schedule paces whole operations, and a window's replies would carry the lateness of the operation that read them"
		}
		deviations = append(deviations, fmt.Sprintf("pipeline_mode = window ran as batches of %d (redis-benchmark's -P): %s", in.pipeline, why))
	}
	if !in.opt.DistinctClientSeed {
		deviations = append(deviations, "every client draws the same key sequence (distinct_client_seed = false, memtier's default)")
	}
	return facts, deviations
}

// keepsWindow says whether this run's workers keep a window on conn's kind of
// session.
func (in *instance) keepsWindow(conn driver.Conn) bool {
	_, ok := conn.(driver.KVStream)
	return ok && in.window && !in.paced
}

// pipelineMode is the summary's account of the pipeline the run used.
func (in *instance) pipelineMode(conn driver.Conn) string {
	if in.keepsWindow(conn) {
		return fmt.Sprintf("window (up to %d requests outstanding per connection, each timed from its own send; memtier --pipeline)", in.pipeline)
	}
	return fmt.Sprintf("batch (%d requests sent together, all replies awaited, each timed from the batch's send; redis-benchmark -P)", in.pipeline)
}
