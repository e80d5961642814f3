package tpcc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// Op indexes, in tpccparams.Ops order.
const (
	opNewOrder = iota
	opPayment
	opOrderStatus
	opDelivery
	opStockLevel
)

// mix is the standard mix in cards of a deck of 100 (clause 5.2.4.2 allows
// a deck): each user deals its own shuffled deck, so any 100 consecutive
// transactions of a user are exactly 45/43/4/4/4.
var mix = [...]int{opNewOrder: 45, opPayment: 43, opOrderStatus: 4, opDelivery: 4, opStockLevel: 4}

// keyingSeconds and thinkSeconds are clause 5.2.5's minimum keying times and
// mean think times, in the order of the op indexes.
var (
	keyingSeconds = [...]float64{18, 3, 2, 2, 2}
	thinkSeconds  = [...]float64{12, 12, 10, 5, 5}
)

// NewWorker implements workload.Instance for a lone client.
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	return in.NewSlotWorker(ctx, conn, workload.ClientSlot{Index: 0, Clients: 1})
}

// NewSlotWorker implements workload.SlotWorkers: virtual user k's home
// warehouse is (k mod warehouses) + 1, so that users spread evenly over
// the warehouses.
func (in *instance) NewSlotWorker(ctx context.Context, conn driver.Conn, slot workload.ClientSlot) (workload.Op, error) {
	c, err := workload.SQLConn("tpcc", conn)
	if err != nil {
		return nil, err
	}
	var tx txns
	if in.impl == tpccparams.Procedures {
		tx, err = newProcTxns(ctx, c)
	} else {
		tx, err = newClientTxns(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	w := &worker{
		in: in, tx: tx, conn: conn, home: int64(slot.Index)%in.warehouses + 1,
		deal: rand.New(rand.NewPCG(uint64(slot.Index), in.seed^0xdec)),
	}
	w.c = runConstants(loadConstants(in.seed), rand.New(rand.NewPCG(in.seed, 0xc1)))
	return w.op, nil
}

type worker struct {
	in   *instance
	tx   txns
	conn driver.Conn
	home int64
	c    cConstants

	deck [100]uint8
	pos  int
	deal *rand.Rand
	// last is the first draw of the last operation: a retry replays the
	// same random stream, so the same first draw means the same card.
	last uint64

	newOrder    newOrderIn
	payment     paymentIn
	orderStatus orderStatusIn
	delivery    deliveryIn
	stockLevel  stockLevelIn
}

// card deals the next transaction type, or the same again on a retry.
func (w *worker) card(rng *rand.Rand) int {
	tag := rng.Uint64()
	if tag == w.last && w.last != 0 {
		return int(w.deck[(w.pos+99)%100])
	}
	w.last = tag
	if w.pos == 0 {
		i := 0
		for op, n := range mix {
			for j := 0; j < n; j++ {
				w.deck[i] = uint8(op)
				i++
			}
		}
		w.deal.Shuffle(len(w.deck), func(a, b int) { w.deck[a], w.deck[b] = w.deck[b], w.deck[a] })
	}
	op := int(w.deck[w.pos])
	w.pos = (w.pos + 1) % 100
	return op
}

func (w *worker) op(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
	op := w.card(rng)
	wh := w.home
	if w.in.all {
		wh = between(rng, 1, w.in.warehouses)
	}
	if w.in.keying {
		if err := workload.Wait(ctx, time.Duration(keyingSeconds[op]*float64(time.Second))); err != nil {
			return op, err
		}
		start := time.Now()
		err := w.run(ctx, rng, op, wh)
		if err == nil {
			req.Request(op, time.Since(start), 1, 0)
		} else {
			req.Failed(op, w.conn.Classify(err))
		}
		// Think time: negative exponential with the clause's mean, cut at
		// ten times the mean (clause 5.2.5.4).
		think := -math.Log(1-rng.Float64()) * thinkSeconds[op]
		if err == nil {
			err = workload.Wait(ctx, time.Duration(min(think, 10*thinkSeconds[op])*float64(time.Second)))
		}
		return op, err
	}
	return op, w.run(ctx, rng, op, wh)
}

// run draws the inputs of transaction op at warehouse wh (clauses 2.4.1,
// 2.5.1, 2.6.1, 2.7.1, 2.8.1) and runs it.
func (w *worker) run(ctx context.Context, rng *rand.Rand, op int, wh int64) error {
	nw := w.in.warehouses
	switch op {
	case opNewOrder:
		in := &w.newOrder
		in.wID, in.dID, in.cID = wh, between(rng, 1, districtsPerWarehouse), nuRand(rng, 1023, w.c.id, 1, customersPerDistrict)
		n := between(rng, 5, 15)
		rollback := between(rng, 1, 100) == 1
		in.lines, in.allLocal = in.lines[:0], true
		for i := int64(0); i < n; i++ {
			l := orderLine{itemID: nuRand(rng, 8191, w.c.item, 1, itemsCount), supplyWID: wh, quantity: between(rng, 1, 10)}
			if i == n-1 && rollback {
				l.itemID = unusedItem
			}
			if nw > 1 && between(rng, 1, 100) == 1 {
				l.supplyWID = otherWarehouse(rng, wh, nw)
				in.allLocal = false
			}
			in.lines = append(in.lines, l)
		}
		err := w.tx.newOrder(ctx, in)
		if errors.Is(err, errRolledBack) {
			w.in.rollbacks.Add(1)
			return nil
		}
		return err
	case opPayment:
		in := &w.payment
		in.wID, in.dID = wh, between(rng, 1, districtsPerWarehouse)
		in.cWID, in.cDID = in.wID, in.dID
		if nw > 1 && between(rng, 1, 100) <= 15 {
			in.cWID, in.cDID = otherWarehouse(rng, wh, nw), between(rng, 1, districtsPerWarehouse)
		}
		in.cID, in.cLast = w.customer(rng)
		in.amount = money(between(rng, 100, 500000))
		return w.tx.payment(ctx, in)
	case opOrderStatus:
		in := &w.orderStatus
		in.wID, in.dID = wh, between(rng, 1, districtsPerWarehouse)
		in.cID, in.cLast = w.customer(rng)
		return w.tx.orderStatus(ctx, in)
	case opDelivery:
		in := &w.delivery
		in.wID, in.carrierID = wh, between(rng, 1, 10)
		return w.tx.delivery(ctx, in)
	default:
		in := &w.stockLevel
		in.wID, in.dID, in.threshold = wh, between(rng, 1, districtsPerWarehouse), between(rng, 10, 20)
		return w.tx.stockLevel(ctx, in)
	}
}

// customer selects a customer by last name (60 %) or by id (clause 2.5.1.2).
func (w *worker) customer(rng *rand.Rand) (int64, string) {
	if between(rng, 1, 100) <= 60 {
		return 0, lastName(nuRand(rng, 255, w.c.last, 0, 999))
	}
	return nuRand(rng, 1023, w.c.id, 1, customersPerDistrict), ""
}

// otherWarehouse is a warehouse other than home, uniformly.
func otherWarehouse(rng *rand.Rand, home, n int64) int64 {
	o := between(rng, 1, n-1)
	if o >= home {
		o++
	}
	return o
}
