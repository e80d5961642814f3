package ycsb

// The ycsb workload kind: YCSB's CoreWorkload run by fairbench's own clients
// on any target whose sessions speak SQL, KV or Document, with YCSB's
// properties and report shape.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/workload"
)

func init() {
	workload.Register(workload.Plugin{
		Workload: Workload{},
		Kind:     kinds.Info{Headline: ycsbparams.Headline, WorkingSet: workingSet, Summary: peerSummary, Progress: statusLine},
	})
}

// Workload is the ycsb workload kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return "ycsb" }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "YCSB's core workloads A–F (CoreWorkload: zipfian, latest, hotspot… key choice, YCSB's key hashing, -p/-P properties) on SQL, Redis/Valkey, embedded KV and MongoDB-compatible targets"
}

// Params implements workload.Workload: the kind's parameters, the YCSB
// properties declaring the memory the record they shape costs.
func (Workload) Params() []params.Spec {
	specs := ycsbparams.Specs()
	for i := range specs {
		if specs[i].Name == ycsbparams.Properties {
			specs[i].Memory = recordMemory
		}
	}
	return specs
}

// recordMemory is what the record's shape (fieldcount × fieldlength) makes
// the load generator hold: the field names once; for each client a record
// it writes and one it reads back, and with scans up to maxscanlength read
// records. Values that do not parse cost nothing here: New refuses them.
func recordMemory(v params.Values) (shared, perClient float64) {
	props, err := propsOf(v)
	if err != nil {
		return 0, 0
	}
	cfg, err := parseConfig(props)
	if err != nil {
		return 0, 0
	}
	field := float64(cfg.FieldLength) + float64(len(cfg.FieldNamePrefix)) + 24 // value, name, and their headers
	held := 2.0
	if cfg.ScanProportion > 0 {
		held += float64(cfg.MaxScanLength)
	}
	return float64(cfg.FieldCount) * 32, float64(cfg.FieldCount) * field * held
}

// propsOf gathers YCSB's properties in YCSB's order of precedence: the
// preset's workload file, then the kind's recordcount and operationcount
// parameters, then the property files in order, then the -p properties.
func propsOf(p params.Values) (props, error) {
	o := ycsbparams.Decode(p)
	props := props{}
	if err := preset(o.Workload, props); err != nil {
		return nil, err
	}
	// The parameters are the YCSB properties of the same names.
	props.set(ycsbparams.RecordCount, strconv.FormatInt(o.RecordCount, 10), "parameter "+ycsbparams.RecordCount)
	props.set(ycsbparams.OperationCount, strconv.FormatInt(o.OperationCount, 10), "parameter "+ycsbparams.OperationCount)
	for _, f := range o.PropertyFiles {
		if err := loadFile(f, props); err != nil {
			return nil, err
		}
	}
	for _, kv := range o.Properties {
		if err := setFlag(kv, props); err != nil {
			return nil, err
		}
	}
	return props, nil
}

// Flags implements workload.Flagger: YCSB's command-line options where they
// do not clash with fairbench's own (YCSB's -target is the rate here:
// fairbench's --target is the URL).
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "preset", Param: ycsbparams.Workload, Usage: "YCSB core workload a–f (workloads/workload[a-f])"},
		{Name: "property", Shorthand: "p", Param: ycsbparams.Properties, Repeat: true,
			Usage: "a YCSB property, name=value (repeatable): -p recordcount=1000000 -p requestdistribution=uniform"},
		{Name: "property-file", Shorthand: "P", Param: ycsbparams.PropertyFiles, Repeat: true,
			Usage: "a YCSB workload file (repeatable), read after the preset"},
		{Name: "threads", Field: workload.FieldClients, Default: "1", Usage: "client threads, one session each (YCSB -threads; -threads with one dash works too)"},
		{Name: "duration", Field: workload.FieldDuration, Default: "60s",
			Usage: "maximum measured time (YCSB's maxexecutiontime); with operationcount the run also ends when they are done"},
		{Name: "rate", Field: workload.FieldRate, Usage: "target operations per second over all threads (YCSB -target, which works with one dash), without coordinated omission"},
		{Name: "status", Field: workload.FieldProgress, Usage: "print YCSB's status line every N seconds (YCSB -s: every 10)"},
	}
}

// instance is a ycsb workload with its configuration bound.
type instance struct {
	cfg    *config
	props  props
	layout layout // chosen in Prepare from the target's capability

	fields     []string // field0 … field(n-1)
	chooser    generator
	inserts    *ackCounter // run-time inserts, YCSB's transactioninsertkeysequence
	scanLength generator
	fieldLen   generator
	ops        cumulative

	budget     atomic.Int64 // operations left when operationcount > 0
	counted    bool
	operations shardedCounter
}

// New implements workload.Workload: YCSB's properties (propsOf)
// validated by ParseConfig.
func (Workload) New(p params.Values) (workload.Instance, error) {
	props, err := propsOf(p)
	if err != nil {
		return nil, err
	}
	cfg, err := parseConfig(props)
	if err != nil {
		return nil, err
	}
	if err := toolProperties(cfg); err != nil {
		return nil, err
	}
	if cfg.DataIntegrity {
		return nil, errors.New("ycsb: dataintegrity=true is not supported: fairbench writes random field values and does not verify reads")
	}
	in := &instance{cfg: cfg, props: props, fields: cfg.fieldNames()}
	in.inserts = newAckCounter(cfg.RecordCount)
	if in.chooser, err = cfg.newKeyChooser(in.inserts); err != nil {
		return nil, err
	}
	in.scanLength = cfg.newScanLength()
	if in.fieldLen, err = cfg.newFieldLength(); err != nil {
		return nil, err
	}
	in.ops = newCumulative([]float64{cfg.ReadProportion, cfg.UpdateProportion, cfg.InsertProportion, cfg.ScanProportion, cfg.ReadModifyWriteProp})
	if cfg.OperationCount > 0 {
		in.counted = true
		in.budget.Store(cfg.OperationCount)
	}
	return in, nil
}

// toolProperties refuses the properties that are YCSB's client's or a
// binding's: fairbench has its own way to say each, and a property that
// silently did nothing would make a study say what it did not run.
func toolProperties(cfg *config) error {
	instead := map[string]string{
		"threadcount": "--threads (clients in a study)", "target": "--rate (rate in a study)",
		"maxexecutiontime": "--duration", "status.interval": "--status", "db": "--target",
		"dotransactions": "fairbench load / fairbench run", "measurementtype": "nothing: fairbench keeps HdrHistograms of every operation",
	}
	var errs []error
	names := make([]string, 0, len(cfg.Tool))
	for n := range cfg.Tool {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		src := cfg.Tool[n].Source
		switch {
		case instead[n] != "":
			errs = append(errs, fmt.Errorf("%s: property %q is YCSB's client's: use %s", src, n, instead[n]))
		case kindOf(n) == propBinding:
			errs = append(errs, fmt.Errorf("%s: property %q is for a YCSB database binding: fairbench reaches the database through the target URL (--target)", src, n))
		default:
			errs = append(errs, fmt.Errorf("%s: property %q is YCSB's client's, which fairbench does not have", src, n))
		}
	}
	return errors.Join(errs...)
}

// Op type indexes, in ycsbparams.Ops order.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opRMW
)

// Ops implements workload.Instance.
func (in *instance) Ops() []string { return ycsbparams.Ops }

// counts is the Counts hook: the YCSB operations completed.
func (in *instance) counts() map[string]int64 {
	return map[string]int64{ycsbparams.Operations: in.operations.sum()}
}

// cumulative is YCSB's DiscreteGenerator over the operations: a uniform draw
// in [0, sum) walks the weights in order.
type cumulative struct{ bounds [5]float64 }

func newCumulative(w []float64) cumulative {
	var c cumulative
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	acc := 0.0
	for i, x := range w {
		acc += x
		c.bounds[i] = acc / sum
	}
	return c
}

func (c *cumulative) next(r *rand.Rand) int {
	v := r.Float64()
	for i, b := range c.bounds {
		if v < b {
			return i
		}
	}
	// Rounding left v past the last bound: the last operation with a weight.
	for i := len(c.bounds) - 1; i > 0; i-- {
		if c.bounds[i] > c.bounds[i-1] {
			return i
		}
	}
	return 0
}

// shardedCounter counts operations from many clients without a shared
// cache line per increment: each client adds to its own cell.
type shardedCounter struct {
	cells atomic.Pointer[[]*paddedInt]
}

type paddedInt struct {
	n atomic.Int64
	_ [56]byte
}

func (s *shardedCounter) cell() *paddedInt {
	c := &paddedInt{}
	for {
		old := s.cells.Load()
		var next []*paddedInt
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, c)
		if s.cells.CompareAndSwap(old, &next) {
			return c
		}
	}
}

func (s *shardedCounter) sum() int64 {
	var n int64
	if c := s.cells.Load(); c != nil {
		for _, x := range *c {
			n += x.n.Load()
		}
	}
	return n
}

// workingSet is the records times their size: fieldcount × fieldlength plus
// the key, from the kind's parameters (properties that change them are not
// looked at).
func workingSet(v params.Values) (int64, string, bool) {
	n, ok := v[ycsbparams.RecordCount].(int64)
	if !ok || n < 1 {
		return 0, "", false
	}
	fields, length := int64(10), int64(100)
	for _, kv := range v.Strings(ycsbparams.Properties) {
		k, v, _ := strings.Cut(kv, "=")
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "fieldcount":
			fields = x
		case "fieldlength":
			length = x
		case "recordcount":
			n = x
		}
	}
	per := fields*length + 24
	return n * per, fmt.Sprintf("%d records × (%d fields × %d bytes + key)", n, fields, length), true
}

// describe is the Describe hook: the properties that shape the run,
// as YCSB's -s header would list them, and where fairbench differs from YCSB.
func (in *instance) describe(driver.Conn) (facts [][2]string, deviations []string) {
	c := in.cfg
	mix := []string{}
	for i, w := range c.mix() {
		if w > 0 {
			mix = append(mix, fmt.Sprintf("%s %g", ycsbparams.Ops[i], w))
		}
	}
	facts = [][2]string{
		{"operations", strings.Join(mix, ", ")},
		{"requestdistribution", c.RequestDist},
		{"recordcount", strconv.FormatInt(c.RecordCount, 10)},
		{"fields", fmt.Sprintf("%d × %d bytes (%s)", c.FieldCount, c.FieldLength, c.FieldLengthDist)},
		{"insertorder", map[bool]string{true: "ordered", false: "hashed"}[c.OrderedInserts]},
	}
	if c.ScanProportion > 0 {
		facts = append(facts, [2]string{"scan length", fmt.Sprintf("%d–%d (%s)", c.MinScanLength, c.MaxScanLength, c.ScanLengthDist)})
	}
	if in.layout != nil {
		facts = append(facts, [2]string{"data", in.layout.describe()})
		for _, n := range in.layout.deviations() {
			if c.runsAny(n.ops) {
				deviations = append(deviations, n.text)
			}
		}
	}
	return facts, deviations
}

// Shape implements workload.Shaper: prepared statements, as
// YCSB's JDBC binding and go-ycsb's PostgreSQL and MySQL bindings run them
// (the server plans each statement once per session); operationcount shared
// among load generators (Split), which ends the run before its duration
// when it is done.
func (in *instance) Shape() workload.Shape {
	s := workload.Shape{ConnOptions: driver.Options{QueryMode: "prepared"}, Split: in.split}
	if in.counted {
		s.End = workload.UntilDone(fmt.Sprintf("the %d operations of operationcount are done", in.cfg.OperationCount))
	}
	return s
}

// Hooks implements workload.Hooker.
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{BeforeRun: in.beforeRun, Cleanup: in.cleanup, Describe: in.describe, Counts: in.counts}
}
