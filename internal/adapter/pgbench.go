package adapter

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// pgbench: the text a `pgbench` run prints (PostgreSQL 11 to 18), with -P
// progress lines, -r statement latencies, --max-tries retries and failures,
// -R/-L schedule lag and skips, and the per-transaction logs of -l.
//
// What differs between the versions (each seen in a captured fixture,
// testdata/pgbench/pgNN-*):
//   - 14+ open with "pgbench (14.23, server 15.18 ...)" (or "pgbench (15.18)"
//     when client and server agree); 11–13 print no version.
//   - 11–13 print two tps lines, "(including connections establishing)" and
//     "(excluding ...)"; 14+ print "initial connection time" and one tps line
//     "(without initial connection time)".
//   - 11–13 derive "latency average" (when not measured: without -P, -R, -L) from
//     the run time including connection establishment; 14+ from the run time
//     without it; 15+ add "(including failures)" when some failed.
//   - 11–14 write percentages as "(1.195 %)", 15+ as "(1.523%)".
//   - 15+ add "maximum number of tries", "number of failed transactions", the
//     "N failed" of progress lines and -r's failures (and retries) columns.
//   - 18 separates -r's command from the numbers by one space, 11–17 by two.
//   - 11 exits 0 and prints only "client N aborted in command ..." when
//     clients abort (13+ add "Run was aborted"): such runs are refused.
//
// pgbench prints no distribution in its summary, only mean and stddev, so a
// run without -l logs has no histogram (and no percentiles) rather than an
// invented one; with the logs the histogram is exact. A study cell's pgbench
// runs with -l into a temporary directory (AttachLogDir), so its run has the
// exact distribution too.

// pgbenchTool is pgbench as registered, which the package's tests name.
var pgbenchTool *Tool

func init() {
	pgbenchTool = Register(Tool{
		Name:         "pgbench",
		Kind:         "tpcb",
		DetectOrder:  10,
		Formats:      "pgbench 11–18 text output (with -P, -r, --max-tries, -R/-L; -l log files alongside)",
		Build:        buildPgbench,
		Install:      "apt-get install postgresql-contrib",
		Detect:       detectPgbench,
		Once:         regexp.MustCompile(`(?m)^transaction type: `),
		Parse:        parsePgbench,
		ParseReader:  parsePgbenchReader,
		IsLog:        isPgbenchLog,
		AttachLogs:   attachPgbenchLogs,
		AttachLogDir: attachPgbenchLogDir,
		Live:         livePgbench,
		ImportFlags: []ImportFlag{
			paramFlag("scale", "s", tpcbparams.Specs(), tpcbparams.Scale, "scaling factor (pgbench -s)"),
			paramFlag("mode", "", tpcbparams.Specs(), tpcbparams.Mode, "the builtin script: tpcb-like, simple-update or select-only"),
			paramFlag("protocol", "M", tpcbparams.Specs(), tpcbparams.QueryMode, "query mode (pgbench -M): simple, extended or prepared"),
		},
	})
}

var (
	pgbenchDetectRe = regexp.MustCompile(`(?m)^(pgbench \(\d+|transaction type: |progress: [\d.]+ s, [\d.]+ tps, lat [\d.]+ ms)`)
	// "pgbench (15.18 (Debian 15.18-0+deb12u1))"; with another server version
	// "pgbench (14.23, server 15.18 (Debian 15.18-0+deb12u1))" (14+).
	pgbenchVersion = regexp.MustCompile(`^pgbench \((.+)\)$`)
	// progress: 1.0 s, 4262.0 tps, lat 0.719 ms stddev 1.033, 0 failed, lag 0.940 ms, 42 skipped, 164 retried, 475 retries
	// (pgbench 11–14 print no "failed" and no retries)
	pgbenchProgress = regexp.MustCompile(`^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+) ms stddev ([\d.]+|NaN)(?:, (\d+) failed)?(?:, lag ([\d.]+) ms)?(?:, (\d+) skipped)?(?:, (\d+) retried, (\d+) retries)?$`)
	pgbenchKV       = regexp.MustCompile(`^([a-z][a-z0-9 ]*[a-z0-9]): (.*)$`)
	pgbenchEq       = regexp.MustCompile(`^(latency average|latency stddev|initial connection time|tps) = ([\d.]+)(?: ms)?(?: \((.*)\))?$`)
	pgbenchCountPct = regexp.MustCompile(`^(\d+) \(([\d.]+) ?%\)$`) // "(1.195 %)" up to 14
	pgbenchLag      = regexp.MustCompile(`^rate limit schedule lag: avg ([\d.]+) \(max ([\d.]+)\) ms$`)
	pgbenchAbove    = regexp.MustCompile(`^number of transactions above the ([\d.]+) ms latency limit: (\d+)/(\d+) \(([\d.]+) ?%\)$`)
	pgbenchStmtHead = regexp.MustCompile(`^statement latencies in milliseconds(| and failures|, failures and retries):$`)
	// Statement lines after each header: the latency, then as many integer
	// columns as the header names, then the command (after two spaces up to
	// 17, one in 18).
	pgbenchStmt = map[string]*regexp.Regexp{
		"":                       regexp.MustCompile(`^\s+(-?[\d.]+)()()\s+(\S.*)$`),
		" and failures":          regexp.MustCompile(`^\s+(-?[\d.]+)\s+(\d+)()\s+(\S.*)$`),
		", failures and retries": regexp.MustCompile(`^\s+(-?[\d.]+)\s+(\d+)\s+(\d+)\s+(\S.*)$`),
	}
	// A client that hit an error it does not retry stops, and the run goes on
	// without it: "client 4 aborted in command 8 (SQL) of script 0; ERROR: ..."
	// (11), "pgbench: error: client 2 script 0 aborted in command 8 query 0: ..."
	// (13+).
	pgbenchClientAborted = regexp.MustCompile(`^(?:pgbench: error: )?client \d+ (?:script \d+ )?aborted in command`)
)

func detectPgbench(text string) bool { return pgbenchDetectRe.MatchString(head(text, 64<<10)) }

// head returns at most n bytes of text: detectors look at the start only.
func head(text string, n int) string {
	if len(text) > n {
		return text[:n]
	}
	return text
}

// pgbenchBuiltinStatements is how many lines -r prints for a builtin script:
// its \set commands and its SQL statements.
var pgbenchBuiltinStatements = map[string]int{
	"<builtin: TPC-B (sort of)>": 11,
	"<builtin: simple update>":   9,
	"<builtin: select only>":     2,
}

// pgbenchModes maps pgbench's builtin script names to tpcb's modes.
var pgbenchModes = map[string]string{
	"<builtin: TPC-B (sort of)>": tpcbparams.TPCBLike,
	"<builtin: simple update>":   tpcbparams.SimpleUpdate,
	"<builtin: select only>":     tpcbparams.SelectOnly,
}

// parsePgbenchReader reads a pgbench output line by line: memory grows with
// what the run stores (a series point per progress line), not with the
// output's size.
var parsePgbenchReader = streamed(parsePgbenchLines)

func parsePgbench(name, text string) ([]*result.Run, error) {
	return parsePgbenchReader(name, strings.NewReader(text))
}

func parsePgbenchLines(l *lines) ([]*result.Run, error) {
	p := &pgbenchParser{l: l, r: &result.Run{Workload: "pgbench", Kind: "tpcb", Params: map[string]any{}},
		facts: map[string]any{}, tool: map[string]any{}, seen: map[string]bool{}, failures: map[result.ErrorClass]int64{}}
	for line, ok := l.next(); ok; line, ok = l.next() {
		t := strings.TrimRight(line, " \t")
		if t == "" {
			continue
		}
		p.raw = line
		read, err := applyRules(pgbenchRules, p, t)
		if err != nil {
			return nil, err
		}
		if !read {
			return nil, l.errorf("unexpected line in pgbench output")
		}
	}
	return p.finish()
}

// pgbenchParser is a pgbench output's run as read so far, and where in the
// output the parse is.
type pgbenchParser struct {
	l     *lines
	raw   string // the line being read, as it was
	r     *result.Run
	facts map[string]any // what the output says of the workload
	tool  map[string]any // what the output says that is not a tpcb parameter
	seen  map[string]bool
	prevT float64 // the time of the last progress line
	// points are the progress lines' points, compact until finish builds
	// the run's series from them at its exact length: a series grown by
	// appending whole points held about twice its size (issue 41: 1.7 GB
	// for 3.3 million lines).
	points      []progressPoint
	statements  []any // -r's statement lines; nil before its header
	stmtRe      *regexp.Regexp
	inSummary   bool
	inScripts   bool // in the per-script sections of several scripts
	failures    map[result.ErrorClass]int64
	detailedErr bool
	txType      string
	vacuum      bool
}

// pgbenchRules are the lines of a pgbench output, in the order they are
// tried: the first rule that reads a line (right-trimmed) handles it.
var pgbenchRules = []lineRule[*pgbenchParser]{
	{re: pgbenchVersion, when: func(p *pgbenchParser, _ string) bool { return !p.inSummary }, handle: (*pgbenchParser).version},
	{re: pgbenchClientAborted, handle: func(p *pgbenchParser, m []string) error {
		return p.l.errorf("a pgbench client aborted (%s): the run went on with fewer clients and its numbers are incomplete", m[0])
	}},
	{exact: "starting vacuum...end.", handle: func(p *pgbenchParser, _ []string) error { p.vacuum = true; return nil }},
	// Messages pgbench and the server print during the run (2>&1).
	{when: pgbenchMessage, handle: func(p *pgbenchParser, m []string) error {
		if strings.Contains(m[0], "Run was aborted") {
			return p.aborted(m)
		}
		return nil
	}},
	{exact: "Run was aborted; the above results are incomplete.", handle: (*pgbenchParser).aborted},
	{prefix: "progress: ", handle: (*pgbenchParser).progress},
	// Per-script sections of runs with several scripts: the totals above
	// already hold what fairbench stores. Their lines are "SQL script N: ...",
	// " - ..." and, with -r, the script's statement lines.
	{when: (*pgbenchParser).scriptSection, handle: func(*pgbenchParser, []string) error { return nil }},
	{when: func(p *pgbenchParser, t string) bool { return p.statements != nil || pgbenchStmtHead.MatchString(t) },
		handle: (*pgbenchParser).statement},
	{re: pgbenchEq, handle: (*pgbenchParser).equals},
	{re: pgbenchLag, handle: (*pgbenchParser).lag},
	{re: pgbenchAbove, handle: (*pgbenchParser).above},
	{re: pgbenchKV, handle: (*pgbenchParser).summary},
}

func pgbenchMessage(_ *pgbenchParser, t string) bool {
	for _, prefix := range []string{"starting vacuum...", "pgbench: ", "NOTICE: ", "WARNING: ", "client "} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// "pgbench (15.18 ...)": the client's version, and the server's when they differ.
func (p *pgbenchParser) version(m []string) error {
	client, server, ok := strings.Cut(m[1], ", server ")
	p.r.ToolVersion = "pgbench " + client
	if ok {
		p.facts["server version"] = server
	}
	return nil
}

func (p *pgbenchParser) aborted([]string) error {
	return p.l.errorf("pgbench reports the run as aborted; its numbers are incomplete")
}

func (p *pgbenchParser) progress(m []string) error {
	l := p.l
	if p.inSummary {
		return l.errorf("progress line after the summary started")
	}
	if m = match(pgbenchProgress, m[0]); m == nil {
		return l.errorf("unreadable pgbench progress line")
	}
	at, _ := l.num(m[1], "progress time")
	tps, _ := l.num(m[2], "progress tps")
	lat, _ := l.num(m[3], "progress latency")
	pt := progressPoint{second: int(math.Round(at)), rate: tps, mean: lat * 1000}
	pt.ops = int64(math.Round(tps * (at - p.prevT)))
	p.prevT = at
	if m[5] != "" {
		pt.errors, _ = l.integer(m[5], "failed")
	}
	p.points = append(p.points, pt)
	return nil
}

// progressPoint is what a progress line gives a series point.
type progressPoint struct {
	second      int
	ops, errors int64
	rate, mean  float64
}

// series is the run's series: a point per progress line.
func (p *pgbenchParser) series() []result.SeriesPoint {
	if len(p.points) == 0 {
		return nil
	}
	out := make([]result.SeriesPoint, len(p.points))
	for i, pt := range p.points {
		out[i] = result.SeriesPoint{Second: pt.second, Ops: pt.ops, Errors: pt.errors, Rate: pt.rate, Mean: pt.mean}
	}
	return out
}

func (p *pgbenchParser) scriptSection(t string) bool {
	return p.inScripts && (strings.HasPrefix(t, "SQL script ") || strings.HasPrefix(t, " - ") ||
		(p.statements == nil && match(pgbenchStmt[""], t) != nil))
}

// statement reads -r's header and the statement lines under it.
func (p *pgbenchParser) statement(m []string) error {
	l := p.l
	if h := match(pgbenchStmtHead, m[0]); h != nil {
		p.statements = []any{}
		p.stmtRe = pgbenchStmt[h[1]]
		return nil
	}
	s := match(p.stmtRe, p.raw)
	if s == nil {
		if strings.HasPrefix(m[0], "SQL script ") {
			p.inScripts = true
			return nil
		}
		return l.errorf("unreadable statement latency line")
	}
	lat, err := l.signed(s[1], "statement latency")
	if err != nil {
		return err
	}
	st := map[string]any{"latency_ms": lat, "command": strings.TrimSpace(s[4])}
	if s[2] != "" {
		st["failures"], _ = l.integer(s[2], "statement failures")
	}
	if s[3] != "" {
		st["retries"], _ = l.integer(s[3], "statement retries")
	}
	p.statements = append(p.statements, st)
	return nil
}

// equals reads the "name = value" lines of the summary.
func (p *pgbenchParser) equals(m []string) error {
	p.inSummary = true
	v, err := p.l.num(m[2], m[1])
	if err != nil {
		return err
	}
	if err := pgbenchEquals[m[1]](p, v, m[3]); err != nil {
		return err
	}
	p.seen[m[1]] = true
	return nil
}

// pgbenchEquals handle the names pgbenchEq reads, given the value and the
// note in parentheses after it.
var pgbenchEquals = map[string]func(p *pgbenchParser, v float64, note string) error{
	"latency average": func(p *pgbenchParser, v float64, note string) error {
		p.r.Summary.LatencyMean = v * 1000
		if note == "including failures" {
			// pgbench 15+ without -r/-P/--latency-limit computes the
			// average from the duration, failures included.
			p.r.Deviations = append(p.r.Deviations, "pgbench's latency average includes failed transactions (it was derived from the run time, not measured per transaction)")
		}
		return nil
	},
	"latency stddev":          func(p *pgbenchParser, v float64, _ string) error { p.r.Summary.LatencyStddev = v * 1000; return nil },
	"initial connection time": func(p *pgbenchParser, v float64, _ string) error { p.r.Summary.ConnectTimeMean = v; return nil },
	"tps": func(p *pgbenchParser, v float64, note string) error {
		switch note {
		case "without initial connection time", "excluding connections establishing":
			p.r.Summary.Throughput = v
		case "including connections establishing":
			// pgbench 11–13 print both; the excluding one is comparable to
			// what later versions and fairbench report.
			p.facts["tps including connections establishing"] = v
		default:
			return p.l.errorf("unknown tps line")
		}
		return nil
	},
}

// lag reads -R's "rate limit schedule lag" line.
func (p *pgbenchParser) lag(m []string) error {
	s := &p.r.Summary
	s.LagMean, _ = p.l.num(m[1], "lag")
	s.LagMax, _ = p.l.num(m[2], "lag max")
	s.LagMean *= 1000
	s.LagMax *= 1000
	return nil
}

// above reads -L's "number of transactions above the latency limit" line.
func (p *pgbenchParser) above(m []string) error {
	limit, _ := p.l.num(m[1], "latency limit")
	p.tool["latency_limit"] = time.Duration(limit * float64(time.Millisecond)).String()
	n, _ := p.l.integer(m[2], "late transactions")
	p.r.Summary.LateStarts = n
	p.facts["transactions above the latency limit"] = n
	return nil
}

// summary reads a "key: value" line of the header or the summary.
func (p *pgbenchParser) summary(m []string) error {
	key, val := m[1], strings.TrimSpace(m[2])
	p.inSummary = true
	read, ok := pgbenchSummary[key]
	if !ok {
		return p.l.errorf("unknown pgbench summary line %q", key)
	}
	if err := read(p, key, val); err != nil {
		return err
	}
	p.seen[key] = true
	return nil
}

// pgbenchSummary handle the keys of "key: value" lines.
var pgbenchSummary = map[string]func(p *pgbenchParser, key, val string) error{
	"transaction type": (*pgbenchParser).transactionType,
	"scaling factor": func(p *pgbenchParser, key, val string) error {
		n, err := p.l.integer(val, key)
		p.r.Params[tpcbparams.Scale] = n
		p.facts[key] = val
		return err
	},
	"query mode": func(p *pgbenchParser, key, val string) error {
		p.r.Params[tpcbparams.QueryMode] = val
		p.facts[key] = val
		return nil
	},
	"number of clients":       pgbenchInteger(func(p *pgbenchParser, n int64) { p.r.Clients = int(n) }),
	"number of threads":       pgbenchInteger(func(p *pgbenchParser, n int64) { p.tool["threads"] = n }),
	"maximum number of tries": pgbenchInteger(func(p *pgbenchParser, n int64) { p.tool["max_tries"] = n }),
	"maximum time of tries":   func(p *pgbenchParser, key, val string) error { p.facts[key] = val; return nil },
	"duration":                (*pgbenchParser).duration,
	"number of transactions per client": pgbenchInteger(func(p *pgbenchParser, n int64) {
		p.tool["transactions_per_client"] = n
		p.r.Params[tpcbparams.Transactions] = n // pairs with a native run of -t n
	}),
	"number of transactions actually processed": func(p *pgbenchParser, key, val string) error {
		// "892", or "1000/1000" with -t.
		done, _, _ := strings.Cut(val, "/")
		n, err := p.l.integer(done, key)
		p.r.Summary.Transactions = n
		return err
	},
	"number of failed transactions": pgbenchCounted(func(p *pgbenchParser, n int64) { p.r.Summary.Failed = n }),
	"number of serialization failures": pgbenchCounted(func(p *pgbenchParser, n int64) {
		p.failures[result.ErrSerialization] = n
		p.detailedErr = true
	}),
	"number of deadlock failures": pgbenchCounted(func(p *pgbenchParser, n int64) {
		p.failures[result.ErrDeadlock] = n
		p.detailedErr = true
	}),
	"number of transactions retried": pgbenchCounted(func(p *pgbenchParser, n int64) { p.r.Summary.Retried = n }),
	"total number of retries":        pgbenchInteger(func(p *pgbenchParser, n int64) { p.r.Summary.Retries = n }),
	"number of transactions skipped": pgbenchCounted(func(p *pgbenchParser, n int64) { p.r.Summary.Skipped = n }),
}

// pgbenchInteger reads a summary value that is a count.
func pgbenchInteger(set func(*pgbenchParser, int64)) func(p *pgbenchParser, key, val string) error {
	return func(p *pgbenchParser, key, val string) error {
		n, err := p.l.integer(val, key)
		if err == nil {
			set(p, n)
		}
		return err
	}
}

// pgbenchCounted reads a summary value written "N (P%)".
func pgbenchCounted(set func(*pgbenchParser, int64)) func(p *pgbenchParser, key, val string) error {
	return func(p *pgbenchParser, key, val string) error {
		n, err := pgbenchCount(p.l, val, key)
		if err == nil {
			set(p, n)
		}
		return err
	}
}

func (p *pgbenchParser) transactionType(key, val string) error {
	p.txType = val
	p.facts[key] = val
	if mode, ok := pgbenchModes[val]; ok {
		p.r.Params[tpcbparams.Mode] = mode
		return nil
	}
	// A custom script (-f) or several (-b/-f with weights): not comparable
	// with tpcb, so its own kind.
	p.r.Kind = "pgbench-script"
	p.r.Params["script"] = val
	if val == "multiple scripts" {
		p.inScripts = true
	}
	return nil
}

func (p *pgbenchParser) duration(key, val string) error {
	d, ok := strings.CutSuffix(val, " s")
	if !ok {
		return p.l.errorf("duration %q is not in seconds", val)
	}
	n, err := p.l.integer(d, key)
	if err != nil {
		return err
	}
	if n == 0 {
		return p.l.badf("duration 0 s: pgbench -T runs for at least a second")
	}
	p.r.Duration = time.Duration(n) * time.Second
	return nil
}

// finish checks that the output was whole and completes the run from what
// it said.
func (p *pgbenchParser) finish() ([]*result.Run, error) {
	l, r, s := p.l, p.r, &p.r.Summary
	r.Series, p.points = p.series(), nil
	for _, need := range []string{"transaction type", "number of clients", "number of transactions actually processed", "latency average", "tps"} {
		if !p.seen[need] {
			return nil, l.missing(fmt.Sprintf("%q line", need))
		}
	}
	if p.txType == "" {
		return nil, l.missing("transaction type")
	}
	// -r lists every statement of the script: a builtin script's list cut
	// short is a truncated output.
	if want, ok := pgbenchBuiltinStatements[p.txType]; ok && p.statements != nil && len(p.statements) != want {
		return nil, l.missing(fmt.Sprintf("statement latencies of all %d statements of %s (%d read)", want, p.txType, len(p.statements)))
	}
	if _, ok := p.tool["max_tries"]; !ok {
		p.tool["max_tries"] = int64(1)
	}
	if r.Kind == "tpcb" {
		r.Params[tpcbparams.Vacuum] = p.vacuum
	}
	if r.Duration == 0 && s.Throughput > 0 {
		// -t runs: the measured time follows from count and rate.
		r.Duration = time.Duration(float64(s.Transactions) / s.Throughput * float64(time.Second))
	}
	if _, old := p.facts["tps including connections establishing"]; old && !p.seen["latency stddev"] {
		// pgbench 11–13 without -P, -R or -L measure no latencies and print
		// clients / tps including connections establishing as the average.
		r.Deviations = append(r.Deviations, "pgbench's latency average includes connection establishment (pgbench 13 and older derive it from the whole run time when they measure no latencies: without -P, -R or -L)")
	}
	if p.tool["latency_limit"] != nil || s.LagMax > 0 || s.Skipped > 0 {
		r.Deviations = append(r.Deviations, "rate-limited run (-R): the target rate is not in pgbench's output; pass --set rate=N to record it")
	}
	op := result.Op{Name: opName(r), Count: s.Transactions, Errors: p.errorClasses()}
	r.Ops = []result.Op{op}
	r.Env.Extra = map[string]any{"workload": p.facts, "tool": p.tool}
	if len(p.statements) > 0 {
		r.Env.Extra["statements"] = p.statements
	}
	r.Deviations = append(r.Deviations, "no latency distribution: pgbench prints only mean and stddev; percentiles need its -l per-transaction logs imported alongside")
	return []*result.Run{r}, nil
}

// errorClasses are the failed transactions by class.
func (p *pgbenchParser) errorClasses() map[result.ErrorClass]int64 {
	errs := map[result.ErrorClass]int64{}
	failed := p.r.Summary.Failed
	if failed == 0 {
		return errs
	}
	if !p.detailedErr {
		// Without --failures-detailed pgbench only retries (and so only
		// counts as failed) serialization and deadlock errors, without
		// saying which: they are stored under serialization.
		errs[result.ErrSerialization] = failed
		p.r.Deviations = append(p.r.Deviations, "failed transactions counted as serialization failures: pgbench ran without --failures-detailed and did not say which of serialization or deadlock")
		return errs
	}
	var sum int64
	for c, n := range p.failures {
		if n > 0 {
			errs[c] = n
		}
		sum += n
	}
	if other := failed - sum; other > 0 {
		errs[result.ErrOther] = other
	}
	return errs
}

func opName(r *result.Run) string {
	if m, ok := r.Params[tpcbparams.Mode].(string); ok {
		return m
	}
	return "script"
}

// pgbenchCount reads "325 (26.083%)".
func pgbenchCount(l *lines, val, key string) (int64, error) {
	m := match(pgbenchCountPct, val)
	if m == nil {
		return 0, l.errorf("%s: %q is not \"N (P%%)\"", key, val)
	}
	return l.integer(m[1], key)
}

// --- -l per-transaction logs ---------------------------------------------

var (
	pgbenchLogName = regexp.MustCompile(`\.\d+(\.\d+)?$`)
	// client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
	pgbenchLogLine = regexp.MustCompile(`^(\d+) (\d+) (\d+|failed|skipped|serialization|deadlock|other) (\d+) (\d+) (\d+)(?: (\d+))?(?: (\d+))?$`)
)

func isPgbenchLog(name, text string) bool {
	if !pgbenchLogName.MatchString(name) {
		return false
	}
	first, _, _ := strings.Cut(text, "\n")
	return pgbenchLogLine.MatchString(strings.TrimSpace(first))
}

// attachPgbenchLogs replaces the run's missing distribution by the exact one
// from pgbench's per-transaction logs (one file per thread), and its series by
// per-second counts from the log timestamps.
func attachPgbenchLogs(runs []*result.Run, logs []File) error {
	if len(runs) != 1 {
		return fmt.Errorf("pgbench logs need exactly one pgbench run to attach to")
	}
	a := newPgbenchLogs()
	for _, f := range logs {
		if err := a.read(f.Name, strings.NewReader(f.Text)); err != nil {
			return err
		}
	}
	return a.attach(runs[0])
}

// pgbenchLogFile is the name pgbench -l --log-prefix=DIR/pgbenchLogFile gives
// its logs in DIR: pgbench_log.PID for the first thread, pgbench_log.PID.N
// for the others.
const pgbenchLogFile = "pgbench_log"

// pgbenchLogArgs asks pgbench for its per-transaction logs in dir.
func pgbenchLogArgs(dir string) []string {
	return []string{"-l", "--log-prefix=" + filepath.Join(dir, pgbenchLogFile)}
}

// attachPgbenchLogDir reads the logs of a run made with pgbenchLogArgs(dir),
// file by file and line by line, so that a long run's logs need not fit in
// memory.
func attachPgbenchLogDir(runs []*result.Run, dir string) error {
	if len(runs) != 1 {
		return fmt.Errorf("pgbench logs need exactly one pgbench run to attach to")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	a := newPgbenchLogs()
	for _, e := range entries { // sorted by name
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), pgbenchLogFile+".") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		err = a.read(f.Name(), f)
		f.Close()
		if err != nil {
			return err
		}
	}
	if a.files == 0 {
		return fmt.Errorf("pgbench wrote no -l log file in %s", dir)
	}
	return a.attach(runs[0])
}

// pgbenchLogs accumulates per-transaction log lines:
// client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
// where time is the latency in µs, or failed / skipped (15+: serialization,
// deadlock, other with --failures-detailed).
type pgbenchLogs struct {
	h                   *hdr.Histogram
	ok, failed, skipped int64
	lagSum, lagMax      float64
	lagN                int64
	minUs               float64
	perSec              map[int64]*result.SeriesPoint
	firstSec            int64
	firstStartUs        int64 // the earliest start (end − latency) of a logged transaction, µs since the epoch
	errs                map[result.ErrorClass]int64
	detailed            bool // failures named by class (--failures-detailed)
	files               int
	first               string // the first file's name, for errors
}

func newPgbenchLogs() *pgbenchLogs {
	return &pgbenchLogs{h: hist.New(), minUs: math.Inf(1), perSec: map[int64]*result.SeriesPoint{},
		firstSec: math.MaxInt64, firstStartUs: math.MaxInt64, errs: map[result.ErrorClass]int64{}}
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (a *pgbenchLogs) read(name string, rd io.Reader) error {
	if a.files == 0 {
		a.first = name
	}
	a.files++
	sc := bufio.NewScanner(rd)
	no := 0
	bad := func(msg string) error { return &ParseError{File: name, Line: no, Msg: msg} }
	for sc.Scan() {
		no++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 6 || len(f) > 8 || !digits(f[0]) || !digits(f[1]) || !digits(f[3]) || !digits(f[4]) || !digits(f[5]) ||
			(len(f) > 6 && !digits(f[6])) || (len(f) > 7 && !digits(f[7])) {
			return bad("not a pgbench per-transaction log line (aggregated logs, --aggregate-interval, are not supported)")
		}
		what := f[2]
		sec, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return bad(fmt.Sprintf("time_epoch: %q is not an integer", f[4]))
		}
		a.firstSec = min(a.firstSec, sec)
		pt := a.perSec[sec]
		if pt == nil {
			pt = &result.SeriesPoint{}
			a.perSec[sec] = pt
		}
		if len(f) > 6 && what != "skipped" {
			lag, _ := strconv.ParseFloat(f[6], 64)
			a.lagSum += lag
			a.lagN++
			a.lagMax = math.Max(a.lagMax, lag)
		}
		switch what {
		case "skipped":
			a.skipped++
			continue
		case "failed", "serialization", "deadlock", "other":
			a.failed++
			pt.Errors++
			c := result.ErrSerialization
			switch what {
			case "deadlock":
				c = result.ErrDeadlock
			case "other":
				c = result.ErrOther
			}
			a.errs[c]++
			a.detailed = a.detailed || what != "failed"
			continue
		}
		if !digits(what) {
			return bad("not a pgbench per-transaction log line (aggregated logs, --aggregate-interval, are not supported)")
		}
		us, _ := strconv.ParseFloat(what, 64)
		endUs, _ := strconv.ParseInt(f[5], 10, 64)
		a.firstStartUs = min(a.firstStartUs, sec*1e6+endUs-int64(us))
		a.ok++
		a.minUs = math.Min(a.minUs, us)
		_ = a.h.RecordValue(usValue(us))
		pt.Ops++
		pt.Mean += us // summed here, divided in attach
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (a *pgbenchLogs) attach(r *result.Run) error {
	if a.ok != r.Summary.Transactions {
		return fmt.Errorf("%s: the -l logs hold %d successful transactions but the pgbench output says %d were processed: these logs belong to another run, or some are missing",
			a.first, a.ok, r.Summary.Transactions)
	}
	secs := make([]int64, 0, len(a.perSec))
	for s := range a.perSec {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	var series []result.SeriesPoint
	for _, s := range secs {
		pt := a.perSec[s]
		if pt.Ops > 0 {
			pt.Mean /= float64(pt.Ops)
		}
		// time_epoch is when the transaction ended; second k covers (k, k+1].
		pt.Second = int(s-a.firstSec) + 1
		pt.Rate = float64(pt.Ops)
		series = append(series, *pt)
	}
	if len(series) > 0 {
		r.Series = series
		r.StartedAt = time.Unix(a.firstSec, 0)
		if a.ok > 0 {
			r.StartedAt = time.UnixMicro(a.firstStartUs)
		}
	}
	s := &r.Summary
	if a.ok > 0 {
		s.LatencyMin = a.minUs
		fillFromHist(s, a.h)
	}
	if a.lagN > 0 && s.LagMean == 0 {
		s.LagMean = a.lagSum / float64(a.lagN)
		s.LagMax = a.lagMax
	}
	op := &r.Ops[0]
	op.Histogram = encode(a.h)
	if a.detailed {
		op.Errors = a.errs
	}
	var dev []string
	for _, d := range r.Deviations {
		if !strings.HasPrefix(d, "no latency distribution") {
			dev = append(dev, d)
		}
	}
	r.Deviations = dev
	r.Env.Extra["pgbench_logs"] = a.files
	return nil
}

// livePgbench reads a -P progress line as it comes (Tool.Live): its rate,
// mean latency and failures; pgbench prints no percentile there.
func livePgbench(line string) (time.Duration, result.SeriesPoint, bool) {
	m := pgbenchProgress.FindStringSubmatch(strings.TrimRight(line, "\r"))
	if m == nil {
		return 0, result.SeriesPoint{}, false
	}
	f, ok := finiteFloats(m[1], m[2], m[3])
	if !ok {
		return 0, result.SeriesPoint{}, false
	}
	at, tps, lat := f[0], f[1], f[2]
	pt := result.SeriesPoint{Second: int(math.Round(at)), Rate: tps, Mean: lat * 1000}
	if m[5] != "" {
		pt.Errors, _ = strconv.ParseInt(m[5], 10, 64)
	}
	return time.Duration(at * float64(time.Second)), pt, true
}
