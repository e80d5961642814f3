// Package oltpparams declares the parameters of the oltp kind — sysbench
// 1.0's oltp_*.lua options in snake case — once, for the native oltp workload
// and for the sysbench tool cell and importer (internal/adapter), so that a
// native cell and a sysbench cell with the same parameters are the same
// measurement. It imports nothing but params.
package oltpparams

import (
	"math"

	"github.com/fairbench/fairbench/internal/params"
)

// Names of the oltp kind's parameters, spelled here only.
const (
	Mode               = "mode"
	Tables             = "tables"
	TableSize          = "table_size"
	RangeSize          = "range_size"
	PointSelects       = "point_selects"
	SimpleRanges       = "simple_ranges"
	SumRanges          = "sum_ranges"
	OrderRanges        = "order_ranges"
	DistinctRanges     = "distinct_ranges"
	IndexUpdates       = "index_updates"
	NonIndexUpdates    = "non_index_updates"
	DeleteInserts      = "delete_inserts"
	RangeSelects       = "range_selects"
	SkipTrx            = "skip_trx"
	AutoInc            = "auto_inc"
	Secondary          = "secondary"
	CreateSecondary    = "create_secondary"
	RandType           = "rand_type"
	RandSpecIter       = "rand_spec_iter"
	RandSpecPct        = "rand_spec_pct"
	RandSpecRes        = "rand_spec_res"
	RandParetoH        = "rand_pareto_h"
	MySQLStorageEngine = "mysql_storage_engine"
	QueryMode          = "query_mode"
	Events             = "events"
)

// Modes, named after sysbench's scripts without the oltp_ prefix.
const (
	PointSelect    = "point_select"
	ReadOnly       = "read_only"
	WriteOnly      = "write_only"
	ReadWrite      = "read_write"
	UpdateIndex    = "update_index"
	UpdateNonIndex = "update_non_index"
	Insert         = "insert"
	Delete         = "delete"
)

// Modes lists the modes.
var Modes = []string{PointSelect, ReadOnly, WriteOnly, ReadWrite, UpdateIndex, UpdateNonIndex, Insert, Delete}

// Specs are the oltp kind's parameters: sysbench's option names and 1.0
// defaults. The maxima keep a typo from sizing a load or a transaction past
// any run: statements per transaction at most 10 000 (sysbench's are 1 to
// 10), a range of at most a million rows, and rows per table that fit
// sysbench's INTEGER id.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Mode, Kind: params.String, Default: ReadWrite, Choices: Modes,
			Help: "sysbench script: point_select, read_only, write_only, read_write, update_index, update_non_index, insert, delete"},
		{Name: Tables, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(10_000), Help: "number of tables", Data: true},
		{Name: TableSize, Kind: params.Int, Default: int64(10000), Min: params.MinOf(1), Max: params.MaxOf(math.MaxInt32),
			Help: "rows per table (at most 2 147 483 647: sysbench's id is an INTEGER)", Data: true},
		{Name: RangeSize, Kind: params.Int, Default: int64(100), Min: params.MinOf(1), Max: params.MaxOf(1_000_000), Help: "range size of range SELECTs"},
		{Name: PointSelects, Kind: params.Int, Default: int64(10), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "point SELECTs per transaction"},
		{Name: SimpleRanges, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "simple range SELECTs per transaction"},
		{Name: SumRanges, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "SELECT SUM() per transaction"},
		{Name: OrderRanges, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "SELECT ORDER BY per transaction"},
		{Name: DistinctRanges, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "SELECT DISTINCT per transaction"},
		{Name: IndexUpdates, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "UPDATEs of the indexed column k per transaction"},
		{Name: NonIndexUpdates, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "UPDATEs of the non-indexed column c per transaction"},
		{Name: DeleteInserts, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(10_000), Help: "DELETE/INSERT pairs per transaction"},
		{Name: RangeSelects, Kind: params.Bool, Default: true, Help: "enable the range SELECTs"},
		{Name: SkipTrx, Kind: params.Bool, Default: false, Help: "no BEGIN/COMMIT: every statement in autocommit mode"},
		{Name: AutoInc, Kind: params.Bool, Default: true, Help: "id is AUTO_INCREMENT (SERIAL on PostgreSQL); false = client-generated ids"},
		{Name: Secondary, Kind: params.Bool, Default: false, Help: "a secondary index on id instead of the primary key"},
		{Name: CreateSecondary, Kind: params.Bool, Default: true, Help: "create the secondary index k_N on k"},
		{Name: RandType, Kind: params.String, Default: "special", Choices: []string{"uniform", "gaussian", "special", "pareto"},
			Help: "distribution of row ids (sysbench 1.0's --rand-type, default special)"},
		{Name: RandSpecIter, Kind: params.Int, Default: int64(12), Min: params.MinOf(1), Max: params.MaxOf(1000), Help: "iterations of the gaussian and special distributions"},
		{Name: RandSpecPct, Kind: params.Int, Default: int64(1), Min: params.MinOf(0), Max: params.MaxOf(100), Help: "special: percent of the range holding the special values"},
		{Name: RandSpecRes, Kind: params.Int, Default: int64(75), Min: params.MinOf(0), Max: params.MaxOf(99), Help: "special: percent of draws that hit the special values"},
		{Name: RandParetoH, Kind: params.Float, Default: 0.2, Min: params.MinOf(0), Max: params.MaxOf(1), Help: "pareto: shape parameter h"},
		{Name: MySQLStorageEngine, Kind: params.String, Default: "innodb", Help: "storage engine on MySQL/MariaDB",
			Engines: []string{"mysql", "mariadb"}},
		{Name: QueryMode, Kind: params.String, Default: "prepared", Choices: []string{"simple", "extended", "prepared"},
			Help: "prepared = server-side prepared statements, sysbench's default (--db-ps-mode=auto); simple = text with client-side parameters (--db-ps-mode=disable)"},
		{Name: Events, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(1e15),
			Help: "stop after this many transactions over all clients, warm-up included (sysbench --events); the run also ends at its duration; 0: run for the duration"},
	}
}

// Options are an oltp cell's parameters, decoded once: the native workload
// and the sysbench command builder read these fields.
type Options struct {
	Mode               string
	Tables             int64
	TableSize          int64
	RangeSize          int64
	PointSelects       int64
	SimpleRanges       int64
	SumRanges          int64
	OrderRanges        int64
	DistinctRanges     int64
	IndexUpdates       int64
	NonIndexUpdates    int64
	DeleteInserts      int64
	RangeSelects       bool
	SkipTrx            bool
	AutoInc            bool
	Secondary          bool
	CreateSecondary    bool
	RandType           string
	RandSpecIter       int64
	RandSpecPct        int64
	RandSpecRes        int64
	RandParetoH        float64
	MySQLStorageEngine string
	QueryMode          string
	Events             int64
}

// Decode reads an oltp cell's values, validated against Specs (which bound
// each number); a missing one takes its default.
func Decode(v params.Values) Options {
	v = params.WithDefaults(Specs(), v)
	return Options{
		Mode:               v.String(Mode),
		Tables:             v.Int(Tables),
		TableSize:          v.Int(TableSize),
		RangeSize:          v.Int(RangeSize),
		PointSelects:       v.Int(PointSelects),
		SimpleRanges:       v.Int(SimpleRanges),
		SumRanges:          v.Int(SumRanges),
		OrderRanges:        v.Int(OrderRanges),
		DistinctRanges:     v.Int(DistinctRanges),
		IndexUpdates:       v.Int(IndexUpdates),
		NonIndexUpdates:    v.Int(NonIndexUpdates),
		DeleteInserts:      v.Int(DeleteInserts),
		RangeSelects:       v.Bool(RangeSelects),
		SkipTrx:            v.Bool(SkipTrx),
		AutoInc:            v.Bool(AutoInc),
		Secondary:          v.Bool(Secondary),
		CreateSecondary:    v.Bool(CreateSecondary),
		RandType:           v.String(RandType),
		RandSpecIter:       v.Int(RandSpecIter),
		RandSpecPct:        v.Int(RandSpecPct),
		RandSpecRes:        v.Int(RandSpecRes),
		RandParetoH:        v.Float(RandParetoH),
		MySQLStorageEngine: v.String(MySQLStorageEngine),
		QueryMode:          v.String(QueryMode),
		Events:             v.Int(Events),
	}
}
