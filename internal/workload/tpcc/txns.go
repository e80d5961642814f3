package tpcc

import (
	"context"
	"errors"
)

// The inputs of the five transactions, drawn by the worker (input.go) and
// run by one of two implementations of txns: SQL statements sent by
// fairbench (client.go) or one stored-procedure call each (procs.go). Both
// get the same inputs, so the implementation is the only difference.

// orderLine is one item of a New-Order.
type orderLine struct {
	itemID, supplyWID, quantity int64
}

type newOrderIn struct {
	wID, dID, cID int64
	lines         []orderLine // 5–15; the last item id is unusedItem in the 1 % that roll back
	allLocal      bool        // every supplying warehouse is the home one
}

type paymentIn struct {
	wID, dID   int64 // the warehouse and district paid at
	cWID, cDID int64 // the customer's (remote in 15 %)
	cID        int64 // 0 when the customer is selected by last name
	cLast      string
	amount     string // exact decimal, "1.00"–"5000.00"
}

type orderStatusIn struct {
	wID, dID int64
	cID      int64 // 0 when the customer is selected by last name
	cLast    string
}

type deliveryIn struct {
	wID, carrierID int64
}

type stockLevelIn struct {
	wID, dID, threshold int64
}

// txns runs the five transactions on one session. Each method runs one
// whole transaction and leaves the session outside any transaction, whether
// it commits, rolls back or fails.
type txns interface {
	newOrder(ctx context.Context, in *newOrderIn) error
	payment(ctx context.Context, in *paymentIn) error
	orderStatus(ctx context.Context, in *orderStatusIn) error
	delivery(ctx context.Context, in *deliveryIn) error
	stockLevel(ctx context.Context, in *stockLevelIn) error
}

// errRolledBack is what newOrder returns for the specification's 1 % of
// New-Orders whose last item does not exist: the transaction was rolled back
// as clause 2.4.2.3 requires, which is a completed transaction, not a failure.
var errRolledBack = errors.New("new-order rolled back: item number is not valid")

// unusedItem is the item id a rolled-back New-Order asks for (clause 2.4.1.4).
const unusedItem = itemsCount + 1
