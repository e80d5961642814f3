package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// worker is one client: its session and its scratch, reused by every
// operation.
type worker struct {
	in     *instance
	s      session
	conn   driver.Conn
	done   *paddedInt
	all    []int // every field index, for writeallfields and readallfieldsbyname
	one    [1]int
	values [][]byte
	keys   [1]string
	recs   [1][][]byte
}

// NewWorker implements workload.Instance.
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	l := in.layout
	if l == nil { // Prepare ran on another instance (a second generator)
		var err error
		if l, err = in.layoutFor(ctx, conn); err != nil {
			return nil, err
		}
	}
	s, err := l.session(ctx, conn)
	if err != nil {
		return nil, err
	}
	w := &worker{in: in, s: s, conn: conn, done: in.operations.cell(), values: make([][]byte, len(in.fields))}
	w.all = make([]int, len(in.fields))
	for i := range w.all {
		w.all[i] = i
	}
	return w.op, nil
}

// beforeRun is the BeforeRun hook: operationcount is the run's
// budget.
func (in *instance) beforeRun(context.Context, driver.Conn) error {
	in.budget.Store(in.cfg.OperationCount)
	return nil
}

// split is the shape's Split: operationcount is the cell's, so each
// load generator does its share, as YCSB's clients on several machines
// are each given a share. Inserts are refused: every generator would
// insert the same keys from recordcount on (YCSB's clients would too).
func (in *instance) split(generator, generators int) error {
	if in.cfg.InsertProportion > 0 {
		return fmt.Errorf("ycsb: insertproportion = %g on %d load generators: each would insert the same new keys from recordcount on; run a workload with inserts on one generator", in.cfg.InsertProportion, generators)
	}
	if in.counted {
		_, n := workload.Share(in.cfg.OperationCount, generators, generator)
		in.budget.Store(n)
	}
	return nil
}

// op runs one YCSB operation (CoreWorkload.doTransaction) and records each
// database request it made.
func (w *worker) op(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
	in := w.in
	if in.counted && in.budget.Add(-1) < 0 {
		return 0, workload.ErrClientDone
	}
	var err error
	op := in.ops.next(rng)
	switch op {
	case opRead:
		err = w.read(ctx, rng, req, w.nextKey(rng))
	case opUpdate:
		err = w.update(ctx, rng, req, w.nextKey(rng))
	case opInsert:
		err = w.insert(ctx, rng, req)
	case opScan:
		err = w.scan(ctx, rng, req)
	case opRMW:
		err = w.readModifyWrite(ctx, rng, req)
	}
	switch {
	case err == nil:
		w.done.n.Add(1)
	case errors.Is(err, errNotFoundRecorded):
		err = nil // recorded as NOT_FOUND: nothing for the runner to retry or reconnect
	}
	return op, err
}

func (w *worker) nextKey(rng *rand.Rand) string {
	in := w.in
	return buildKeyName(nextKeynum(rng, in.chooser, in.inserts), in.cfg.ZeroPadding, in.cfg.OrderedInserts)
}

// readFields are the fields a read asks for: nil (all) with readallfields,
// every name with readallfieldsbyname, else one drawn uniformly.
func (w *worker) readFields(rng *rand.Rand) []int {
	c := w.in.cfg
	switch {
	case c.ReadAllFields && c.ReadAllFieldsByName:
		return w.all
	case c.ReadAllFields:
		return nil
	}
	w.one[0] = rng.IntN(len(w.all))
	return w.one[:]
}

// outcome records one request and turns a missing record into YCSB's
// NOT_FOUND.
func (w *worker) outcome(req workload.Requests, op int, start time.Time, found bool, err error) error {
	switch {
	case err != nil:
		req.Failed(op, w.conn.Classify(err))
		return err
	case !found:
		req.Failed(op, result.ErrNotFound)
		return errNotFoundRecorded
	}
	req.Request(op, time.Since(start), 1, 0)
	return nil
}

// errNotFoundRecorded ends an operation whose record was missing: recorded
// already, so op hands the runner no error, and the operation does not count
// as done.
var errNotFoundRecorded = errors.New("ycsb: record not found")

func (w *worker) read(ctx context.Context, rng *rand.Rand, req workload.Requests, key string) error {
	fields := w.readFields(rng)
	start := time.Now()
	found, err := w.s.read(ctx, key, fields)
	return w.outcome(req, opRead, start, found, err)
}

// updateValues draws the fields an update writes: all with writeallfields,
// else one.
func (w *worker) updateValues(rng *rand.Rand) ([]int, [][]byte) {
	in := w.in
	fields := w.all
	if !in.cfg.WriteAllFields {
		w.one[0] = rng.IntN(len(w.all))
		fields = w.one[:]
	}
	vals := w.values[:len(fields)]
	for i := range vals {
		vals[i] = randomValue(rng, in.fieldLen.Next(rng))
	}
	return fields, vals
}

func (w *worker) update(ctx context.Context, rng *rand.Rand, req workload.Requests, key string) error {
	fields, vals := w.updateValues(rng)
	start := time.Now()
	found, err := w.s.update(ctx, key, fields, vals)
	return w.outcome(req, opUpdate, start, found, err)
}

// insert is a run-time insert: the next number of the acknowledged counter,
// acknowledged whatever the outcome, as YCSB's doTransactionInsert does.
func (w *worker) insert(ctx context.Context, rng *rand.Rand, req workload.Requests) error {
	in := w.in
	n := in.inserts.Next(rng)
	w.keys[0] = buildKeyName(n, in.cfg.ZeroPadding, in.cfg.OrderedInserts)
	w.recs[0] = in.record(rng)
	start := time.Now()
	err := w.s.insert(ctx, w.keys[:], w.recs[:])
	if aerr := in.inserts.acknowledge(n); aerr != nil && err == nil {
		err = aerr
	}
	return w.outcome(req, opInsert, start, true, err)
}

func (w *worker) scan(ctx context.Context, rng *rand.Rand, req workload.Requests) error {
	key := w.nextKey(rng)
	n := int(w.in.scanLength.Next(rng))
	fields := w.readFields(rng)
	start := time.Now()
	got, err := w.s.scan(ctx, key, n, fields)
	if err != nil {
		req.Failed(opScan, w.conn.Classify(err))
		return err
	}
	req.Request(opScan, time.Since(start), int64(got), 0)
	return nil
}

// readModifyWrite reads a record and updates it: YCSB records the read and
// the update as READ and UPDATE and the whole as READ-MODIFY-WRITE, timed
// from before the read to after the update.
func (w *worker) readModifyWrite(ctx context.Context, rng *rand.Rand, req workload.Requests) error {
	key := w.nextKey(rng)
	start := time.Now()
	if err := w.read(ctx, rng, req, key); err != nil {
		req.Failed(opRMW, classOf(w.conn, err))
		return err
	}
	fields, vals := w.updateValues(rng)
	ustart := time.Now()
	found, err := w.s.update(ctx, key, fields, vals)
	if err := w.outcome(req, opUpdate, ustart, found, err); err != nil {
		req.Failed(opRMW, classOf(w.conn, err))
		return err
	}
	req.Request(opRMW, time.Since(start), 1, 0)
	return nil
}

func classOf(c driver.Conn, err error) result.ErrorClass {
	if errors.Is(err, errNotFoundRecorded) {
		return result.ErrNotFound
	}
	return c.Classify(err)
}
