// Package ycsbparams declares the parameters of the ycsb kind once, for the
// native ycsb workload and for the go-ycsb tool cell (internal/adapter), so
// that a native cell and a tool cell with the same parameters are the same
// study; and what every ycsb run, native or imported, shares: the op types
// as YCSB names them in its report, the operations counter and the headline.
// It imports nothing but params and result.
package ycsbparams

import (
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Names of the ycsb kind's parameters, spelled here only. RecordCount and
// OperationCount are also YCSB's property names, which the parameters set.
const (
	Workload       = "workload"
	RecordCount    = "recordcount"
	OperationCount = "operationcount"
	Properties     = "properties"
	PropertyFiles  = "property_files"
)

// Op types of a ycsb run, named as YCSB's report names them ([READ], ...),
// so that native and imported runs compare op by op.
const (
	Read            = "READ"
	Update          = "UPDATE"
	Insert          = "INSERT"
	Scan            = "SCAN"
	ReadModifyWrite = "READ-MODIFY-WRITE"
)

// Ops lists the op types in index order.
var Ops = []string{Read, Update, Insert, Scan, ReadModifyWrite}

// Operations is the Summary.Extra counter of YCSB operations completed in
// the measured phase. It is not the sum of the op types' counts: a
// read-modify-write is one operation, and YCSB (and fairbench, to report the
// same [READ] and [UPDATE] blocks) also records its read and its update.
const Operations = "operations"

// Headline is YCSB's [OVERALL] Throughput: operations per second.
var Headline = result.Headline{Name: "throughput", Unit: "ops/s", HigherIsBetter: true,
	Field: result.FieldCounter, Counter: Operations}

// presets are YCSB's core workloads, workloads/workload[a-f].
var presets = []string{"a", "b", "c", "d", "e", "f"}

// Specs are the ycsb kind's parameters. The workload's other properties are
// YCSB's own, given as they are (properties, property_files), so that YCSB's
// workload files and -p options carry over unchanged.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Workload, Kind: params.String, Default: "a", Choices: presets,
			Help: "YCSB core workload (workloads/workload[a-f]): a 50/50 read/update, b 95/5 read/update, c read only, d read latest with 5% inserts, e short scans with 5% inserts, f 50/50 read/read-modify-write"},
		{Name: RecordCount, Kind: params.Int, Default: int64(10000), Min: params.MinOf(1), Max: params.MaxOf(1e12),
			Help: "records loaded (YCSB recordcount; 1 KB each with the default 10 fields of 100 bytes)"},
		{Name: OperationCount, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(1e15),
			Help: "stop after this many operations over all clients (YCSB operationcount); 0: run for the cell's duration"},
		{Name: Properties, Kind: params.StringList,
			Help: "YCSB properties as name=value (-p), applied after the preset and the property files: fieldcount=20, requestdistribution=uniform, ..."},
		{Name: PropertyFiles, Kind: params.StringList,
			Help: "YCSB workload files (-P), read in order after the preset; unknown properties are errors"},
	}
}

// Options are a ycsb cell's parameters, decoded once: the native workload
// and the go-ycsb builder read these fields.
type Options struct {
	Workload       string // the preset, a to f
	RecordCount    int64
	OperationCount int64    // 0: for the cell's duration
	Properties     []string // name=value, after the preset and the files
	PropertyFiles  []string
}

// Decode reads a ycsb cell's values, validated against Specs (which bound
// each number); a missing one takes its default.
func Decode(v params.Values) Options {
	v = params.WithDefaults(Specs(), v)
	return Options{Workload: v.String(Workload), RecordCount: v.Int(RecordCount), OperationCount: v.Int(OperationCount),
		Properties: v.Strings(Properties), PropertyFiles: v.Strings(PropertyFiles)}
}
