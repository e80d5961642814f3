package adapter

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// go-tpc v1.0.12 (PingCAP), `go-tpc tpcc run` with its default plain output:
// a [Current] block every --interval (10 s) while it runs, "Finished", then
// one [Summary] line per transaction type — NEW_ORDER, PAYMENT, ORDER_STATUS,
// DELIVERY, STOCK_LEVEL, and X_ERR for the failed ones — and the line
// "tpmC: …, tpmTotal: …, efficiency: …%". One run per output; the op types
// are the tpcc kind's (tpccparams.Ops), failed transactions the errors of
// their type.
//
// What go-tpc measures, and what the run therefore says in its deviations:
//
//   - tpmC is the client's count of the New-Orders it committed, divided by
//     the time since its NEW_ORDER histogram was created (the first
//     New-Order), not NOPM read from the districts' next order ids at the
//     edges of the measured phase, as HammerDB and fairbench's tpcc measure
//     it. The run's headline is NOPM with the value tpmC, and
//     Summary.Extra[new_orders] is tpmC × the run's minutes, so the two agree;
//   - its latency histograms have one significant digit and a lowest value of
//     1 ms: a printed percentile is a bucket's value (about 6 % wide), and a
//     faster transaction counts as 1 ms. The run's histograms are
//     reconstructed from the printed percentiles (50th–99.9th, maximum);
//   - the run output prints neither the thread count (-T) nor the warehouses;
//     the warehouses are recovered from the efficiency line (efficiency =
//     tpmC / (12.86 × warehouses)) where it tells them exactly.
//
// `go-tpc tpcc prepare` and `check` outputs are recognised and refused: they
// hold no measured run. A study cell with tool = "go-tpc" runs it:
// gotpccmd.go.

// goTPCTool is go-tpc as registered, which the package's tests name.
var goTPCTool *Tool

func init() {
	goTPCTool = Register(Tool{
		Name:        "go-tpc",
		Kind:        tpccKind,
		DetectOrder: 80,
		Formats:     "go-tpc v1.0 tpcc run output (plain)",
		Detect:      detectGoTPC,
		Once:        regexp.MustCompile(`(?m)^Finished\r?$`),
		Parse:       parseGoTPC,
		Build:       buildGoTPC,
		Load:        loadGoTPC,
		Install:     goTPCInstall,
		// tpcc's parameters, shared with the native workload, for a build
		// without it; HammerDB's cells read them too.
		KindParams: tpccparams.Specs(),
	})
}

// tpccKind is the kind of the runs of TPC-C tools (go-tpc, HammerDB).
const tpccKind = "tpcc"

var (
	goTPCDetect = regexp.MustCompile(`(?m)^(\[(Current|Summary)\] [A-Z_]+ - Takes\(s\): [\d.]+, Count: \d+, TPM: |tpmC: [\d.]+, tpmTotal: |creating table warehouse\r?$|load to item\r?$|begin to check warehouse \d+ at condition )`)
	goTPCRow    = regexp.MustCompile(`^\[(Current|Summary)\] ([A-Z_]+) - Takes\(s\): (\S+), Count: (\S+), TPM: (\S+), Sum\(ms\): (\S+), Avg\(ms\): (\S+), 50th\(ms\): (\S+), 90th\(ms\): (\S+), 95th\(ms\): (\S+), 99th\(ms\): (\S+), 99\.9th\(ms\): (\S+), Max\(ms\): (\S+)$`)
	goTPCWait   = regexp.MustCompile(`^\[(Current|Summary)\] (KEYINGTIME|THINKINGTIME)-([A-Z_]+) - ([\d.]+)s$`)
	goTPCTpmC   = regexp.MustCompile(`^tpmC: (\S+), tpmTotal: (\S+), efficiency: (\S+)%$`)
	goTPCMaxpr  = regexp.MustCompile(`^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d maxprocs: `)
	goTPCFailed = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] execute run failed, err (.*)$`)
	goTPCLoad   = regexp.MustCompile(`^(creating table |creating index |load to |begin to check warehouse |DROP TABLE IF EXISTS |check prepare failed|execute (prepare|check) failed)`)
)

// goTPCOps maps go-tpc's transaction names to the tpcc kind's op types.
var goTPCOps = map[string]string{
	"NEW_ORDER":    tpccparams.NewOrder,
	"PAYMENT":      tpccparams.Payment,
	"ORDER_STATUS": tpccparams.OrderStatus,
	"DELIVERY":     tpccparams.Delivery,
	"STOCK_LEVEL":  tpccparams.StockLevel,
}

// goTPCSpecFactor is go-tpc's tpmC per warehouse at 100 % efficiency.
const goTPCSpecFactor = tpccparams.TpmCPerWarehouse

func detectGoTPC(text string) bool { return goTPCDetect.MatchString(head(text, 256<<10)) }

func parseGoTPC(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseGoTPCLines)
}

// goTPCRowValues are one row's numbers: takes (s), count, tpm, sum, avg,
// p50, p90, p95, p99, p99.9, max (ms).
type goTPCRowValues struct {
	takes, tpm, sum, avg, p50, p90, p95, p99, p999, max float64
	count                                               int64
}

func goTPCReadRow(l *lines, m []string) (goTPCRowValues, error) {
	var v goTPCRowValues
	var err error
	if v.count, err = l.integer(m[4], m[2]+" count"); err != nil {
		return v, err
	}
	fs := []*float64{&v.takes, &v.tpm, &v.sum, &v.avg, &v.p50, &v.p90, &v.p95, &v.p99, &v.p999, &v.max}
	names := []string{"Takes(s)", "TPM", "Sum(ms)", "Avg(ms)", "50th(ms)", "90th(ms)", "95th(ms)", "99th(ms)", "99.9th(ms)", "Max(ms)"}
	idx := []int{3, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	for i, p := range fs {
		if *p, err = l.num(m[idx[i]], m[2]+" "+names[i]); err != nil {
			return v, err
		}
	}
	// The percentiles of one histogram never decrease.
	qs := []float64{v.p50, v.p90, v.p95, v.p99, v.p999, v.max}
	for i := 1; i < len(qs); i++ {
		if qs[i] < qs[i-1] {
			return v, l.badf("%s: %s %g is below %s %g", m[2], names[4+i], qs[i], names[3+i], qs[i-1])
		}
	}
	// go-tpc prints Takes(s) with one decimal: its last [Current] interval
	// can end within 0.05 s of the one before and read 0.0 (seen on a
	// loaded machine). Only a summary needs a duration.
	if v.count > 0 && v.takes <= 0 && m[1] == "Summary" {
		return v, l.badf("%s: %d transactions in %g s", m[2], v.count, v.takes)
	}
	return v, nil
}

// goTPCOpName is the op type of a row's transaction name (X or X_ERR).
func goTPCOpName(l *lines, raw string) (op string, failed bool, err error) {
	base, failed := strings.CutSuffix(raw, "_ERR")
	op, ok := goTPCOps[base]
	if !ok {
		return "", false, l.errorf("unknown go-tpc transaction %q (TPC-C has NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL)", raw)
	}
	return op, failed, nil
}

// goTPCParse is the state of a go-tpc output being read.
type goTPCParse struct {
	l                    *lines
	r                    *result.Run
	finished, loadOutput bool
	ops                  map[string]*result.Op
	hists                map[string]*hdr.Histogram
	sumMs                float64
	takes                float64
	tpm                  []string // tpmC, tpmTotal, efficiency
	tpmLine              int
	failures             []string
	waits                map[string]float64
	block                map[string]bool // the transactions of the [Current] block being read
	pt                   result.SeriesPoint
	at                   float64 // seconds since the start, at the end of the last block
	blockMax             float64
}

// goTPCRules are the lines of a go-tpc output, trimmed, in the order they
// are tried.
var goTPCRules = []lineRule[*goTPCParse]{
	{when: func(_ *goTPCParse, t string) bool { return t == "" }, handle: skipLine[*goTPCParse]},
	{re: goTPCMaxpr, handle: skipLine[*goTPCParse]},
	{exact: "Finished", handle: (*goTPCParse).finishedLine},
	{re: goTPCLoad, handle: func(p *goTPCParse, _ []string) error { p.loadOutput = true; return nil }},
	{re: goTPCFailed, handle: func(p *goTPCParse, m []string) error { p.failures = append(p.failures, m[1]); return nil }},
	{re: goTPCWait, handle: (*goTPCParse).wait},
	{re: goTPCTpmC, handle: (*goTPCParse).tpmC},
	{re: goTPCRow, handle: (*goTPCParse).row},
}

func parseGoTPCLines(l *lines) ([]*result.Run, error) {
	p := &goTPCParse{
		l:     l,
		r:     &result.Run{Workload: tpccKind, Kind: tpccKind, Params: map[string]any{}, ToolVersion: "go-tpc"},
		ops:   map[string]*result.Op{},
		hists: map[string]*hdr.Histogram{},
		waits: map[string]float64{},
		block: map[string]bool{},
	}
	if err := applyAll(l, goTPCRules, p, "unexpected line in go-tpc output"); err != nil {
		return nil, err
	}
	return p.finish()
}

// flush ends the [Current] block being read: a point of the series.
func (p *goTPCParse) flush() {
	if len(p.block) == 0 {
		return
	}
	r := p.r
	if n := len(r.Series); p.blockMax == 0 && n > 0 {
		// An interval of no measurable length: its transactions go to
		// the second they finished in.
		r.Series[n-1].Ops += p.pt.Ops
		r.Series[n-1].Errors += p.pt.Errors
		p.pt = result.SeriesPoint{}
		clear(p.block)
		return
	}
	p.at += p.blockMax
	p.pt.Second = int(math.Round(p.at))
	if p.blockMax > 0 {
		p.pt.Rate = float64(p.pt.Ops) / p.blockMax
	}
	r.Series = append(r.Series, p.pt)
	p.pt, p.blockMax = result.SeriesPoint{}, 0
	clear(p.block)
}

func (p *goTPCParse) finishedLine([]string) error {
	if p.finished {
		return p.l.errorf("a second \"Finished\" line: two go-tpc outputs concatenated into one file? put each in a file of its own")
	}
	p.flush()
	p.finished = true
	return nil
}

func (p *goTPCParse) wait(m []string) error {
	if m[1] == "Summary" {
		s, _ := p.l.num(m[4], "wait time")
		p.waits[strings.ToLower(m[2]+"-"+m[3])] = s
	}
	return nil
}

func (p *goTPCParse) tpmC(m []string) error {
	if !p.finished {
		return p.l.errorf("tpmC line before \"Finished\"")
	}
	if p.tpm != nil {
		return p.l.errorf("a second tpmC line")
	}
	p.tpm, p.tpmLine = m[1:], p.l.line()
	return nil
}

// row reads a transaction's line of a [Current] block or of the [Summary].
func (p *goTPCParse) row(m []string) error {
	op, failed, err := goTPCOpName(p.l, m[2])
	if err != nil {
		return err
	}
	v, err := goTPCReadRow(p.l, m)
	if err != nil {
		return err
	}
	if m[1] == "Current" {
		return p.current(m[2], failed, v)
	}
	return p.summary(m[2], op, failed, v)
}

func (p *goTPCParse) current(name string, failed bool, v goTPCRowValues) error {
	if p.finished {
		return p.l.errorf("a [Current] line after \"Finished\": a second go-tpc output starts here (two outputs concatenated into one file? put each in a file of its own)")
	}
	// go-tpc prints each transaction once per interval: a repeat
	// starts the next interval.
	if p.block[name] {
		p.flush()
	}
	p.block[name] = true
	if failed {
		p.pt.Errors += v.count
	} else {
		p.pt.Ops += v.count
	}
	p.blockMax = max(p.blockMax, v.takes)
	return nil
}

func (p *goTPCParse) summary(name, op string, failed bool, v goTPCRowValues) error {
	l := p.l
	if !p.finished {
		return l.errorf("a [Summary] line before \"Finished\": the output is not go-tpc's")
	}
	if p.tpm != nil {
		return l.errorf("a [Summary] line after the tpmC line")
	}
	o := p.ops[op]
	if o == nil {
		o = &result.Op{Name: op}
		p.ops[op] = o
	}
	if failed {
		if o.Errors != nil {
			return l.errorf("a second %s line", name)
		}
		o.Errors = map[result.ErrorClass]int64{result.ErrOther: v.count}
		p.r.Summary.Failed += v.count
		return nil
	}
	if p.hists[op] != nil {
		return l.errorf("a second %s line", name)
	}
	qs := []quantile{{50, v.p50 * 1000}, {90, v.p90 * 1000}, {95, v.p95 * 1000}, {99, v.p99 * 1000}, {99.9, v.p999 * 1000}}
	h := histFromPercentiles(qs, v.count, 0, v.max*1000)
	p.hists[op] = h
	o.Count = v.count
	o.Histogram = encode(h)
	p.r.Summary.Transactions += v.count
	p.sumMs += v.sum
	p.takes = max(p.takes, v.takes)
	return nil
}

// finish checks that the output was a whole run's and makes its run.
func (p *goTPCParse) finish() ([]*result.Run, error) {
	l, r := p.l, p.r
	if !p.finished {
		if p.loadOutput {
			return nil, &ParseError{File: l.file, Msg: "a go-tpc tpcc prepare, check or cleanup output: it holds no measured run (import the output of go-tpc tpcc run)"}
		}
		return nil, l.missing("\"Finished\" line")
	}
	if p.loadOutput {
		return nil, &ParseError{File: l.file, Msg: "a go-tpc tpcc prepare, check or cleanup output: it holds no measured run (import the output of go-tpc tpcc run)"}
	}
	if len(p.hists) == 0 {
		return nil, l.missing("[Summary] line of a committed transaction")
	}
	if p.tpm == nil {
		return nil, l.missing("tpmC line (go-tpc prints it when New-Orders committed)")
	}
	tpmC, tpmTotal, eff, err := p.tpmValues()
	if err != nil {
		return nil, err
	}
	for _, name := range tpccparams.Ops {
		if o := p.ops[name]; o != nil {
			r.Ops = append(r.Ops, *o)
		}
	}
	r.Duration = time.Duration(p.takes * float64(time.Second))
	s := &r.Summary
	s.Throughput = tpmTotal / 60
	if s.Transactions > 0 {
		s.LatencyMean = p.sumMs * 1000 / float64(s.Transactions)
	}
	all := hist.New()
	for _, h := range p.hists {
		all.Merge(h)
	}
	fillFromHist(s, all)
	s.Extra = map[string]float64{tpccparams.NewOrders: tpmC * r.Duration.Minutes()}
	s.Metric = &result.Metric{Headline: tpccparams.Headline, Value: tpmC}
	if w, ok := goTPCWarehouses(tpmC, p.tpm[2]); ok {
		r.Params[tpccparams.Warehouses] = w
	}
	env := map[string]any{"tpmC": tpmC, "tpmTotal": tpmTotal, "efficiency_percent": eff}
	if len(p.waits) > 0 {
		env["wait_seconds"] = p.waits
		r.Params[tpccparams.KeyingThinking] = true
	}
	r.Env.Extra = map[string]any{"go-tpc": env}
	r.Deviations = append(r.Deviations,
		"go-tpc's tpmC is the client's count of committed New-Orders per minute since its first New-Order, not NOPM read from the districts' next order ids at the edges of the measured phase: the NOPM shown is go-tpc's tpmC",
		"go-tpc's latency histograms have one significant digit and a floor of 1 ms (a faster transaction counts as 1 ms): its percentiles are bucket values about 6 % apart; "+reconstructedNote)
	if len(p.failures) > 0 {
		r.Deviations = append(r.Deviations, fmt.Sprintf("go-tpc printed %d \"execute run failed\" lines (the first: %s); without --ignore-error each one stopped its thread for the rest of the run", len(p.failures), trimTo(p.failures[0], 200)))
	}
	return []*result.Run{r}, nil
}

// tpmValues reads the numbers of the tpmC line, with errors located at it.
func (p *goTPCParse) tpmValues() (tpmC, tpmTotal, eff float64, err error) {
	l := p.l
	l.i = len(l.ls) // numbers below belong to the tpmC line
	for i := range l.no {
		if l.no[i] == p.tpmLine {
			l.i = i + 1
			break
		}
	}
	if tpmC, err = l.num(p.tpm[0], "tpmC"); err != nil {
		return
	}
	if tpmTotal, err = l.num(p.tpm[1], "tpmTotal"); err != nil {
		return
	}
	if eff, err = l.num(p.tpm[2], "efficiency"); err != nil {
		return
	}
	if no := p.ops[tpccparams.NewOrder]; no == nil || no.Count == 0 {
		return 0, 0, 0, l.errorf("tpmC without a NEW_ORDER summary line")
	}
	if tpmTotal < tpmC {
		return 0, 0, 0, l.badf("tpmTotal %g is below tpmC %g", tpmTotal, tpmC)
	}
	return tpmC, tpmTotal, eff, nil
}

// goTPCWarehouses recovers the warehouses from go-tpc's efficiency line,
// efficiency = 100 × tpmC / (12.86 × warehouses), both printed with one
// decimal: the warehouse count whose efficiency lies within the printing's
// rounding of the printed one, when exactly one does (several do once the
// efficiency is too small to tell them apart).
func goTPCWarehouses(tpmC float64, effText string) (int64, bool) {
	eff, err := strconv.ParseFloat(effText, 64)
	if err != nil || eff <= 0 || tpmC <= 0 {
		return 0, false
	}
	w := math.Round(100 * tpmC / (goTPCSpecFactor * eff))
	if w < 1 || w > 1e9 {
		return 0, false
	}
	var found int64
	n := 0
	for c := max(int64(w)-2, 1); c <= int64(w)+2; c++ {
		// tpmC and efficiency are each rounded to 0.05.
		tol := 0.05 + 100*0.05/(goTPCSpecFactor*float64(c)) + 1e-9
		if math.Abs(100*tpmC/(goTPCSpecFactor*float64(c))-eff) <= tol {
			found = c
			n++
		}
	}
	return found, n == 1
}

func trimTo(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
