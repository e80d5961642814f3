package adapter

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// YCSB, in its two implementations. go-ycsb's output (v1.0, run or load): one
// operation per YCSB operation type (READ, UPDATE, ...) with a histogram
// reconstructed from the percentiles it prints, TOTAL as the run's summary,
// and its periodic TOTAL lines as the series. Op types are named as Java YCSB
// and ycsbparams name them (go-ycsb's READ_MODIFY_WRITE is READ-MODIFY-WRITE).
//
// go-ycsb's TOTAL counts the successful database calls, not the operations:
// a read-modify-write is measured as READ_MODIFY_WRITE and its read and its
// update again as READ and UPDATE, both in TOTAL (Java YCSB counts it once in
// its throughput). The YCSB operations of a run, Summary.Extra
// [ycsbparams.Operations], are TOTAL plus the failed calls (READ_ERROR, ...)
// minus the read-modify-writes. Java YCSB's final report
// ([OVERALL], [READ], ...): ycsbjava.go. A study cell with tool = "ycsb" runs
// go-ycsb: ycsbcmd.go.

// ycsbTool is ycsb as registered, which the package's tests name.
var ycsbTool *Tool

func init() {
	ycsbTool = Register(Tool{
		Name:        "ycsb",
		Kind:        "ycsb",
		DetectOrder: 50,
		Formats:     "go-ycsb run and load output, Java YCSB 0.17 text report (hdrhistogram, histogram or timeseries measurements; with stderr's Command line and -s status lines when saved along)",
		Detect:      func(text string) bool { return detectYcsb(text) || detectYcsbJava(text) },
		Once:        regexp.MustCompile(`(?m)^(Run finished, takes |\[OVERALL\], RunTime\(ms\), )`),
		Parse:       parseYcsbAny,
		Binary:      "go-ycsb",
		Build:       buildYcsb,
		Load:        loadYcsb,
		Writes:      ycsbWrites,
		Install:     ycsbInstall,
		// ycsb's parameters, shared with the native workload, for a build
		// without it.
		KindParams: ycsbparams.Specs(),
	})
}

func parseYcsbAny(name, text string) ([]*result.Run, error) {
	if detectYcsbJava(text) {
		return parseYcsbJava(name, text)
	}
	return parseYcsb(name, text)
}

var (
	ycsbDetectRe = regexp.MustCompile(`(?m)^(Run finished, takes |[A-Z_]+\s+- Takes\(s\): [\d.]+, Count: \d+, OPS: )`)
	ycsbProp     = regexp.MustCompile(`^"([^"]+)"="([^"]*)"$`)
	ycsbFinished = regexp.MustCompile(`^Run finished, takes (\S+)$`)
	ycsbSignal   = regexp.MustCompile(`^Got signal \[[a-z ]+\] to exit\.$`)
	// What a binding prints on stdout between go-ycsb's own lines.
	ycsbBindingLine = regexp.MustCompile(`^Connected to MongoDB!$`)
	ycsbOp          = regexp.MustCompile(`^([A-Z_]+)\s+- Takes\(s\): ([\d.]+), Count: (\d+), OPS: ([\d.]+), Avg\(us\): (\d+), Min\(us\): (\d+), Max\(us\): (\d+), 50th\(us\): (\d+), 90th\(us\): (\d+), 95th\(us\): (\d+), 99th\(us\): (\d+), 99\.9th\(us\): (\d+), 99\.99th\(us\): (\d+)$`)
)

func detectYcsb(text string) bool { return ycsbDetectRe.MatchString(head(text, 256<<10)) }

// ycsbParams are the workload properties that become parameters. YCSB's own
// "workload" property (go-ycsb's "core", Java's workload class) is not one:
// the parameter workload is the core workload's letter (a–f), known when the
// command line names the workload file.
var ycsbParams = []string{ycsbparams.RecordCount, "readproportion", "updateproportion", "insertproportion", "scanproportion",
	"readmodifywriteproportion", "requestdistribution", "fieldcount", "fieldlength", "readallfields"}

func parseYcsb(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseYcsbLines)
}

// ycsbParse is the state of a go-ycsb output being read.
type ycsbParse struct {
	l        *lines
	r        *result.Run
	props    map[string]string
	finished bool
	total    []string // the final TOTAL line's submatches
	prevT    float64
	prevN    int64
	errs     map[string]int64 // op → its _ERROR count
}

// ycsbRules are the lines of a go-ycsb output, trimmed, in the order they
// are tried.
var ycsbRules = []lineRule[*ycsbParse]{
	{when: func(_ *ycsbParse, t string) bool {
		return t == "" || strings.HasPrefix(t, "****") || strings.HasPrefix(t, "Using ") || strings.HasPrefix(t, "Setting ")
	}, handle: skipLine[*ycsbParse]},
	{re: ycsbSignal, handle: (*ycsbParse).signal},
	{re: ycsbBindingLine, handle: skipLine[*ycsbParse]},
	{re: ycsbProp, handle: func(p *ycsbParse, m []string) error { p.props[m[1]] = m[2]; return nil }},
	{re: ycsbFinished, handle: (*ycsbParse).runFinished},
	{re: ycsbOp, handle: (*ycsbParse).op},
}

func parseYcsbLines(l *lines) ([]*result.Run, error) {
	p := &ycsbParse{l: l, r: &result.Run{Workload: "ycsb", Kind: "ycsb", Params: map[string]any{}},
		props: map[string]string{}, errs: map[string]int64{}}
	if err := applyAll(l, ycsbRules, p, "unexpected line in go-ycsb output"); err != nil {
		return nil, err
	}
	return p.finish()
}

// signal: go-ycsb stops at SIGINT and still prints its results: that is
// how a study cell bounds its run to the cell's duration.
func (p *ycsbParse) signal([]string) error {
	if p.r.Env.Extra == nil {
		p.r.Env.Extra = map[string]any{"stopped_by": "SIGINT"}
		p.r.Deviations = append(p.r.Deviations, "go-ycsb was stopped by SIGINT (the end of the cell's duration): an operation in flight at that moment may count as an error, at most one per client")
	}
	return nil
}

func (p *ycsbParse) runFinished(m []string) error {
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return p.l.errorf("run time %q is not a duration", m[1])
	}
	p.r.Duration = d
	p.finished = true
	return nil
}

// op reads an op's line: a periodic one (cumulative since the start, every
// 10 s) before "Run finished", the final one after it.
func (p *ycsbParse) op(m []string) error {
	l := p.l
	n, _ := l.integer(m[3], "count")
	if !p.finished {
		if m[1] == "TOTAL" {
			at, _ := l.num(m[2], "takes")
			if at > p.prevT {
				ops := n - p.prevN
				p.r.Series = append(p.r.Series, result.SeriesPoint{Second: int(at + 0.5), Ops: ops, Rate: float64(ops) / (at - p.prevT)})
			}
			p.prevT, p.prevN = at, n
		}
		return nil
	}
	if strings.HasSuffix(m[1], "_ERROR") {
		p.errs[ycsbOpName(strings.TrimSuffix(m[1], "_ERROR"))] += n
		return nil
	}
	if m[1] == "TOTAL" {
		p.total = m
		return nil
	}
	op, err := ycsbOpResult(l, m)
	if err != nil {
		return err
	}
	p.r.Ops = append(p.r.Ops, op)
	return nil
}

// finish checks that the output was whole and makes its run.
func (p *ycsbParse) finish() ([]*result.Run, error) {
	l, r, props, total := p.l, p.r, p.props, p.total
	if !p.finished {
		return nil, l.missing("\"Run finished\" line")
	}
	if total == nil {
		return nil, l.missing("TOTAL line")
	}
	rmw := p.opErrors()
	s := &r.Summary
	calls, _ := strconv.ParseInt(total[3], 10, 64)
	s.Throughput, _ = strconv.ParseFloat(total[4], 64)
	// The operations: every call, successful (TOTAL) or not (_ERROR), but a
	// read-modify-write once, not as its read and its update.
	ops := calls + s.Failed - rmw
	s.Transactions = max(ops-s.Failed, 0)
	if rmw > 0 {
		if calls > 0 {
			s.Throughput *= float64(s.Transactions) / float64(calls)
		}
		r.Deviations = append(r.Deviations, "throughput counts each READ-MODIFY-WRITE once: go-ycsb's TOTAL, "+
			strconv.FormatInt(calls, 10)+" at "+total[4]+" ops/s, counts its read and its update as two")
		if p.errs[ycsbparams.Read] > 0 {
			r.Deviations = append(r.Deviations, "operations may be undercounted by up to "+strconv.FormatInt(p.errs[ycsbparams.Read], 10)+
				": go-ycsb does not say which failed reads were a READ-MODIFY-WRITE's (whose update then never ran)")
		}
	}
	s.Extra = map[string]float64{ycsbparams.Operations: float64(ops)}
	v := func(i int) float64 { f, _ := strconv.ParseFloat(total[i], 64); return f }
	s.LatencyMean, s.LatencyMin, s.Max = v(5), v(6), v(7)
	s.P50, s.P95, s.P99 = v(8), v(10), v(11)
	n, err := strconv.Atoi(props["threadcount"])
	if err != nil {
		return nil, l.missing("threadcount property")
	}
	if n <= 0 || n > maxClients {
		return nil, &ParseError{File: l.file, Line: propLine(l.text, "threadcount"), Msg: fmt.Sprintf("threadcount %d is out of range (1 to %d)", n, maxClients)}
	}
	r.Clients = n
	for _, k := range ycsbParams {
		if v, ok := props[k]; ok {
			r.Params[k] = ycsbParamValue(v)
		}
	}
	env := map[string]any{"properties": props, "total_calls": calls}
	for k, v := range r.Env.Extra {
		env[k] = v
	}
	if props["command"] == "load" || props["dotransactions"] == "false" {
		r.Workload = "ycsb-load"
	}
	r.Env.Extra = map[string]any{"ycsb": env}
	r.ToolVersion = "go-ycsb"
	if r.Duration > 0 {
		s.Metric = &result.Metric{Headline: ycsbparams.Headline, Value: ycsbparams.Headline.Measure(nil, s.Extra, r.Duration, nil, nil)}
	}
	r.Deviations = append(r.Deviations, reconstructedNote+" (go-ycsb's per-operation percentiles)")
	return []*result.Run{r}, nil
}

// opErrors puts the _ERROR counts into their ops and the summary's failed,
// an op type whose every call failed as an op of its own, and returns the
// READ-MODIFY-WRITE count.
func (p *ycsbParse) opErrors() (rmw int64) {
	r, errs := p.r, p.errs
	for i := range r.Ops {
		if e := errs[r.Ops[i].Name]; e > 0 {
			r.Ops[i].Errors = map[result.ErrorClass]int64{result.ErrOther: e}
			r.Summary.Failed += e
		}
		if r.Ops[i].Name == ycsbparams.ReadModifyWrite {
			rmw = r.Ops[i].Count
		}
	}
	// An op type whose every call failed has no line of its own: it is an op
	// with no successful operation, as in Java YCSB's report.
	var failedOnly []string
	for name := range errs {
		if !slices.ContainsFunc(r.Ops, func(op result.Op) bool { return op.Name == name }) {
			failedOnly = append(failedOnly, name)
		}
	}
	slices.Sort(failedOnly)
	for _, name := range failedOnly {
		r.Ops = append(r.Ops, result.Op{Name: name, Errors: map[result.ErrorClass]int64{result.ErrOther: errs[name]}})
		r.Summary.Failed += errs[name]
	}
	return rmw
}

func ycsbOpResult(l *lines, m []string) (result.Op, error) {
	n, _ := l.integer(m[3], "count")
	var f [9]float64
	for i := range f {
		x, err := l.num(m[5+i], "latency")
		if err != nil {
			return result.Op{}, err
		}
		f[i] = x
	}
	// f: avg min max p50 p90 p95 p99 p99.9 p99.99
	qs := []quantile{{50, f[3]}, {90, f[4]}, {95, f[5]}, {99, f[6]}, {99.9, f[7]}, {99.99, f[8]}}
	h := histFromPercentiles(qs, n, f[1], f[2])
	return result.Op{Name: ycsbOpName(m[1]), Count: n, Histogram: encode(h)}, nil
}

// ycsbOpName is an op type of go-ycsb's output under its ycsbparams name.
func ycsbOpName(name string) string {
	if name == "READ_MODIFY_WRITE" {
		return ycsbparams.ReadModifyWrite
	}
	return name
}

// ycsbParamValue types a property's value: integer, number or string.
func ycsbParamValue(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	return v
}

// propLine is the line of the first "key=" or "key:" in text, 0 when none.
func propLine(text, key string) int {
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\""+key+"\"=") || strings.HasPrefix(line, key+"=") {
			return i + 1
		}
	}
	return 0
}
