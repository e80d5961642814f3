package adapter

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// Java YCSB (0.17 and 0.18): the report its text exporter writes to stdout at the end —
// "[OVERALL], RunTime(ms), 5473", the JVM's GC counts, then one block per
// measured operation ("[READ], Operations, 4942", ..., "[READ], Return=OK,
// 4942") — and, when stderr was saved with it, the "Command line:" (threads,
// -p properties) and the -s status lines, which become the series.
//
// The formats are those of core's measurement classes, whatever the database
// binding: hdrhistogram (the default: percentiles, by default the 95th and
// 99th), histogram (1 ms buckets, printed with measurement.histogram.verbose),
// timeseries (mean, min, max and a mean per time unit, no percentiles) and
// hdrhistogram+histogram (each operation twice, as HdrREAD and BucketREAD).
// Failed operations are measured under READ-FAILED (or READ-<STATUS>) and
// counted by status as "[READ], Return=ERROR, n". The fixtures under
// testdata/ycsb/ycsb017-* are real outputs of YCSB 0.17.0's core, those under
// testdata/ycsb/java-0.18-* of YCSB 0.18.0-SNAPSHOT (d9faaac8) with its redis,
// jdbc (PostgreSQL) and mongodb (FerretDB) bindings, run through bin/ycsb.sh,
// whose first line (the java command) comes before the Command line. 0.18's
// default percentiles are the 50th, 95th and 99th (0.17's the 95th and 99th).

var (
	// The report's first line, or the client's banner on stderr (so that an
	// output cut before its report is refused as truncated, not unknown).
	ycsbJavaDetectRe = regexp.MustCompile(`(?m)^(\[OVERALL\], RunTime\(ms\), |YCSB Client \S+\r?$)`)
	yjReportRe       = regexp.MustCompile(`^\[([^\]]+)\], ([^,]+), (\S+)$`)
	yjStatusRe       = regexp.MustCompile(`^(.*?)(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d):(\d{3}) (\d+) sec: (\d+) operations; (?:(\S+) current ops/sec; )?(?:est completion in ([^\[]*))?((?:\[.*)?)$`)
	yjStampRe        = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: `)
	yjChunkRe        = regexp.MustCompile(`^\[([^\]:= ]+)(?:: ([^\]]*)| AverageLatency\(us\)=([^\]]*))\]\s*`)
	yjVersionRe      = regexp.MustCompile(`^YCSB Client (\S+)$`)
	yjPercentileRe   = regexp.MustCompile(`^(\d+(?:\.\d+)?)(?:st|nd|rd|th)?PercentileLatency\(us\)$`)
	yjWorkloadFileRe = regexp.MustCompile(`(?:^|/)workload([a-f])$`)
	yjFailedSuffixRe = regexp.MustCompile(`^(.+)-([A-Z_]+)$`)
)

func detectYcsbJava(text string) bool { return ycsbJavaDetectRe.MatchString(text) }

// yjDBOps are the operations core's DBWrapper measures and counts by return
// status; every block of them has Return= lines (CoreWorkload's
// READ-MODIFY-WRITE is measured without a status).
var yjDBOps = map[string]bool{"READ": true, "SCAN": true, "UPDATE": true, "INSERT": true, "DELETE": true}

// yjJVMBlocks are what measurement.trackjvm=true measures next to the
// operations (StatusThread.measureJVM).
var yjJVMBlocks = map[string]bool{"THREAD_COUNT": true, "USED_MEM_MB": true, "SYS_LOAD_AVG": true, "GCS": true, "GCS_TIME": true}

// yjBlock is one "[NAME], measurement, value" group of the report.
type yjBlock struct {
	name     string
	line     int // last line, for errors
	fields   map[string]string
	pcts     []quantile
	returns  map[string]int64
	retKeys  []string
	numbered []yjNumbered // "[READ], 0, 481": buckets, time units or values
	overflow *yjNumbered  // histogram: "[READ], >1000, n"
}

type yjNumbered struct {
	key float64
	val float64
}

func (b *yjBlock) num(l *lines, key string) (float64, bool, error) {
	s, ok := b.fields[key]
	if !ok {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, true, &ParseError{File: l.file, Line: b.line, Msg: "[" + b.name + "] " + key + ": " + strconv.Quote(s) + " is not a number"}
	}
	if f < 0 || (f > maxPlausible && f != math.MaxInt64) { // an empty HdrHistogram's minimum is Long.MAX_VALUE
		return 0, true, &ParseError{File: l.file, Line: b.line, Msg: "[" + b.name + "] " + key + ": " + s + " is out of range (0 to 1e+15)"}
	}
	return f, true, nil
}

// yjStatus is one -s status line.
type yjStatus struct {
	line   int
	text   string
	at     time.Time
	total  int64
	rate   string
	chunks []yjChunk
}

// yjChunk is one operation's part of a status line: "[READ: Count=..., ...]"
// (hdrhistogram) or "[READ AverageLatency(us)=...]" (the others).
type yjChunk struct {
	name   string
	kv     map[string]string
	avgStr string // the AverageLatency form
}

func parseYcsbJava(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseYcsbJavaLines)
}

// yjParser is what a Java YCSB output says, read line by line, and then the
// run made of it.
type yjParser struct {
	l         *lines
	cmdline   string
	version   string
	statuses  []*yjStatus
	blocks    map[string]*yjBlock
	order     []string // block names, as they first appear
	inReport  bool
	maxTime   bool
	lastState *yjStatus // the status line continuation lines belong to

	// From the report, once read.
	runtime, thr float64 // [OVERALL] RunTime(ms), Throughput(ops/sec)
	props        map[string]string
	flags        yjFlags
	mode         string // measurementtype
	hdrMode      bool
	twoInOne     bool // hdrhistogram+histogram: each operation as HdrX and BucketX
	opNames      []string
	failed       map[string][]*yjBlock // failed-latency blocks, by operation
	gc, intended map[string]any
	other        map[string]any
	varianceN    int
	pctSet       string // the first operation's percentiles
	haveHist     bool
	r            *result.Run
	env          map[string]any
}

// yjRules are the lines of a Java YCSB output, in the order they are tried.
var yjRules = []lineRule[*yjParser]{
	{prefix: "Could not export measurements", handle: func(p *yjParser, m []string) error {
		return p.l.errorf("YCSB could not write its report: %s", m[0])
	}},
	{re: yjReportRe, handle: (*yjParser).reportLine},
	{when: func(p *yjParser, _ string) bool { return p.inReport }, handle: func(p *yjParser, _ []string) error {
		return p.l.errorf("unreadable line in YCSB's report (expected \"[NAME], measurement, value\")")
	}},
	// Before the report: stderr (when saved along) and, with
	// measurementtype=timeseries, status lines on stdout.
	{prefix: "Command line:", handle: func(p *yjParser, m []string) error {
		p.cmdline = strings.TrimSpace(strings.TrimPrefix(m[0], "Command line:"))
		return nil
	}},
	{re: yjVersionRe, handle: func(p *yjParser, m []string) error { p.version = m[1]; return nil }},
	{prefix: "Maximum time elapsed.", handle: func(p *yjParser, _ []string) error { p.maxTime = true; return nil }},
	{when: func(_ *yjParser, t string) bool { return yjStampRe.MatchString(t) }, handle: (*yjParser).statusLine},
	{prefix: "[", when: func(p *yjParser, _ string) bool { return p.lastState != nil }, handle: (*yjParser).statusContinued},
	// Anything else before the report (the binding's own messages,
	// "Loading workload...", "DBWrapper: ...") says nothing about the result.
	{handle: func(*yjParser, []string) error { return nil }},
}

func parseYcsbJavaLines(l *lines) ([]*result.Run, error) {
	p := &yjParser{l: l, blocks: map[string]*yjBlock{}}
	for t := range l.trimmed() {
		if t == "" {
			continue
		}
		if _, err := applyRules(yjRules, p, t); err != nil {
			return nil, err
		}
	}
	for _, phase := range []func() error{p.overall, p.sortBlocks, p.checkBlocks, p.measurementType, p.checkPercentiles,
		p.operations, p.latencyNotes, p.clientsAndParams, p.series} {
		if err := phase(); err != nil {
			return nil, err
		}
	}
	p.finishEnv()
	return []*result.Run{p.r}, nil
}

// reportLine reads "[NAME], measurement, value" into NAME's block.
func (p *yjParser) reportLine(m []string) error {
	l := p.l
	first := m[1] == "OVERALL" && m[2] == "RunTime(ms)"
	if first && p.inReport {
		return l.errorf("a second YCSB report in the same file: import one run per file")
	}
	if !p.inReport && !first {
		return l.errorf("YCSB report line before [OVERALL], RunTime(ms)")
	}
	p.inReport = true
	p.lastState = nil
	b := p.blocks[m[1]]
	if b == nil {
		b = &yjBlock{name: m[1], fields: map[string]string{}, returns: map[string]int64{}}
		p.blocks[m[1]] = b
		p.order = append(p.order, m[1])
	}
	b.line = l.line()
	return b.add(l, m[2], m[3])
}

// statusLine reads a -s status line.
func (p *yjParser) statusLine(m []string) error {
	t := m[0]
	st, err := parseYjStatus(p.l, t)
	if err != nil {
		return err
	}
	p.lastState = nil
	if n := len(p.statuses); n > 0 && p.statuses[n-1].text == t {
		return nil // timeseries: the same line on stdout and stderr
	}
	p.statuses = append(p.statuses, st)
	p.lastState = st
	return nil
}

// statusContinued reads the rest of a status line that hdrhistogram+histogram
// goes on with after a newline.
func (p *yjParser) statusContinued(m []string) error {
	chunks, err := parseYjChunks(p.l, m[0])
	if err != nil {
		return err
	}
	p.lastState.chunks = append(p.lastState.chunks, chunks...)
	return nil
}

// overall reads [OVERALL] and the command line, and starts the run.
func (p *yjParser) overall() error {
	l := p.l
	overall := p.blocks["OVERALL"]
	if overall == nil {
		return l.missing("[OVERALL], RunTime(ms) line")
	}
	runtime, ok, err := overall.num(l, "RunTime(ms)")
	if err != nil {
		return err
	}
	thr, ok2, err := overall.num(l, "Throughput(ops/sec)")
	if err != nil {
		return err
	}
	if !ok || !ok2 {
		return l.missing("[OVERALL], Throughput(ops/sec) line")
	}
	if runtime <= 0 {
		return &ParseError{File: l.file, Line: overall.line, Msg: "[OVERALL] RunTime(ms) is not positive"}
	}
	p.runtime, p.thr = runtime, thr
	p.props, p.flags = yjArgs(strings.Fields(p.cmdline))

	r := &result.Run{Workload: "ycsb", Kind: "ycsb", Params: map[string]any{}}
	r.Duration = time.Duration(runtime * float64(time.Millisecond))
	env := map[string]any{}
	if p.cmdline != "" {
		env["command_line"] = p.cmdline
	}
	if len(p.props) > 0 {
		env["properties"] = p.props
	}
	if p.flags.db != "" {
		env["db"] = p.flags.db
	}
	if p.flags.load {
		r.Workload = "ycsb-load"
		env["phase"] = "load"
	} else if p.cmdline != "" {
		env["phase"] = "run"
	}
	if p.maxTime {
		env["stopped_by"] = "maxexecutiontime"
	}
	p.r, p.env = r, env
	return nil
}

// opName is the operation block n measures, false for a block that
// duplicates another (hdrhistogram+histogram's BucketX).
func (p *yjParser) opName(n string) (string, bool) {
	if p.twoInOne {
		if strings.HasPrefix(n, "Bucket") {
			return "", false
		}
		if s, ok := strings.CutPrefix(n, "Hdr"); ok {
			return s, true
		}
	}
	return n, true
}

// blockOf is operation on's block.
func (p *yjParser) blockOf(on string) *yjBlock {
	if p.twoInOne {
		return p.blocks["Hdr"+on]
	}
	return p.blocks[on]
}

// sortBlocks sorts the blocks: operations, their failed-latency blocks, and
// the rest.
func (p *yjParser) sortBlocks() error {
	p.mode = p.props["measurementtype"]
	p.failed = map[string][]*yjBlock{}
	p.gc, p.intended, p.other = map[string]any{}, map[string]any{}, map[string]any{}
	for _, n := range p.order {
		if strings.HasPrefix(n, "Bucket") && p.blocks["Hdr"+strings.TrimPrefix(n, "Bucket")] != nil {
			p.twoInOne = true
		}
	}
	for _, n := range p.order {
		if on, ok := p.sortBlock(n, p.blocks[n]); ok {
			p.opNames = append(p.opNames, on)
		}
	}
	if len(p.opNames) == 0 {
		return p.l.missing("YCSB operation block ([READ], [UPDATE], [INSERT], ...)")
	}
	return nil
}

// sortBlock files block n where it belongs; when it is an operation's, it
// returns the operation and true.
func (p *yjParser) sortBlock(n string, b *yjBlock) (string, bool) {
	switch {
	case n == "OVERALL":
		return "", false
	case strings.HasPrefix(n, "TOTAL_GC"):
		for k, v := range b.fields {
			p.gc[n+" "+k] = yjValue(v)
		}
		return "", false
	case strings.HasPrefix(n, "MAX_") || strings.HasPrefix(n, "MIN_"):
		for k, v := range b.fields {
			p.other[n+" "+k] = yjValue(v)
		}
		return "", false
	}
	on, keep := p.opName(n)
	if !keep {
		return "", false
	}
	if _, ok := b.fields["LatencyVariance(us)"]; ok {
		p.varianceN++
	}
	if i, ok := strings.CutPrefix(on, "Intended-"); ok {
		p.intended[i] = b.summary()
		return "", false
	}
	if yjJVMBlocks[on] || on == "CLEANUP" {
		p.other[on] = b.summary()
		return "", false
	}
	if m := match(yjFailedSuffixRe, on); m != nil {
		if base := p.blockOf(m[1]); base != nil && (m[2] == "FAILED" || base.returns[m[2]] > 0) {
			p.failed[m[1]] = append(p.failed[m[1]], b)
			return "", false
		}
	}
	return on, true
}

// checkBlocks refuses an operation block without the lines every block has.
func (p *yjParser) checkBlocks() error {
	for _, on := range p.opNames {
		b := p.blockOf(on)
		for _, k := range []string{"Operations", "AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)"} {
			if _, ok := b.fields[k]; !ok {
				return &ParseError{File: p.l.file, Line: b.line, Msg: "[" + b.name + "] has no " + k + " line: the report is truncated or damaged"}
			}
		}
	}
	return nil
}

// measurementType is the measurementtype given, or the one the blocks show.
func (p *yjParser) measurementType() error {
	p.pctSet = yjPctKey(p.blockOf(p.opNames[0]).pcts)
	switch {
	case p.mode != "":
	case p.twoInOne:
		p.mode = "hdrhistogram+histogram"
	case p.varianceN > 0:
		p.mode = "histogram"
	case p.pctSet != "":
		p.mode = "hdrhistogram"
	default:
		p.mode = "timeseries"
	}
	if strings.Contains(p.mode, "raw") {
		return &ParseError{File: p.l.file, Msg: "YCSB's measurementtype=" + p.mode + " output is not supported (no real output of it was captured to test a parser against)"}
	}
	p.env["measurementtype"] = p.mode
	p.hdrMode = p.mode == "hdrhistogram" || strings.HasPrefix(p.mode, "hdrhistogram+")
	return nil
}

// checkPercentiles: every block prints the same percentiles
// (hdrhistogram.percentiles); one with fewer was cut off.
func (p *yjParser) checkPercentiles() error {
	if !p.hdrMode {
		return nil
	}
	want, given := "", false
	if w, ok := p.props["hdrhistogram.percentiles"]; ok {
		var qs []quantile
		for _, s := range strings.Split(w, ",") {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				qs = append(qs, quantile{q: f})
			}
		}
		want, given = yjPctKey(qs), true
	}
	for _, on := range p.opNames {
		b := p.blockOf(on)
		got := yjPctKey(b.pcts)
		bad := func(msg string) error {
			return &ParseError{File: p.l.file, Line: b.line, Msg: "[" + b.name + "] " + msg}
		}
		switch {
		case got == "":
			return bad("has no percentile lines: the report is truncated or damaged")
		case given && got != want:
			return bad("prints the percentiles " + got + ", hdrhistogram.percentiles asks for " + want + ": the report is truncated or damaged")
		case got != p.pctSet:
			return bad("prints the percentiles " + got + ", [" + p.blockOf(p.opNames[0]).name + "] " + p.pctSet + ": the report is truncated or damaged")
		}
	}
	return nil
}

// yjTotals add up the operation blocks.
type yjTotals struct {
	merged           *hdr.Histogram
	meanSum          float64
	okTotal, blockOp int64
	returns          map[string]any
	failedLat        map[string]any
}

// operations makes an op of each operation block, and the summary of them.
func (p *yjParser) operations() error {
	r, s := p.r, &p.r.Summary
	tot := &yjTotals{merged: hist.New(), returns: map[string]any{}, failedLat: map[string]any{}}
	s.LatencyMin = math.Inf(1)
	for _, on := range p.opNames {
		if err := p.operation(on, tot); err != nil {
			return err
		}
	}
	// The operations done, as YCSB counted them: Throughput = 1000·ops/RunTime.
	opcount := int64(math.Round(p.thr * p.runtime / 1000))
	if tot.blockOp < opcount {
		return p.l.missing("block for every operation (the blocks add up to " + strconv.FormatInt(tot.blockOp, 10) +
			" operations, [OVERALL] to " + strconv.FormatInt(opcount, 10) + ")")
	}
	s.Transactions = max(opcount-s.Failed, 0)
	s.Throughput = p.thr
	// The operations counter: YCSB's own count, failed operations included,
	// a READ-MODIFY-WRITE once (its read and its update are in [READ] and
	// [UPDATE] too); the headline, operations per second, is then [OVERALL]
	// Throughput.
	s.Extra = map[string]float64{ycsbparams.Operations: float64(opcount)}
	s.Metric = &result.Metric{Headline: ycsbparams.Headline, Value: ycsbparams.Headline.Measure(nil, s.Extra, r.Duration, nil, nil)}
	if s.Failed > 0 {
		s.Throughput = float64(s.Transactions) * 1000 / p.runtime
		r.Deviations = append(r.Deviations, "throughput counts successful operations only; YCSB's [OVERALL] Throughput, "+
			strconv.FormatFloat(p.thr, 'f', 2, 64)+" ops/s, counts the failed ones too")
	}
	if tot.okTotal > 0 {
		s.LatencyMean = tot.meanSum / float64(tot.okTotal)
	} else {
		s.LatencyMin = 0
	}
	if p.haveHist {
		mx := s.Max
		fillFromHist(s, tot.merged)
		s.Max = mx // YCSB's own maximum, not the histogram's rounding of it
	}
	if len(tot.returns) > 0 {
		p.env["returns"] = tot.returns
	}
	if len(tot.failedLat) > 0 {
		p.env["failed_latency"] = tot.failedLat
	}
	return nil
}

// operation adds operation on's block to the run and to tot.
func (p *yjParser) operation(on string, tot *yjTotals) error {
	l, s := p.l, &p.r.Summary
	b := p.blockOf(on)
	n := b.name
	op, err := yjOp(l, b, on, p.mode)
	if err != nil {
		return err
	}
	count := op.Count
	tot.blockOp += count
	var bad int64
	for _, k := range b.retKeys {
		if k != "OK" && k != "BATCHED_OK" {
			bad += b.returns[k]
		}
	}
	if yjDBOps[on] && count > 0 && len(b.returns) == 0 {
		return &ParseError{File: l.file, Line: b.line, Msg: "no Return= lines for [" + n + "]: the report is truncated or incomplete"}
	}
	if len(b.returns) > 0 {
		if good := b.returns["OK"] + b.returns["BATCHED_OK"]; good != count {
			return &ParseError{File: l.file, Line: b.line, Msg: "[" + n + "] counts " + strconv.FormatInt(count, 10) +
				" operations but its Return=OK says " + strconv.FormatInt(good, 10) + ": the report is truncated or damaged"}
		}
		rs := map[string]any{}
		for _, k := range b.retKeys {
			rs[k] = b.returns[k]
		}
		tot.returns[on] = rs
	}
	var failedN int64
	for _, fb := range p.failed[on] {
		f, _, err := fb.num(l, "Operations")
		if err != nil {
			return err
		}
		failedN += int64(f)
		tot.blockOp += int64(f)
		tot.failedLat[strings.TrimPrefix(fb.name, "Hdr")] = fb.summary()
	}
	if fbs := p.failed[on]; failedN != bad && len(fbs) > 0 {
		return &ParseError{File: l.file, Line: fbs[len(fbs)-1].line, Msg: "[" + n + "] counts " + strconv.FormatInt(bad, 10) +
			" failed operations by status but its failed-latency blocks " + strconv.FormatInt(failedN, 10) + ": the report is truncated or damaged"}
	}
	if bad > 0 {
		op.Errors = map[result.ErrorClass]int64{result.ErrOther: bad}
		s.Failed += bad
	}
	p.r.Ops = append(p.r.Ops, op)
	tot.okTotal += count
	if count > 0 {
		avg, _, _ := b.num(l, "AverageLatency(us)")
		mn, _, _ := b.num(l, "MinLatency(us)")
		mx, _, _ := b.num(l, "MaxLatency(us)")
		tot.meanSum += avg * float64(count)
		s.LatencyMin = math.Min(s.LatencyMin, mn)
		s.Max = math.Max(s.Max, mx)
	}
	if op.Histogram != nil {
		if h, err := hist.Decode(op.Histogram); err == nil {
			tot.merged.Merge(h)
			p.haveHist = true
		}
	}
	return nil
}

// latencyNotes says where the run's latencies come from.
func (p *yjParser) latencyNotes() error {
	r := p.r
	buckets := p.mode == "histogram" && yjHasBuckets(p.blocks, p.opNames)
	switch {
	case p.mode == "timeseries":
		r.Deviations = append(r.Deviations, "no latency distribution: YCSB's measurementtype=timeseries prints only the mean, minimum and maximum of each operation")
	case buckets && p.haveHist:
		r.Deviations = append(r.Deviations, "latency histogram from YCSB's 1 ms buckets (measurementtype=histogram): each bucket's operations are counted at its upper edge, capped at the operation's maximum, and those beyond the last bucket at the maximum")
	case p.mode == "histogram":
		r.Deviations = append(r.Deviations, reconstructedNote+" (YCSB's 95th and 99th percentiles, which measurementtype=histogram rounds down to whole milliseconds)")
	case p.hdrMode:
		r.Deviations = append(r.Deviations, reconstructedNote+" (YCSB's per-operation percentiles: "+p.pctSet+")")
	}
	if p.haveHist && !buckets {
		p.unprintedPercentiles()
	}
	if p.props["measurement.interval"] == "intended" {
		r.Deviations = append(r.Deviations, "latencies are YCSB's intended latencies (measurement.interval=intended): counted from when each operation should have started under the target rate")
	}
	return nil
}

// unprintedPercentiles: a percentile YCSB did not print reads from the
// reconstruction as the next printed one, an upper bound, not a value. The
// summary leaves it out (0) and says so.
func (p *yjParser) unprintedPercentiles() {
	s := &p.r.Summary
	printed := map[float64]bool{}
	for _, q := range p.blockOf(p.opNames[0]).pcts {
		printed[q.q] = true
	}
	var unknown []string
	for _, q := range []struct {
		q float64
		v *float64
	}{{50, &s.P50}, {95, &s.P95}, {99, &s.P99}} {
		if !printed[q.q] {
			*q.v = 0
			unknown = append(unknown, "p"+strconv.FormatFloat(q.q, 'f', -1, 64))
		}
	}
	if len(unknown) > 0 {
		p.r.Deviations = append(p.r.Deviations, "YCSB did not print "+strings.Join(unknown, ", ")+
			": left out of the summary; read from the reconstructed histogram they are only upper bounds (the next percentile YCSB printed; ask YCSB for them with -p hdrhistogram.percentiles=50,90,95,99,99.9)")
	}
}

// clientsAndParams reads the threads, target rate and parameters from the
// command line.
func (p *yjParser) clientsAndParams() error {
	r, props, flags := p.r, p.props, p.flags
	// Threads: -threads or -p threadcount; YCSB's default is 1 unless a -P
	// file (not in the output) could have set it.
	switch {
	case flags.threads > 0:
		r.Clients = flags.threads
	case props["threadcount"] != "":
		if n, err := strconv.Atoi(props["threadcount"]); err == nil && n > 0 {
			r.Clients = n
		}
	case p.cmdline != "" && len(flags.propFiles) == 0:
		r.Clients = 1
	}
	if flags.target > 0 {
		r.Summary.TargetRate = flags.target
	} else if v, err := strconv.ParseFloat(props["target"], 64); err == nil && v > 0 {
		r.Summary.TargetRate = v
	}
	for _, k := range ycsbParams {
		if v, ok := props[k]; ok {
			r.Params[k] = ycsbParamValue(v)
		}
	}
	for _, f := range flags.propFiles {
		if m := match(yjWorkloadFileRe, f); m != nil {
			r.Params[ycsbparams.Workload] = m[1]
		}
	}
	return nil
}

func (p *yjParser) series() error {
	series, err := yjSeries(p.l, p.statuses, p.blocks, p.twoInOne)
	p.r.Series = series
	return err
}

// finishEnv stores what the report says besides the run's numbers.
func (p *yjParser) finishEnv() {
	env := p.env
	for k, m := range map[string]map[string]any{"intended": p.intended, "gc": p.gc, "other": p.other} {
		if len(m) > 0 {
			env[k] = m
		}
	}
	env["overall_throughput"] = p.thr
	p.r.Env.Extra = map[string]any{"ycsb": env}
	p.r.ToolVersion = "YCSB (Java)"
	if p.version != "" {
		p.r.ToolVersion = "YCSB " + p.version
	}
}

// add records one report line of the block.
func (b *yjBlock) add(l *lines, key, val string) error {
	if st, ok := strings.CutPrefix(key, "Return="); ok {
		n, err := l.integer(val, "["+b.name+"] "+key)
		if err != nil {
			return err
		}
		if _, dup := b.returns[st]; !dup {
			b.retKeys = append(b.retKeys, st)
		}
		b.returns[st] = n
		return nil
	}
	if m := match(yjPercentileRe, key); m != nil {
		q, _ := strconv.ParseFloat(m[1], 64)
		v, err := l.num(val, "["+b.name+"] "+key)
		if err != nil {
			return err
		}
		b.pcts = append(b.pcts, quantile{q, v})
		return nil
	}
	if strings.HasPrefix(key, ">") {
		k, err := l.num(key[1:], "["+b.name+"] overflow bucket")
		if err != nil {
			return err
		}
		v, err := l.num(val, "["+b.name+"] "+key)
		if err != nil {
			return err
		}
		b.overflow = &yjNumbered{k, v}
		return nil
	}
	if k, err := strconv.ParseFloat(key, 64); err == nil {
		v, err := l.num(val, "["+b.name+"] "+key)
		if err != nil {
			return err
		}
		b.numbered = append(b.numbered, yjNumbered{k, v})
		return nil
	}
	b.fields[key] = val
	return nil
}

// summary is a block's numbers for the run's environment.
func (b *yjBlock) summary() map[string]any {
	m := map[string]any{}
	for k, v := range b.fields {
		m[k] = yjValue(v)
	}
	for _, q := range b.pcts {
		m["p"+strconv.FormatFloat(q.q, 'f', -1, 64)] = q.us
	}
	return m
}

func yjValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f
	}
	return s
}

// yjOp reads one operation block into an Op with its latency histogram.
func yjOp(l *lines, b *yjBlock, name, mode string) (result.Op, error) {
	at := func(msg string) error { return &ParseError{File: l.file, Line: b.line, Msg: "[" + b.name + "] " + msg} }
	opsF, ok, err := b.num(l, "Operations")
	if err != nil {
		return result.Op{}, err
	}
	if !ok {
		return result.Op{}, at("has no Operations line: the report is truncated or damaged")
	}
	op := result.Op{Name: name, Count: int64(opsF)}
	for _, k := range []string{"AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)"} {
		if _, ok := b.fields[k]; !ok {
			return result.Op{}, at("has no " + k + " line: the report is truncated or damaged")
		}
	}
	if op.Count == 0 {
		// No successful operation: YCSB prints NaN and Long.MAX_VALUE here.
		return op, nil
	}
	var v [3]float64
	for i, k := range []string{"AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)"} {
		f, _, err := b.num(l, k)
		if err != nil {
			return result.Op{}, err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return result.Op{}, at(k + " is not a number")
		}
		v[i] = f
	}
	minUs, maxUs := v[1], v[2]
	var h *hdr.Histogram
	switch {
	case mode == "timeseries":
		// Numbered lines are the mean per time unit; no distribution.
	case mode == "histogram" && len(b.numbered) > 0:
		if b.overflow == nil || int(b.overflow.key) != len(b.numbered) {
			return result.Op{}, at("histogram buckets end early: the report is truncated")
		}
		var bs []bucket
		var sum int64
		for i, nb := range b.numbered {
			if int(nb.key) != i {
				return result.Op{}, at("histogram buckets out of order")
			}
			if nb.val > 0 {
				bs = append(bs, bucket{math.Min(float64(i+1)*1000, maxUs), int64(nb.val)})
				sum += int64(nb.val)
			}
		}
		if b.overflow.val > 0 {
			bs = append(bs, bucket{maxUs, int64(b.overflow.val)})
			sum += int64(b.overflow.val)
		}
		if sum != op.Count {
			return result.Op{}, at("histogram buckets add up to " + strconv.FormatInt(sum, 10) + ", not the " + strconv.FormatInt(op.Count, 10) + " operations")
		}
		h = histFromBuckets(bs)
	case len(b.numbered) > 0:
		return result.Op{}, at("value/count lines (measurement.histogram.verbose with hdrhistogram) are not supported")
	default:
		if len(b.pcts) > 0 {
			h = histFromPercentiles(b.pcts, op.Count, minUs, maxUs)
		}
	}
	if h != nil {
		op.Histogram = encode(h)
	}
	return op, nil
}

func yjHasBuckets(blocks map[string]*yjBlock, ops []string) bool {
	for _, n := range ops {
		if b := blocks[n]; b != nil && len(b.numbered) > 0 {
			return true
		}
	}
	return false
}

// yjFlags are the Client options that matter to the result.
type yjFlags struct {
	threads   int
	target    float64
	load      bool
	db        string
	propFiles []string
}

// yjArgs reads YCSB's "Command line:" (its arguments joined by spaces).
func yjArgs(args []string) (map[string]string, yjFlags) {
	props := map[string]string{}
	var f yjFlags
	for i := 0; i < len(args); i++ {
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch args[i] {
		case "-threads":
			f.threads, _ = strconv.Atoi(next())
		case "-target":
			f.target, _ = strconv.ParseFloat(next(), 64)
		case "-load":
			f.load = true
		case "-t":
			f.load = false
		case "-db":
			f.db = next()
		case "-P":
			f.propFiles = append(f.propFiles, next())
		case "-p":
			if k, v, ok := strings.Cut(next(), "="); ok {
				props[k] = v
			}
		case "-l":
			next()
		}
	}
	if v := props["dotransactions"]; v == "false" {
		f.load = true
	}
	if f.db == "" && props["db"] != "" {
		f.db = props["db"]
	}
	return props, f
}

func parseYjStatus(l *lines, t string) (*yjStatus, error) {
	m := match(yjStatusRe, t)
	if m == nil {
		return nil, l.errorf("unreadable YCSB status line")
	}
	at, err := time.Parse("2006-01-02 15:04:05", m[2])
	if err != nil {
		return nil, l.errorf("status line time %q: %v", m[2], err)
	}
	ms, _ := strconv.Atoi(m[3])
	at = at.Add(time.Duration(ms) * time.Millisecond)
	total, err := l.integer(m[5], "status line operations")
	if err != nil {
		return nil, err
	}
	st := &yjStatus{line: l.line(), text: t, at: at, total: total, rate: m[6]}
	if m[8] != "" {
		st.chunks, err = parseYjChunks(l, m[8])
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

func parseYjChunks(l *lines, s string) ([]yjChunk, error) {
	var out []yjChunk
	s = strings.TrimSpace(s)
	for s != "" {
		m := yjChunkRe.FindStringSubmatch(s)
		if m == nil {
			return nil, l.errorf("unreadable operation summary in a YCSB status line: %q", s)
		}
		c := yjChunk{name: m[1]}
		if strings.HasPrefix(m[0][len(m[1])+1:], ":") {
			c.kv = map[string]string{}
			for _, kv := range strings.Split(m[2], ", ") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, l.errorf("unreadable operation summary in a YCSB status line: %q", m[0])
				}
				c.kv[k] = v
			}
		} else {
			c.avgStr = m[3]
		}
		out = append(out, c)
		s = s[len(m[0]):]
	}
	return out, nil
}

// yjSeries turns the status lines into per-interval points. The first line
// is printed when the status thread starts (its interval is empty); each
// later one covers the time since the one before.
func yjSeries(l *lines, sts []*yjStatus, blocks map[string]*yjBlock, twoInOne bool) ([]result.SeriesPoint, error) {
	if len(sts) < 2 {
		return nil, nil
	}
	// Which chunk names are operations, failures, or neither.
	kind := func(n string) (string, bool) { // ("ok"|"failed"|"", op)
		if twoInOne {
			s, ok := strings.CutPrefix(n, "Hdr")
			if !ok {
				return "", false
			}
			n = s
		}
		if n == "CLEANUP" || strings.HasPrefix(n, "Intended-") || yjJVMBlocks[n] {
			return "", false
		}
		if m := match(yjFailedSuffixRe, n); m != nil {
			base := m[1]
			if twoInOne {
				base = "Hdr" + base
			}
			if b := blocks[base]; b != nil && (m[2] == "FAILED" || b.returns[m[2]] > 0) {
				return "failed", true
			}
		}
		return "ok", true
	}
	var out []result.SeriesPoint
	t0 := sts[0].at
	for i := 1; i < len(sts); i++ {
		st, prev := sts[i], sts[i-1]
		ms := st.at.Sub(t0).Milliseconds()
		if ms <= 0 {
			continue
		}
		delta := st.total - prev.total
		p := result.SeriesPoint{Second: int((ms + 999) / 1000)}
		var errs, cnt int64
		var sum float64
		h := hist.New()
		okChunks := 0
		for _, c := range st.chunks {
			k, _ := kind(c.name)
			if k == "" {
				continue
			}
			if c.kv == nil {
				if k == "ok" {
					okChunks++
					if f, err := strconv.ParseFloat(c.avgStr, 64); err == nil && okChunks == 1 {
						p.Mean = f
					}
				}
				continue
			}
			n, err := strconv.ParseInt(c.kv["Count"], 10, 64)
			if err != nil {
				return nil, &ParseError{File: l.file, Line: st.line, Msg: "status line: [" + c.name + "] Count " + strconv.Quote(c.kv["Count"]) + " is not an integer"}
			}
			if k == "failed" {
				errs += n
				continue
			}
			if n == 0 {
				continue
			}
			var f [8]float64
			for j, key := range []string{"Avg", "Min", "Max", "90", "99", "99.9", "99.99"} {
				x, err := strconv.ParseFloat(c.kv[key], 64)
				if err != nil {
					return nil, &ParseError{File: l.file, Line: st.line, Msg: "status line: [" + c.name + "] " + key + " " + strconv.Quote(c.kv[key]) + " is not a number"}
				}
				f[j] = x
			}
			cnt += n
			sum += f[0] * float64(n)
			p.Max = math.Max(p.Max, f[2])
			h.Merge(histFromPercentiles([]quantile{{90, f[3]}, {99, f[4]}, {99.9, f[5]}, {99.99, f[6]}}, n, f[1], f[2]))
		}
		if okChunks > 1 {
			p.Mean = 0 // means of several operations without their counts
		}
		if cnt > 0 {
			p.Mean = sum / float64(cnt)
			p.P99 = float64(h.ValueAtQuantile(99))
		}
		p.Errors = errs
		p.Ops = max(delta-errs, 0)
		if rate, err := strconv.ParseFloat(st.rate, 64); err == nil && delta > 0 {
			p.Rate = rate * float64(p.Ops) / float64(delta)
		} else if delta > 0 {
			p.Rate = float64(p.Ops) / (float64(st.at.Sub(prev.at).Milliseconds()) / 1000)
		}
		out = append(out, p)
	}
	return out, nil
}

// yjPctKey names a set of percentiles: "95,99".
func yjPctKey(qs []quantile) string {
	var ps []string
	for _, q := range qs {
		ps = append(ps, strconv.FormatFloat(q.q, 'f', -1, 64))
	}
	return strings.Join(ps, ",")
}
