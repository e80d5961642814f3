// Package tpccparams declares the parameters of the tpcc kind — HammerDB's
// TPROC-C options in fairbench's snake case — once, for the native tpcc
// workload and for the go-tpc and HammerDB tool cells (internal/adapter), so
// that a native cell and a tool cell with the same parameters are the same
// study. With them it declares what every tpcc run, native or imported,
// shares: the op types, the counters and the headline (NOPM). It imports
// nothing but params and result.
package tpccparams

import (
	"math"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Names of the tpcc kind's parameters, spelled here only.
// TpmCPerWarehouse is the specification's most New-Orders per minute a
// warehouse can give with keying and think times: go-tpc's efficiency is
// tpmC over this times the warehouses (go-tpc tpcc/workload.go, 12.86).
const TpmCPerWarehouse = 12.86

const (
	Warehouses     = "warehouses"
	Implementation = "implementation"
	AllWarehouses  = "all_warehouses"
	KeyingThinking = "keying_thinking"
	LoadWorkers    = "load_workers"
	Seed           = "seed"
)

// Op types of a tpcc run, in the order of the mix (45/43/4/4/4).
const (
	NewOrder    = "new_order"
	Payment     = "payment"
	OrderStatus = "order_status"
	Delivery    = "delivery"
	StockLevel  = "stock_level"
)

// Ops lists the op types in index order.
var Ops = []string{NewOrder, Payment, OrderStatus, Delivery, StockLevel}

// Counters in a tpcc run's Summary.Extra, each its growth over the measured phase.
const (
	// NewOrders is the growth of the sum of the districts' next order ids
	// (d_next_o_id): the New-Orders the database committed, HammerDB's basis of NOPM.
	NewOrders = "new_orders"
	// ServerTransactions is the growth of the server's commits plus rollbacks
	// (pg_stat_database xact_commit + xact_rollback of the database; MySQL Com_commit +
	// Com_rollback), HammerDB's basis of TPM. Absent where the engine keeps no
	// such counter (embedded SQLite).
	ServerTransactions = "server_transactions"
)

// Headline is NOPM, New-Orders per minute as HammerDB measures them: from the
// database's own district counters over the measured phase, not from the
// client's count (that is tpmC, which must agree with it).
var Headline = result.Headline{Name: "NOPM", Unit: "NOPM", HigherIsBetter: true,
	Field: result.FieldCounter, Counter: NewOrders, Ops: []string{NewOrder}, Per: 60}

// Implementations of the five transactions.
const (
	// Client runs each transaction as SQL statements sent by fairbench
	// (portable; go-tpc's way).
	Client = "client"
	// Procedures installs stored procedures and calls one per transaction
	// (HammerDB's default on PostgreSQL and MySQL).
	Procedures = "procedures"
)

// Specs are the tpcc kind's parameters with HammerDB's defaults where HammerDB
// has one.
// The maxima keep a typo from sizing a load past any target: 100 000
// warehouses are some 10 TB.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Warehouses, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(100_000),
			Help: "number of warehouses (HammerDB count_ware, go-tpc --warehouses): 10 districts, 30 000 customers and 100 000 stock rows each"},
		{Name: Implementation, Kind: params.String, Default: Client, Choices: []string{Client, Procedures},
			Help: "client: each transaction's statements sent by fairbench (portable, go-tpc's way); procedures: stored procedures fairbench installs, one call per transaction (HammerDB's default; PostgreSQL and MySQL/MariaDB)"},
		{Name: AllWarehouses, Kind: params.Bool, Default: false,
			Help: "spread each virtual user over every warehouse instead of one home warehouse per user (HammerDB allwarehouse)"},
		{Name: KeyingThinking, Kind: params.Bool, Default: false,
			Help: "the specification's keying and think times between transactions (HammerDB keyandthink); off gives HammerDB's timed driver without waits"},
		{Name: LoadWorkers, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(1024),
			Help: "connections loading in parallel (HammerDB num_vu during the build): the items, each warehouse's stock and each district load as parts of their own"},
		{Name: Seed, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(math.MaxInt64),
			Help: "seed of the loaded data: the same seed loads the same rows, part by part"},
	}
}

// Options are a tpcc cell's parameters, decoded once: the native workload
// and the go-tpc and HammerDB command builders read these fields.
type Options struct {
	Warehouses     int64
	Implementation string // Client or Procedures
	AllWarehouses  bool
	KeyingThinking bool
	LoadWorkers    int64
	Seed           int64
}

// Decode reads a tpcc cell's values, validated against Specs (which bound
// each number); a missing one takes its default.
func Decode(v params.Values) Options {
	v = params.WithDefaults(Specs(), v)
	return Options{
		Warehouses: v.Int(Warehouses), Implementation: v.String(Implementation),
		AllWarehouses: v.Bool(AllWarehouses), KeyingThinking: v.Bool(KeyingThinking),
		LoadWorkers: v.Int(LoadWorkers), Seed: v.Int(Seed),
	}
}
