package ycsb

// How YCSB's records live on each kind of target, as YCSB's own bindings
// store them: a table with YCSB_KEY and FIELD0..N on SQL engines (the JDBC
// binding), a hash per record on Redis and Valkey (the redis binding), a
// document per record with string _ids on MongoDB-compatible stores (the
// mongodb binding), and the record encoded under its key on the embedded KV
// engines, which have no hashes.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/workload"
)

// layout is how records live on one kind of target: what Prepare, Cleanup
// and the workers need from it.
type layout interface {
	// describe says where the records are ("table usertable", "hashes fb:ycsb:usertable:*").
	describe() string
	// deviations are the ways this layout differs from YCSB's binding.
	// deviations are where the layout departs from YCSB's binding, each
	// with the operations it concerns: a run is told those its mix has.
	deviations() []note
	// state reads what is there and the ownership marker, against the
	// wanted data parameters.
	state(ctx context.Context, params string) (st dataState, err error)
	// reset drops the data fairbench loaded (ours) or, with --replace, data of
	// the workload's shape it did not load, and creates the empty container
	// with a marker saying "loading".
	reset(ctx context.Context, params string) error
	// ready marks the load finished.
	ready(ctx context.Context, params string) error
	// records counts the records (for the next insert number), where the
	// target can say; ok false otherwise.
	records(ctx context.Context) (n int64, ok bool, err error)
	// drop removes what fairbench loaded, marker included.
	drop(ctx context.Context) error
	// session binds a worker's connection.
	session(ctx context.Context, conn driver.Conn) (session, error)
}

// dataState is what a layout found on the target.
type dataState struct {
	found   bool   // the table, collection or keys exist
	ours    bool   // fairbench's marker says it loaded them
	matches bool   // and finished loading them with the wanted parameters
	holds   string // what is there, for messages ("a table usertable")
}

// session is one worker's access to the records. Each call is one YCSB
// operation against the database (several requests for a Redis scan).
type session interface {
	// insert writes whole records (several at once while loading).
	insert(ctx context.Context, keys []string, values [][][]byte) error
	// read reads one record, the fields named (all when fields is nil).
	read(ctx context.Context, key string, fields []int) (found bool, err error)
	// update sets the named fields of one record.
	update(ctx context.Context, key string, fields []int, values [][]byte) (found bool, err error)
	// scan reads up to n records from key on, in the layout's order.
	scan(ctx context.Context, key string, n int, fields []int) (int, error)
}

// errNotFound is a read or update of a record that is not there: YCSB's
// Status.NOT_FOUND, counted in its own error class.
var errNotFound = errors.New("ycsb: record not found")

// layoutFor picks the layout for the target's capability. Document and SQL
// are unambiguous; a KV target gets hashes when it answers HSET's family.
func (in *instance) layoutFor(ctx context.Context, conn driver.Conn) (layout, error) {
	switch c := conn.(type) {
	case driver.Document:
		return newDocLayout(in, c)
	case driver.SQL:
		if c.Dialect() == "clickhouse" {
			// No row updates (only asynchronous ALTER … UPDATE mutations),
			// no primary-key point lookups: not what YCSB measures.
			return nil, errors.New("workload ycsb needs an engine with row updates and key lookups; ClickHouse, an analytical engine, has neither")
		}
		return newSQLLayout(in, c)
	case driver.KV:
		return newKVLayout(ctx, in, c)
	}
	return nil, errors.New("workload ycsb needs an SQL, key-value or document target; this target speaks none of them")
}

// dataParams are the properties that shape the loaded data: a marker with
// other ones means the data must be reloaded.
func (in *instance) dataParams() string {
	c := in.cfg
	return fmt.Sprintf("recordcount=%d insertstart=%d insertcount=%d fieldcount=%d fieldlength=%d minfieldlength=%d fieldlengthdistribution=%s insertorder=%s zeropadding=%d fieldnameprefix=%s",
		c.RecordCount, c.InsertStart, c.InsertCount, c.FieldCount, c.FieldLength, c.MinFieldLength, c.FieldLengthDist,
		map[bool]string{true: "ordered", false: "hashed"}[c.OrderedInserts], c.ZeroPadding, c.FieldNamePrefix)
}

// Prepare implements workload.Instance: reuse what fairbench loaded with the
// same properties, reload its own data otherwise, and refuse to touch data
// of the same shape it did not load unless --replace.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	l, err := in.layoutFor(ctx, env.Conn)
	if err != nil {
		return err
	}
	in.layout = l
	if in.cfg.ScanProportion > 0 {
		if kl, ok := l.(*kvLayout); ok && !kl.hashes {
			return errors.New("ycsb: scanproportion > 0 needs range scans, which this key-value target cannot do (it has no sorted sets); use a workload without scans")
		}
	}
	st, err := l.state(ctx, in.dataParams())
	if err != nil {
		return err
	}
	switch {
	case st.found && st.ours && st.matches:
		env.Logf("ycsb: reusing the records fairbench loaded earlier (%s)", l.describe())
	case st.found && !st.ours && !env.Replace:
		return fmt.Errorf("the target already holds %s that fairbench did not load; rerun with --replace to drop and reload it, or set the YCSB property table to another name", st.holds)
	case st.found && st.ours:
		// fairbench's own records with other properties, or a load cut
		// short: replaced, as every workload replaces its own data. Said
		// loudly: a run that forgot -p recordcount=N would otherwise drop a
		// large load without a word.
		env.Logf("ycsb: %s holds records fairbench loaded with other properties (or a load that did not finish): reloading them with %s",
			l.describe(), in.dataParams())
		if err := in.load(ctx, env, l); err != nil {
			return err
		}
	default:
		if err := in.load(ctx, env, l); err != nil {
			return err
		}
	}
	return in.startInserts(ctx, l)
}

// startInserts sets the first number a run inserts: after the records that
// are there, so that a run after a run with inserts does not insert the same
// keys again (YCSB starts at recordcount every time).
func (in *instance) startInserts(ctx context.Context, l layout) error {
	if in.cfg.InsertProportion == 0 {
		return nil
	}
	n, ok, err := l.records(ctx)
	if err != nil {
		return err
	}
	if ok && in.cfg.InsertStart+n > in.cfg.RecordCount {
		in.inserts = newAckCounter(in.cfg.InsertStart + n)
		in.chooser, err = in.cfg.newKeyChooser(in.inserts)
	}
	return err
}

// note is a deviation and the operations (ycsbparams.Ops) it concerns.
type note struct {
	ops  []string
	text string
}

// mix is the proportion of each operation, in the order of ycsbparams.Ops.
func (c config) mix() []float64 {
	return []float64{c.ReadProportion, c.UpdateProportion, c.InsertProportion, c.ScanProportion, c.ReadModifyWriteProp}
}

// runsAny reports whether the mix has any of ops (ycsbparams.Ops names).
func (c config) runsAny(ops []string) bool {
	mix := c.mix()
	for i, op := range ycsbparams.Ops {
		if mix[i] > 0 && slices.Contains(ops, op) {
			return true
		}
	}
	return false
}

// loadBatch is the records per insert request while loading: 2 000 records
// (~2 MB) keep a Redis busy with fewer reads and replies per record than 500
// (~14 % less server CPU per record measured), and stay far below a COPY's
// or an insertMany's limits.
const loadBatch = 2000

// laterIndex is a layout whose index of the records is cheaper to build
// once they are all loaded (Redis's sorted set, in score order).
type laterIndex interface {
	// withoutIndex makes a loading session's inserts skip the index.
	withoutIndex(s session)
	// indexLoaded indexes the loaded records.
	indexLoaded(ctx context.Context, conn driver.Conn) error
}

// loadParts is how many contiguous parts the records are generated in, each
// from its own random stream seeded by its number and first record: the
// records are the same whatever the number of loading sessions, so every
// engine holds the same data.
const loadParts = 4

// part is the first and past-the-last record numbers of part p.
func (c *config) part(p int) (lo, hi int64) {
	per := (c.InsertCount + loadParts - 1) / loadParts
	lo = min(c.InsertStart+int64(p)*per, c.InsertStart+c.InsertCount)
	return lo, min(lo+per, c.InsertStart+c.InsertCount)
}

// load writes records insertstart … insertstart+insertcount-1 in loadParts
// parts, one session per part (SQLite: one session for all), in batches.
func (in *instance) load(ctx context.Context, env workload.PrepareEnv, l layout) error {
	start := time.Now()
	if err := l.reset(ctx, in.dataParams()); err != nil {
		return err
	}
	c := in.cfg
	workers := loadParts
	if s, ok := env.Conn.(driver.SQL); ok && s.Dialect() == "sqlite" {
		workers = 1 // one writer: SQLite serialises writes and would answer "busy"
	}
	task := env.Progress.Start("ycsb: loading "+l.describe(), c.InsertCount, "records")
	defer task.End()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn := env.Conn
			if workers > 1 {
				var err error
				if conn, err = env.Open(ctx); err != nil {
					errs[w] = err
					return
				}
				defer conn.Close(context.WithoutCancel(ctx))
			}
			s, err := l.session(ctx, conn)
			if err != nil {
				errs[w] = err
				return
			}
			if li, ok := l.(laterIndex); ok {
				li.withoutIndex(s)
			}
			for p := w; p < loadParts && errs[w] == nil; p += workers {
				lo, hi := c.part(p)
				errs[w] = in.loadRange(ctx, s, lo, hi, uint64(p), task)
			}
		}(w)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("loading YCSB records: %w", err)
	}
	if li, ok := l.(laterIndex); ok {
		if err := li.indexLoaded(ctx, env.Conn); err != nil {
			return err
		}
	}
	if err := l.ready(ctx, in.dataParams()); err != nil {
		return err
	}
	env.Logf("ycsb: loaded %d records into %s in %s", c.InsertCount, l.describe(), time.Since(start).Round(time.Millisecond))
	return nil
}

// loadRange writes records lo … hi-1, part number seed, on session s.
func (in *instance) loadRange(ctx context.Context, s session, lo, hi int64, seed uint64, task *progress.Task) error {
	rng := rand.New(rand.NewPCG(seed, uint64(lo)))
	keys := make([]string, 0, loadBatch)
	values := make([][][]byte, 0, loadBatch)
	for k := lo; k < hi; {
		keys, values = keys[:0], values[:0]
		for ; k < hi && len(keys) < loadBatch; k++ {
			keys = append(keys, buildKeyName(k, in.cfg.ZeroPadding, in.cfg.OrderedInserts))
			values = append(values, in.record(rng))
		}
		if err := s.insert(ctx, keys, values); err != nil {
			return err
		}
		task.Add(int64(len(keys)))
	}
	return nil
}

// record builds a whole record's values (YCSB's buildValues).
func (in *instance) record(rng *rand.Rand) [][]byte {
	v := make([][]byte, len(in.fields))
	for i := range v {
		v[i] = randomValue(rng, in.fieldLen.Next(rng))
	}
	return v
}

// valueChars is a block of printable ASCII that field values are cut from:
// YCSB's RandomByteIterator writes printable characters too, and SQL text
// columns need valid text.
var valueChars = func() []byte {
	r := rand.New(rand.NewPCG(0x79637362, 1))
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = byte(' ' + r.IntN(95))
	}
	return b
}()

// randomValue is n bytes of valueChars from a random place: no allocation.
func randomValue(rng *rand.Rand, n int64) []byte {
	if n > int64(len(valueChars)) {
		out := make([]byte, n)
		for i := range out {
			out[i] = valueChars[rng.IntN(len(valueChars))]
		}
		return out
	}
	off := rng.Int64N(int64(len(valueChars)) - n + 1)
	return valueChars[off : off+n : off+n]
}

// cleanup is the Cleanup hook: drops only what fairbench loaded.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	l, err := in.layoutFor(ctx, conn)
	if err != nil {
		return err
	}
	st, err := l.state(ctx, in.dataParams())
	if err != nil || !st.found {
		return err
	}
	if !st.ours {
		return fmt.Errorf("%s was not loaded by fairbench: left as it is", st.holds)
	}
	return l.drop(ctx)
}
