package adapter

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/result"
)

// sysbench 1.0: the text of `sysbench oltp_* run`, with --report-interval lines
// (the series) and --histogram (an exact distribution at sysbench's bucket
// width). sysbench does not print the test's name, so the mode (read_write,
// point_select, ...) comes from the import flags.

// sysbenchTool is sysbench as registered, which the package's tests name.
var sysbenchTool *Tool

func init() {
	sysbenchTool = Register(Tool{
		Name:        "sysbench",
		Kind:        "oltp",
		DetectOrder: 20,
		Formats:     "sysbench 1.0 oltp_* (with --report-interval and --histogram)",
		Build:       buildSysbench,
		Live:        liveSysbench,
		Install:     "apt-get install sysbench",
		Detect:      detectSysbench,
		Once:        regexp.MustCompile(`(?m)^SQL statistics:`),
		Parse:       parseSysbench,
		ParseReader: streamed(parseSysbenchLines),
		ImportFlags: []ImportFlag{
			paramFlag("mode", "", oltpparams.Specs(), oltpparams.Mode, "the test sysbench ran (oltp_<mode>), which its output does not print: read_write, read_only, point_select, ..."),
			paramFlag("protocol", "M", oltpparams.Specs(), oltpparams.QueryMode, "query mode: simple, extended or prepared (sysbench --db-ps-mode=disable is simple)"),
		},
		Complete: func(r *result.Run) error {
			if _, ok := r.Params[oltpparams.Mode]; !ok {
				return errors.New("sysbench does not print which test ran: give --mode (read_write, read_only, point_select, ...)")
			}
			return nil
		},
	})
}

var (
	sysbenchHeader   = regexp.MustCompile(`(?m)^sysbench (\d+\.\d+\.\d+)(.*)$`)
	sysbenchInterval = regexp.MustCompile(`^\[ (\d+)s \] thds: (\d+) tps: ([\d.]+) qps: ([\d.]+) \(r/w/o: ([\d.]+)/([\d.]+)/([\d.]+)\) lat \(ms,([\d.]+)%\): ([\d.]+) err/s: ([\d.]+) reconn/s: ([\d.]+)$`)
	sysbenchHistRow  = regexp.MustCompile(`^\s+([\d.]+) \|\**\s+(\d+)$`)
	sysbenchStat     = regexp.MustCompile(`^\s+([a-z][a-z0-9 ()/]*[a-z)]|\d+th percentile):\s+(\S+)(?:\s+\(([\d.]+) per sec\.\))?$`)
	sysbenchAvgDev   = regexp.MustCompile(`^([\d.]+)/([\d.]+)$`)
)

func detectSysbench(text string) bool {
	h := head(text, 64<<10)
	return sysbenchHeader.MatchString(h) && (strings.Contains(h, "Running the test with following options:") || strings.Contains(h, "SQL statistics:"))
}

func parseSysbench(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseSysbenchLines)
}

// sysbenchParse is the state of a sysbench output being read.
type sysbenchParse struct {
	l        *lines
	r        *result.Run
	env      map[string]any
	section  string // the statistics section being read
	buckets  []bucket
	inHist   bool // within the --histogram block
	pctLabel string
	pctValue float64
	prevSec  int
	seen     map[string]bool
}

// sysbenchLineRules read the lines outside the statistics sections (the
// options sysbench echoes, its progress lines and the --report-interval
// series), tried on the trimmed line.
var sysbenchLineRules = []lineRule[*sysbenchParse]{
	{re: sysbenchHeader, when: func(p *sysbenchParse, _ string) bool { return p.r.ToolVersion == "" }, handle: (*sysbenchParse).version},
	{exact: "Running the test with following options:", handle: skipLine[*sysbenchParse]},
	{prefix: "Initializing random number generator", handle: skipLine[*sysbenchParse]},
	{prefix: "Report intermediate results every", handle: skipLine[*sysbenchParse]},
	{exact: "Initializing worker threads...", handle: skipLine[*sysbenchParse]},
	{exact: "Threads started!", handle: skipLine[*sysbenchParse]},
	{prefix: "Number of threads: ", handle: (*sysbenchParse).threads},
	{prefix: "Target transaction rate: ", handle: (*sysbenchParse).targetRate},
	{prefix: "FATAL:", handle: func(p *sysbenchParse, m []string) error { return p.l.errorf("sysbench failed: %s", m[0]) }},
	{prefix: "Latency histogram", handle: func(p *sysbenchParse, _ []string) error { p.inHist = true; return nil }},
	{prefix: "[ ", handle: (*sysbenchParse).interval},
}

// sysbenchSections read a statistic line (key: value, with its rate per
// second when sysbench prints one) of each section of the final report.
var sysbenchSections = map[string]func(p *sysbenchParse, key, val, rate string) error{
	"SQL statistics":     (*sysbenchParse).sqlStatistic,
	"queries performed":  (*sysbenchParse).queriesPerformed,
	"General statistics": (*sysbenchParse).generalStatistic,
	"Latency (ms)":       (*sysbenchParse).latency,
	"Threads fairness":   (*sysbenchParse).fairness,
}

func parseSysbenchLines(l *lines) ([]*result.Run, error) {
	p := &sysbenchParse{
		l:    l,
		r:    &result.Run{Workload: "sysbench", Kind: "oltp", Params: map[string]any{}},
		env:  map[string]any{},
		seen: map[string]bool{},
	}
	for line, ok := l.next(); ok; line, ok = l.next() {
		if err := p.line(line); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

// line reads one line of the output.
func (p *sysbenchParse) line(line string) error {
	t := strings.TrimSpace(line)
	if t == "" {
		p.inHist = false
		return nil
	}
	if ok, err := applyRules(sysbenchLineRules, p, t); ok {
		return err
	}
	if p.inHist {
		return p.histogramRow(line, t)
	}
	if strings.HasSuffix(t, ":") && !strings.HasPrefix(line, "        ") {
		p.section = strings.TrimSuffix(t, ":")
		if _, ok := sysbenchSections[p.section]; !ok {
			return p.l.errorf("unknown sysbench section %q", p.section)
		}
		p.seen[p.section] = true
		return nil
	}
	m := match(sysbenchStat, line)
	if m == nil {
		return p.l.errorf("unexpected line in sysbench output")
	}
	if p.section == "queries performed" && !strings.HasPrefix(line, "        ") {
		p.section = "SQL statistics" // back from the nested block
	}
	read, ok := sysbenchSections[p.section]
	if !ok {
		return p.l.errorf("unexpected line outside any sysbench section")
	}
	return read(p, m[1], m[2], m[3])
}

func (p *sysbenchParse) version(m []string) error {
	p.r.ToolVersion = "sysbench " + m[1]
	return nil
}

func (p *sysbenchParse) threads(m []string) error {
	n, err := p.l.integer(strings.TrimPrefix(m[0], "Number of threads: "), "threads")
	p.r.Clients = int(n)
	return err
}

func (p *sysbenchParse) targetRate(m []string) error {
	v := strings.TrimSuffix(strings.TrimPrefix(m[0], "Target transaction rate: "), " per second")
	rate, err := p.l.num(v, "target rate")
	p.r.Summary.TargetRate = rate
	return err
}

// interval reads a --report-interval line into the series.
func (p *sysbenchParse) interval(line []string) error {
	l := p.l
	m := match(sysbenchInterval, line[0])
	if m == nil {
		return l.errorf("unreadable sysbench --report-interval line")
	}
	sec, _ := l.integer(m[1], "interval time")
	tps, _ := l.num(m[3], "interval tps")
	lat, _ := l.num(m[9], "interval latency")
	errps, _ := l.num(m[10], "interval errors")
	win := float64(int(sec) - p.prevSec)
	p.prevSec = int(sec)
	pt := result.SeriesPoint{Second: int(sec), Rate: tps, Ops: int64(math.Round(tps * win)), Errors: int64(math.Round(errps * win))}
	switch m[8] {
	case "95":
		pt.P95 = lat * 1000
	case "99":
		pt.P99 = lat * 1000
	case "50":
		pt.P50 = lat * 1000
	}
	p.r.Series = append(p.r.Series, pt)
	return nil
}

// histogramRow reads a row of the --histogram block.
func (p *sysbenchParse) histogramRow(line, t string) error {
	if strings.HasPrefix(t, "value ") {
		return nil
	}
	m := match(sysbenchHistRow, line)
	if m == nil {
		return p.l.errorf("unreadable sysbench histogram row")
	}
	v, _ := p.l.num(m[1], "histogram value")
	n, _ := p.l.integer(m[2], "histogram count")
	p.buckets = append(p.buckets, bucket{v * 1000, n})
	return nil
}

func (p *sysbenchParse) queriesPerformed(key, val, _ string) error {
	n, err := p.l.integer(val, "queries "+key)
	p.env["queries_"+key] = n
	return err
}

func (p *sysbenchParse) sqlStatistic(key, val, rate string) error {
	l, s := p.l, &p.r.Summary
	n, err := l.integer(val, key)
	if err != nil {
		return err
	}
	switch key {
	case "transactions":
		s.Transactions = n
		if rate == "" {
			return l.errorf("transactions line without its rate")
		}
		s.Throughput, _ = l.num(rate, "transactions per second")
		p.seen["transactions"] = true
	case "queries":
		p.env["queries"] = n
		if rate != "" {
			p.env["queries_per_sec"], _ = l.num(rate, "queries per second")
		}
	case "ignored errors":
		// sysbench restarts the transaction after an ignored error
		// (--mysql-ignore-errors): a retry in pgbench's terms.
		s.Retries = n
	case "reconnects":
		p.env["reconnects"] = n
	default:
		return l.errorf("unknown SQL statistics line %q", key)
	}
	return nil
}

func (p *sysbenchParse) generalStatistic(key, val, _ string) error {
	l := p.l
	switch key {
	case "total time":
		secs, err := l.num(strings.TrimSuffix(val, "s"), key)
		if err != nil {
			return err
		}
		p.r.Duration = time.Duration(secs * float64(time.Second))
		p.seen["total time"] = true
	case "total number of events":
		n, err := l.integer(val, key)
		if err != nil {
			return err
		}
		p.env["events"] = n
	default:
		return l.errorf("unknown general statistics line %q", key)
	}
	return nil
}

func (p *sysbenchParse) latency(key, val, _ string) error {
	v, err := p.l.num(val, "latency "+key)
	if err != nil {
		return err
	}
	s := &p.r.Summary
	switch {
	case key == "min":
		s.LatencyMin = v * 1000
	case key == "avg":
		s.LatencyMean = v * 1000
		p.seen["avg"] = true
	case key == "max":
		s.Max = v * 1000
	case key == "sum":
	case strings.HasSuffix(key, "th percentile"):
		p.pctLabel, p.pctValue = strings.TrimSuffix(key, "th percentile"), v*1000
	default:
		return p.l.errorf("unknown latency line %q", key)
	}
	return nil
}

func (p *sysbenchParse) fairness(key, val, _ string) error {
	mm := match(sysbenchAvgDev, val)
	if mm == nil {
		return p.l.errorf("unreadable threads fairness line")
	}
	p.env["fairness "+key], _ = p.l.num(mm[2], key)
	p.seen["fairness "+strings.Fields(key + " ")[0]] = true
	return nil
}

// finish checks that the output was whole and makes its run.
func (p *sysbenchParse) finish() ([]*result.Run, error) {
	l, r, s, env := p.l, p.r, &p.r.Summary, p.env
	if !p.seen["SQL statistics"] {
		if p.seen["General statistics"] {
			return nil, &ParseError{File: l.file, Msg: "a sysbench output without SQL statistics: only the oltp_* tests are supported"}
		}
		return nil, l.missing("SQL statistics")
	}
	// The two lines of Threads fairness end every sysbench output.
	for _, need := range []string{"transactions", "total time", "avg", "Threads fairness", "fairness events", "fairness execution"} {
		if !p.seen[need] {
			return nil, l.missing("sysbench " + need)
		}
	}
	var h *hdr.Histogram
	if len(p.buckets) > 0 {
		h = histFromBuckets(p.buckets)
		if h.TotalCount() != s.Transactions {
			// The histogram counts events; with oltp_* an event is a transaction.
			env["histogram_events"] = h.TotalCount()
		}
		mx := s.Max
		fillFromHist(s, h)
		s.Max = mx // sysbench's own maximum is exact; the bucket is rounded
	} else {
		r.Deviations = append(r.Deviations, "no latency distribution: sysbench prints one percentile without --histogram")
	}
	switch p.pctLabel {
	case "95":
		s.P95 = p.pctValue
	case "99":
		s.P99 = p.pctValue
	case "50":
		s.P50 = p.pctValue
	}
	if p.pctLabel != "" {
		env["percentile"] = p.pctLabel
	}
	r.Ops = []result.Op{{Name: "transaction", Count: s.Transactions, Histogram: encode(h)}}
	r.Env.Extra = map[string]any{"sysbench": env}
	return []*result.Run{r}, nil
}

// liveSysbench reads a --report-interval line as it comes (Tool.Live): its
// tps, errors per second and its latency percentile (95th unless
// --percentile says otherwise: only the 95th has a place on the chart).
func liveSysbench(line string) (time.Duration, result.SeriesPoint, bool) {
	m := sysbenchInterval.FindStringSubmatch(strings.TrimRight(line, "\r"))
	if m == nil {
		return 0, result.SeriesPoint{}, false
	}
	f, ok := finiteFloats(m[1], m[3], m[8], m[9], m[10])
	if !ok {
		return 0, result.SeriesPoint{}, false
	}
	at, tps, pct, lat, errs := f[0], f[1], f[2], f[3], f[4]
	pt := result.SeriesPoint{Second: int(at), Rate: tps, Errors: int64(math.Round(errs))}
	if pct == 95 {
		pt.P95 = lat * 1000
	}
	return time.Duration(at) * time.Second, pt, true
}
