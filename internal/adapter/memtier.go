package adapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/result"
)

// memtier_benchmark 2.3.0 (RedisLabs): its text report (stdout, with or
// without stderr's progress lines, with or without the latency distribution)
// and its --json-out-file. One operation per command type: set, get (and
// wait) for the SET/GET mix, the command's name in lower case (incr) for
// --command runs. Hits, misses and KB/s go to Summary.Extra.
//
// What memtier 2.3.0 gets wrong, and what is imported instead (each run's
// deviations say which applied):
//
//   - the JSON's "Average Latency" of Totals is truncated to whole
//     milliseconds (0.000 for a sub-millisecond run): the mean is
//     "Accumulated Latency" / "Count" (itself truncated to whole ms, an error
//     below 1 ms / Count);
//   - with --run-count=N, BEST RUN and WORST RUN are always run 1, whatever
//     the runs measured: they are never imported. The individual runs are,
//     when --print-all-runs printed them (RUN #k RESULTS, each a run of its
//     own with its own duration and distribution); otherwise the AGGREGATED
//     AVERAGE section is, as one run: counts summed over the runs, throughput
//     the mean of the runs' rates (memtier's own figure);
//   - in that aggregated section the JSON's Totals histogram is empty (p50
//     0.007 ms, minimum and maximum 0): its percentiles are not imported. The
//     per-command histograms there are the runs' pooled distributions (a test
//     checks them against the --print-all-runs sections), and the run's
//     percentiles come from them;
//   - for --command runs, Totals KB/sec counts the commands' bytes twice: the
//     run's KB/s is the sum of the commands' rows.
//
// The text prints rates, not counts: a text run's counts are its rates times
// the run time, taken from stderr's last progress line when it was saved along
// (2>&1: exact), else from --requests × connections, else from the configured
// --test-time. The JSON has exact counts, memtier's own HdrHistograms and a
// per-second series; import it when you can. The text lacks the pipeline
// depth and value size: Complete asks for them.

// memtierTool is memtier_benchmark as registered, which the package's tests name.
var memtierTool *Tool

func init() {
	memtierTool = Register(Tool{
		Name:         "memtier_benchmark",
		Kind:         "kv",
		DetectOrder:  70,
		Formats:      "memtier_benchmark 2.3 text and --json-out-file",
		Build:        buildMemtier,
		Install:      "build it with scripts/install-memtier.sh DIR (memtier_benchmark 2.3.0 from its source tarball in third_party/peers/) and put DIR on the PATH",
		Detect:       detectMemtier,
		Once:         regexp.MustCompile(`(?m)(^\d+\s+Threads\s*$|"run information"\s*:)`),
		Identity:     memtierIdentity,
		Parse:        parseMemtier,
		Complete:     completeMemtier,
		AttachLogDir: attachMemtierLogDir,
		ImportFlags:  kvImportFlags,
		// kv's parameters, shared with the native workload, for a build
		// without it; redis-benchmark's cells read them too.
		KindParams: kvparams.Specs(),
	})
}

var (
	memtierDetectText = regexp.MustCompile(`(?m)(^(ALL STATS|BEST RUN RESULTS|AGGREGATED AVERAGE RESULTS \(\d+ runs\)|RUN #\d+ RESULTS)\s*$|^\[RUN #\d+[\] ])`)
	memtierDetectJSON = regexp.MustCompile(`^\s*\{\s*"configuration"\s*:\s*\{\s*"server"\s*:`)
	memtierProgress   = regexp.MustCompile(`^\[RUN #(\d+) +\d+%, +(\d+) secs\] +\d+ threads +\d+ conns: +(\d+) ops, `)
	memtierStartLine  = regexp.MustCompile(`^\[RUN #\d+\] (Preparing benchmark client|Launching threads now)\.\.\.$`)
	memtierRunInfo    = regexp.MustCompile(`^(\d+)\s+(Threads|Connections per thread|Seconds|Requests per client)$`)
	memtierTitle      = regexp.MustCompile(`^(ALL STATS|BEST RUN RESULTS|WORST RUN RESULTS|AGGREGATED AVERAGE RESULTS \((\d+) runs\)|RUN #(\d+) RESULTS)$`)
	memtierPctCol     = regexp.MustCompile(`^p(\d+(?:\.\d+)?) Latency$`)
	memtierDistHead   = regexp.MustCompile(`^Type\s+<= msec\s+Percent$`)
	memtierDistRow    = regexp.MustCompile(`^(\S+)\s+([\d.]+)\s+([\d.]+)$`)
	memtierRunSection = regexp.MustCompile(`^RUN #(\d+) RESULTS$`)
	memtierColSep     = regexp.MustCompile(`\s{2,}`)
	memtierRule       = regexp.MustCompile(`^(=+|-+)$`)
	// stderr lines memtier writes around its report.
	memtierStderr = regexp.MustCompile(`^(Json file .* created\.\.\.|Writing results to .*|Json file closed\.|Saving JSON output file: .*)$`)
)

// memtierEachRun is the deviation of a run imported from --print-all-runs.
const memtierEachRun = "one of the runs of --run-count, printed by --print-all-runs: memtier's BEST RUN, WORST RUN (both run 1 in memtier 2.3.0) and AGGREGATED AVERAGE sections are not imported"

// memtierJSONFile is where a study cell's memtier writes its JSON (Invocation.LogDir).
const memtierJSONFile = "memtier.json"

// memtierIdentity: the JSON has the start time, the text does not; both
// print the counts per command and the ops/sec to two decimals. A
// --requests run has the same counts in every repetition, but its ops/sec
// (count / duration, to the hundredth) differs unless the durations agree
// to the microsecond.
func memtierIdentity(r *result.Run) *RunIdentity {
	id := baseIdentity(r)
	id.Measures = append(opCounts(r),
		Measure{Name: "operations", Value: float64(r.Summary.Transactions)},
		Measure{Name: "ops/sec", Value: r.Summary.Throughput, Within: 0.0051},
		// The JSON's duration is in whole milliseconds.
		Measure{Name: "duration (s)", Value: r.Duration.Seconds(), Within: 0.0011})
	return id
}

func detectMemtier(text string) bool {
	h := head(text, 64<<10)
	return memtierDetectJSON.MatchString(h) || memtierDetectText.MatchString(h)
}

func parseMemtier(name, text string) ([]*result.Run, error) {
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		return parseMemtierJSON(name, text)
	}
	return checked(memtierLines(name, text), parseMemtierText)
}

// memtierLines splits the text into lines, taking out the two messages
// memtier writes on stderr after its report ("Saving JSON output file: F",
// "Json file closed."). stdout is buffered, so when both were saved into one
// file (2>&1) the messages land wherever stdout's buffer was cut, often in
// the middle of a line: that line is joined again, keeping the line number
// where it starts.
func memtierLines(name, text string) *lines {
	l := newLines(name, text)
	var ls []string
	var no []int
	for i := 0; i < len(l.ls); i++ {
		s := l.ls[i]
		k := strings.Index(s, "Saving JSON output file: ")
		if k < 0 {
			k = strings.Index(s, "Json file closed.")
			if k > 0 && strings.TrimSpace(s[k:]) != "Json file closed." {
				k = -1
			}
		}
		if k <= 0 {
			ls, no = append(ls, s), append(no, l.no[i])
			continue
		}
		j := i + 1 // the line after the messages continues this one
		if !strings.HasPrefix(s[k:], "Json file closed.") && j < len(l.ls) && strings.TrimSpace(l.ls[j]) == "Json file closed." {
			j++
		}
		joined := s[:k]
		if j < len(l.ls) {
			joined += l.ls[j]
		}
		ls, no = append(ls, joined), append(no, l.no[i])
		i = j
	}
	l.ls, l.no = ls, no
	return l
}

// memtierRow is one row of a memtier results table.
type memtierRow struct {
	label string
	line  int
	vals  map[string]float64 // by column; absent where memtier printed ---
}

// memtierSection is one results section of the text: ALL STATS, RUN #k
// RESULTS, BEST/WORST RUN RESULTS or AGGREGATED AVERAGE RESULTS (N runs).
type memtierSection struct {
	title string
	line  int
	runs  int // the N of AGGREGATED AVERAGE RESULTS (N runs)
	runNo int // the k of RUN #k RESULTS
	cols  []string
	rows  []memtierRow
	// dist holds the Request Latency Distribution blocks in the order
	// printed, one per command type (SET, GET, WAIT or the command).
	dist []memtierDist
}

type memtierDist struct {
	typ  string
	line int
	pts  []bucket // latency (µs) and cumulative percent ×1000, as printed
}

func (s *memtierSection) aggregated() bool { return s.runs > 0 }

// memtierTextParse is the state of a memtier_benchmark text output being
// read.
type memtierTextParse struct {
	l        *lines
	info     map[string]int64
	finalOps map[int]int64 // run number → ops of its last progress line
	sections []*memtierSection
	warnings []string
}

// memtierTextRules are the lines of a text output, trimmed, in the order
// they are tried; a section's title reads the whole section.
var memtierTextRules = []lineRule[*memtierTextParse]{
	{when: func(_ *memtierTextParse, t string) bool { return t == "" }, handle: skipLine[*memtierTextParse]},
	{re: memtierStderr, handle: skipLine[*memtierTextParse]},
	{re: memtierStartLine, handle: skipLine[*memtierTextParse]},
	{prefix: "[RUN #", handle: (*memtierTextParse).progress},
	{when: func(_ *memtierTextParse, t string) bool {
		return strings.HasPrefix(t, "error:") || strings.HasPrefix(strings.ToLower(t), "connection ")
	}, handle: func(p *memtierTextParse, m []string) error { return p.l.errorf("memtier_benchmark failed: %s", m[0]) }},
	{when: func(_ *memtierTextParse, t string) bool { return strings.HasPrefix(strings.ToLower(t), "warning:") },
		handle: func(p *memtierTextParse, m []string) error { p.warnings = append(p.warnings, m[0]); return nil }},
	{re: memtierRunInfo, handle: func(p *memtierTextParse, m []string) error {
		n, _ := p.l.integer(m[1], m[2])
		p.info[m[2]] = n
		return nil
	}},
	{re: memtierTitle, handle: (*memtierTextParse).section},
}

func parseMemtierText(l *lines) ([]*result.Run, error) {
	p := &memtierTextParse{l: l, info: map[string]int64{}, finalOps: map[int]int64{}}
	if err := applyAll(l, memtierTextRules, p, "unexpected line in memtier_benchmark output"); err != nil {
		return nil, err
	}
	if len(p.sections) == 0 {
		return nil, l.missing("memtier_benchmark results (ALL STATS)")
	}
	threads, conns := p.info["Threads"], p.info["Connections per thread"]
	if threads == 0 || conns == 0 {
		return nil, l.missing(`memtier_benchmark "Threads" and "Connections per thread" lines`)
	}
	chosen, err := memtierChosenSections(l, p.sections)
	if err != nil {
		return nil, err
	}
	var runs []*result.Run
	for _, s := range chosen {
		r, err := memtierTextRun(l, s, p.info, p.finalOps, s.runNo > 0)
		if err != nil {
			return nil, err
		}
		if len(p.warnings) > 0 {
			r.Env.Extra["memtier_warnings"] = p.warnings
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// progress reads a progress line (stderr's, saved with 2>&1): the last one
// of a run has its exact count of operations.
func (p *memtierTextParse) progress(line []string) error {
	m := match(memtierProgress, line[0])
	if m == nil {
		return p.l.errorf("unreadable memtier_benchmark progress line")
	}
	run, _ := p.l.integer(m[1], "run number")
	ops, _ := p.l.integer(m[3], "progress ops")
	p.finalOps[int(run)] = ops
	return nil
}

// section reads a section from its title on.
func (p *memtierTextParse) section(m []string) error {
	l := p.l
	s := &memtierSection{title: m[1], line: l.line()}
	if m[2] != "" {
		n, _ := l.integer(m[2], "number of runs")
		s.runs = int(n)
	}
	if m[3] != "" {
		n, _ := l.integer(m[3], "run number")
		s.runNo = int(n)
	}
	if err := readMemtierSection(l, s); err != nil {
		return err
	}
	p.sections = append(p.sections, s)
	return nil
}

// memtierChosenSections are the sections that are runs: the individual runs
// when printed, else the single run's ALL STATS, else the aggregate of
// --run-count (BEST and WORST RUN are always run 1 in memtier 2.3.0).
func memtierChosenSections(l *lines, sections []*memtierSection) ([]*memtierSection, error) {
	var chosen []*memtierSection
	for _, s := range sections {
		if s.runNo > 0 {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) == 0 {
		for _, s := range sections {
			if s.title == "ALL STATS" || s.aggregated() {
				chosen = append(chosen, s)
			}
		}
	}
	if len(chosen) == 0 {
		return nil, l.missing("memtier_benchmark ALL STATS or AGGREGATED AVERAGE RESULTS section")
	}
	if len(chosen) > 1 && chosen[0].runNo == 0 {
		return nil, &ParseError{File: l.file, Line: chosen[1].line, Msg: "a second ALL STATS or AGGREGATED AVERAGE section: two memtier_benchmark outputs in one file?"}
	}
	return chosen, nil
}

// readMemtierSection reads a section after its title: the table, then the
// latency distribution when memtier printed one.
func readMemtierSection(l *lines, s *memtierSection) error {
	for _, read := range []func(*lines, *memtierSection) error{readMemtierHeader, readMemtierRows, readMemtierDist} {
		if err := read(l, s); err != nil {
			return err
		}
	}
	return nil
}

// memtierNext is the next line of section s that is not one of memtier's
// stderr lines, trimmed; what names what was expected, for the error at the
// end of the text.
func memtierNext(l *lines, s *memtierSection, what string) (string, error) {
	for {
		line, ok := l.next()
		if !ok {
			return "", l.missing(what + " of " + s.title)
		}
		if t := strings.TrimSpace(line); !memtierStderr.MatchString(t) {
			return t, nil
		}
	}
}

// readMemtierHeader reads the table's header between its ==== and ---- rules.
func readMemtierHeader(l *lines, s *memtierSection) error {
	t, err := memtierNext(l, s, "table")
	if err != nil {
		return err
	}
	if !memtierRule.MatchString(t) || t[0] != '=' {
		return l.errorf("expected the ==== line under %s", s.title)
	}
	if t, err = memtierNext(l, s, "table header"); err != nil {
		return err
	}
	s.cols = memtierColSep.Split(t, -1)
	if s.cols[0] != "Type" {
		return l.errorf("expected memtier's table header (Type  Ops/sec ...) under %s", s.title)
	}
	for _, c := range s.cols[1:] {
		switch {
		case c == "Ops/sec", c == "Hits/sec", c == "Misses/sec", c == "MOVED/sec", c == "ASK/sec",
			c == "Avg. Latency", c == "KB/sec", memtierPctCol.MatchString(c):
		default:
			return l.errorf("unknown column %q in memtier's table", c)
		}
	}
	if t, err = memtierNext(l, s, "table"); err != nil {
		return err
	}
	if !memtierRule.MatchString(t) || t[0] != '-' {
		return l.errorf("expected the ---- line under the table header")
	}
	return nil
}

// readMemtierRows reads the table's rows, up to and with Totals.
func readMemtierRows(l *lines, s *memtierSection) error {
	for {
		t, err := memtierNext(l, s, "Totals row")
		if err != nil {
			return err
		}
		if t == "" {
			if len(s.rows) > 0 && s.rows[len(s.rows)-1].label == "Totals" {
				return nil
			}
			if _, more := l.peek(); !more {
				return l.missing("Totals row of " + s.title)
			}
			return l.errorf("the table of %s ends before its Totals row", s.title)
		}
		row, err := readMemtierRow(l, s, t)
		if err != nil {
			return err
		}
		s.rows = append(s.rows, row)
		if row.label == "Totals" {
			// The table ends at Totals; a blank line follows unless the
			// file ends here (--hide-histogram's last line).
			if p, ok := l.peek(); !ok || strings.TrimSpace(p) != "" {
				if ok {
					l.next()
					return l.errorf("unexpected line after the Totals row")
				}
				return nil
			}
		}
	}
}

// readMemtierRow reads the table row t.
func readMemtierRow(l *lines, s *memtierSection, t string) (memtierRow, error) {
	f := strings.Fields(t)
	if len(f) != len(s.cols) {
		return memtierRow{}, l.errorf("table row with %d fields, the header has %d columns", len(f), len(s.cols))
	}
	row := memtierRow{label: f[0], line: l.line(), vals: map[string]float64{}}
	if len(row.label) < 2 || !strings.HasSuffix(row.label, "s") {
		return memtierRow{}, l.errorf("unexpected row %q in memtier's table (Sets, Gets, Waits, a command's type with an s, Totals)", row.label)
	}
	for i, v := range f[1:] {
		if v == "---" {
			continue
		}
		x, err := l.num(v, s.cols[i+1])
		if err != nil {
			return memtierRow{}, err
		}
		row.vals[s.cols[i+1]] = x
	}
	if _, ok := row.vals["Ops/sec"]; !ok {
		return memtierRow{}, l.errorf("row %s without Ops/sec", row.label)
	}
	return row, nil
}

// readMemtierDist reads the latency distribution, if any: it follows the
// table after a second blank line.
func readMemtierDist(l *lines, s *memtierSection) error {
	for {
		p, ok := l.peek()
		if !ok || strings.TrimSpace(p) != "" {
			break
		}
		l.next()
	}
	if p, ok := l.peek(); !ok || strings.TrimSpace(p) != "Request Latency Distribution" {
		return nil
	}
	l.next()
	t, err := memtierNext(l, s, "distribution header")
	if err != nil {
		return err
	}
	if !memtierDistHead.MatchString(t) {
		return l.errorf("expected the distribution header (Type  <= msec  Percent)")
	}
	if t, err = memtierNext(l, s, "distribution"); err != nil {
		return err
	}
	if !memtierRule.MatchString(t) || t[0] != '-' {
		return l.errorf("expected the ---- line under the distribution header")
	}
	cur := memtierDist{line: l.line() + 1}
	flush := func() { s.dist = append(s.dist, cur); cur = memtierDist{line: l.line() + 1} }
	for {
		line, ok := l.next()
		t := strings.TrimSpace(line)
		if !ok || t == "" {
			flush()
			return nil
		}
		if memtierStderr.MatchString(t) {
			continue
		}
		if t == "---" {
			flush()
			continue
		}
		m := match(memtierDistRow, t)
		if m == nil {
			return l.errorf("unreadable latency distribution line")
		}
		if cur.typ != "" && cur.typ != m[1] {
			return l.errorf("distribution line of %s inside the block of %s", m[1], cur.typ)
		}
		cur.typ = m[1]
		ms, _ := l.num(m[2], "latency")
		pct, _ := l.num(m[3], "percent")
		if pct > 100 {
			l.badf("percent %s is above 100", m[3])
		}
		cur.pts = append(cur.pts, bucket{ms * 1000, int64(math.Round(pct * 1000))})
	}
}

// memtierOp turns a table row label (Sets, Gets, Incrs) into the op name
// (set, get, incr): memtier writes the command type in lower case with a
// capital and an s.
func memtierOp(label string) string { return strings.ToLower(strings.TrimSuffix(label, "s")) }

// memtierStd are the op types of the SET/GET mix; any other op is a --command.
var memtierStd = map[string]bool{"set": true, "get": true, "wait": true}

// memtierTextRun makes a run of a section; individual says it is one of the
// RUN #k sections --print-all-runs prints.
func memtierTextRun(l *lines, s *memtierSection, info map[string]int64, finalOps map[int]int64, individual bool) (*result.Run, error) {
	threads, conns := info["Threads"], info["Connections per thread"]
	r := &result.Run{Workload: "memtier_benchmark", Kind: "kv", Params: map[string]any{},
		Clients: int(threads * conns)}
	tool := map[string]any{"threads": threads, "connections_per_thread": conns, "section": s.title}
	r.Env.Extra = map[string]any{"tool": tool}
	var totals memtierRow
	for _, row := range s.rows {
		if row.label == "Totals" {
			totals = row
		}
	}
	sum := &r.Summary
	sum.Throughput = totals.vals["Ops/sec"]
	if sum.Throughput <= 0 {
		return nil, &ParseError{File: l.file, Line: totals.line, Msg: "Totals row with 0 ops/sec: memtier measured nothing (is the server reachable?)"}
	}
	secs, total, how, err := memtierTextDuration(l, s, info, finalOps, individual, sum.Throughput)
	if err != nil {
		return nil, err
	}
	r.Duration = time.Duration(secs * float64(time.Second))
	if info["Requests per client"] > 0 {
		r.Params[kvparams.Requests] = info["Requests per client"]
	}
	if s.aggregated() {
		tool["run_count"] = int64(s.runs)
	}
	ops, err := memtierTextOps(l, s, r, secs)
	if err != nil {
		return nil, err
	}
	if len(r.Ops) == 0 {
		return nil, &ParseError{File: l.file, Line: totals.line, Msg: "no operation with traffic in memtier's table"}
	}
	if total > 0 && ops.counted != total {
		// Rounding each op's rate × time; the exact total wins, the
		// difference (a few operations) goes to the largest op.
		r.Ops[ops.biggest].Count += total - ops.counted
		ops.counted = total
	}
	sum.Transactions = ops.counted
	sum.LatencyMean = totals.vals["Avg. Latency"] * 1000
	r.Deviations = append(r.Deviations, "operation counts are memtier's ops/sec × the run time, from "+how)
	memtierExtra(r, totals, ops.kb)
	if ops.merged != nil {
		fillFromHist(sum, ops.merged)
		r.Deviations = append(r.Deviations, "latency histograms rebuilt from memtier's Request Latency Distribution (cumulative percent at each printed latency): latencies are rounded up to the next printed point")
	} else {
		r.Deviations = append(r.Deviations, "no latency distribution (--hide-histogram): percentiles are the ones memtier printed, no maximum")
	}
	if s.aggregated() {
		r.Deviations = append(r.Deviations, fmt.Sprintf("memtier ran %d runs (--run-count) and printed no individual run (--print-all-runs does): this is its AGGREGATED AVERAGE section; BEST RUN and WORST RUN are ignored (memtier 2.3.0 reports run 1 as both); the distributions are the runs' pooled ones, its table's percentiles are not used", s.runs))
		return r, nil
	}
	if individual {
		r.Deviations = append(r.Deviations, memtierEachRun)
	}
	memtierTotalsPercentiles(sum, s, totals)
	return r, nil
}

// memtierTextDuration is a section's run time in seconds, from which the
// op counts follow: from the exact total of operations where stderr's
// progress lines or the requests per client give it, else the configured
// --test-time; how says which, for the run's deviations.
func memtierTextDuration(l *lines, s *memtierSection, info map[string]int64, finalOps map[int]int64, individual bool,
	throughput float64) (secs float64, total int64, how string, err error) {
	threads, conns := info["Threads"], info["Connections per thread"]
	nRuns := int64(1)
	if s.aggregated() {
		nRuns = int64(s.runs)
	}
	switch {
	case individual && finalOps[s.runNo] > 0:
		total = finalOps[s.runNo]
		how = "the operations of its last progress line (stderr) ÷ Totals ops/sec"
	case s.runNo == 0 && len(finalOps) > 0:
		for k := 1; k <= int(nRuns); k++ {
			if finalOps[k] == 0 {
				return 0, 0, "", l.missing(fmt.Sprintf("progress line of run #%d", k))
			}
			total += finalOps[k]
		}
		how = "the operations of its last progress lines (stderr) ÷ Totals ops/sec"
	case info["Requests per client"] > 0:
		total = info["Requests per client"] * threads * conns * nRuns
		how = "requests × connections ÷ Totals ops/sec"
	}
	secs = float64(total) / throughput
	if total == 0 {
		if info["Seconds"] == 0 {
			return 0, 0, "", l.missing(`memtier_benchmark "Seconds" or "Requests per client" line`)
		}
		secs = float64(info["Seconds"] * nRuns)
		how = "the configured --test-time (stderr's progress lines, saved with 2>&1, give exact counts)"
	}
	if s.aggregated() {
		// Σ ops ÷ the mean of the runs' rates is the runs' total time when
		// they lasted equally long, as --test-time runs do.
		how += fmt.Sprintf("; memtier's Totals ops/sec of %d runs is the mean of their rates", s.runs)
	}
	return secs, total, how, nil
}

// memtierOpRows is what the op rows of a text section add up to.
type memtierOpRows struct {
	merged  *hdr.Histogram // nil without latency distributions
	counted int64
	biggest int     // index in r.Ops of the op with the largest count
	kb      float64 // the op rows' KB/sec
}

// memtierTextOps reads the rows with traffic, in table order, into r.Ops,
// each with the histogram of its latency distribution, counting secs of
// its ops/sec.
func memtierTextOps(l *lines, s *memtierSection, r *result.Run, secs float64) (memtierOpRows, error) {
	dist := map[string]memtierDist{}
	for _, d := range s.dist {
		if d.typ != "" {
			dist[strings.ToLower(d.typ)] = d
		}
	}
	all := memtierOpRows{biggest: -1}
	for _, row := range s.rows {
		if row.label == "Totals" {
			continue
		}
		ops := row.vals["Ops/sec"]
		all.kb += row.vals["KB/sec"]
		if ops == 0 {
			continue
		}
		op := result.Op{Name: memtierOp(row.label), Count: int64(math.Round(ops * secs))}
		if d, ok := dist[op.Name]; ok {
			h, err := memtierDistHistogram(l, d, op.Count)
			if err != nil {
				return all, err
			}
			op.Histogram = encode(h)
			if all.merged == nil {
				all.merged = hist.New()
			}
			all.merged.Merge(h)
			delete(dist, op.Name)
		} else if len(s.dist) > 0 {
			return all, &ParseError{File: l.file, Line: row.line, Msg: fmt.Sprintf("no latency distribution for %s", row.label)}
		}
		if all.biggest < 0 || op.Count > r.Ops[all.biggest].Count {
			all.biggest = len(r.Ops)
		}
		all.counted += op.Count
		r.Ops = append(r.Ops, op)
	}
	for typ, d := range dist {
		if len(d.pts) > 0 && !(len(d.pts) == 1 && d.pts[0].us == 0) {
			return all, &ParseError{File: l.file, Line: d.line, Msg: fmt.Sprintf("a latency distribution for %s, which has no row in the table", strings.ToUpper(typ))}
		}
	}
	return all, nil
}

// memtierDistHistogram is the histogram of count operations distributed as
// d's cumulative percents say.
func memtierDistHistogram(l *lines, d memtierDist, count int64) (*hdr.Histogram, error) {
	last := d.pts[len(d.pts)-1]
	if last.count != 100000 {
		return nil, &ParseError{File: l.file, Line: d.line + len(d.pts) - 1, Msg: fmt.Sprintf("the latency distribution of %s ends at %.3f %%, not 100 %%: the output is truncated", d.typ, float64(last.count)/1000)}
	}
	pts := make([]bucket, len(d.pts))
	for i, p := range d.pts {
		pts[i] = bucket{p.us, int64(math.Round(float64(p.count) / 100000 * float64(count)))}
	}
	return histFromCumulative(pts), nil
}

// memtierTotalsPercentiles puts the percentiles memtier printed for Totals
// into the summary: they are exact at its resolution, the histogram's are
// rebuilt.
func memtierTotalsPercentiles(sum *result.Summary, s *memtierSection, totals memtierRow) {
	for _, c := range s.cols {
		m := match(memtierPctCol, c)
		v, ok := totals.vals[c]
		if m == nil || !ok {
			continue
		}
		switch m[1] {
		case "50":
			sum.P50 = v * 1000
		case "95":
			sum.P95 = v * 1000
		case "99":
			sum.P99 = v * 1000
		}
	}
}

// memtierExtra puts hits, misses and KB/s into the summary. kb is the sum of
// the op rows' KB/sec, which is memtier's Totals except for --command runs,
// whose Totals count the bytes twice.
func memtierExtra(r *result.Run, totals memtierRow, kb float64) {
	x := map[string]float64{}
	if v, ok := totals.vals["Hits/sec"]; ok {
		x["hits_per_sec"] = v
	}
	if v, ok := totals.vals["Misses/sec"]; ok {
		x["misses_per_sec"] = v
	}
	for _, k := range []string{"MOVED/sec", "ASK/sec"} {
		if v, ok := totals.vals[k]; ok {
			x[strings.ToLower(strings.TrimSuffix(k, "/sec"))+"_per_sec"] = v
		}
	}
	x["kb_per_sec"] = math.Round(kb*100) / 100
	if t, ok := totals.vals["KB/sec"]; ok && math.Abs(t-kb) > 0.02*float64(len(r.Ops)+1) {
		r.Deviations = append(r.Deviations, fmt.Sprintf("KB/s is the sum of the operations' rows (%.2f): memtier's Totals says %.2f (for --command runs it counts the commands' bytes twice)", kb, t))
	}
	r.Summary.Extra = x
}

// --- JSON ------------------------------------------------------------------

// memtierJSONOp is one command type (or Totals) of a JSON section. Pointers
// tell a missing field from a zero.
type memtierJSONOp struct {
	Count       *int64                       `json:"Count"`
	OpsSec      *float64                     `json:"Ops/sec"`
	HitsSec     *float64                     `json:"Hits/sec"`
	MissesSec   *float64                     `json:"Misses/sec"`
	MovedSec    *float64                     `json:"MOVED/sec"`
	AskSec      *float64                     `json:"ASK/sec"`
	ConnErrors  *int64                       `json:"Connection Errors"`
	AccLatency  *float64                     `json:"Accumulated Latency"`
	MinLatency  *float64                     `json:"Min Latency"`
	MaxLatency  *float64                     `json:"Max Latency"`
	KBSec       *float64                     `json:"KB/sec"`
	KBSecRX     *float64                     `json:"KB/sec RX"`
	KBSecTX     *float64                     `json:"KB/sec TX"`
	TimeSerie   map[string]memtierJSONSecond `json:"Time-Serie"`
	Percentiles map[string]json.RawMessage   `json:"Percentile Latencies"`
}

type memtierJSONSecond struct {
	Count      int64   `json:"Count"`
	AvgLatency float64 `json:"Average Latency"`
	MaxLatency float64 `json:"Max Latency"`
	P50        float64 `json:"p50.00"`
	P95        float64 `json:"p95.00"`
	P99        float64 `json:"p99.00"`
}

type memtierJSONRuntime struct {
	Start       *int64 `json:"Start time"`
	Finish      *int64 `json:"Finish time"`
	Duration    *int64 `json:"Total duration"`
	Unit        string `json:"Time unit"`
	Interrupted string `json:"Interrupted"`
}

// memtierSecretKeys are configuration entries never stored: memtier writes
// --authenticate (the password) and --uri (which may hold it) into its JSON.
var memtierSecretKeys = map[string]bool{"authenticate": true, "uri": true}

func parseMemtierJSON(name, text string) ([]*result.Run, error) {
	decode := func(raw []byte, v any, where string) error {
		if err := json.Unmarshal(raw, v); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return &ParseError{File: name, Msg: fmt.Sprintf("memtier JSON %s: %s is %s, not %s", where, te.Field, te.Value, te.Type)}
			}
			return &ParseError{File: name, Msg: fmt.Sprintf("memtier JSON %s: %v", where, err)}
		}
		return nil
	}
	var top map[string]json.RawMessage
	if err := decodeJSON(name, "memtier JSON", text, &top); err != nil {
		return nil, err
	}
	var cfg map[string]any
	if raw, ok := top["configuration"]; !ok {
		return nil, &ParseError{File: name, Msg: `memtier JSON without "configuration"`}
	} else if err := decode(raw, &cfg, `"configuration"`); err != nil {
		return nil, err
	}
	var info map[string]int64
	if raw, ok := top["run information"]; !ok {
		return nil, &ParseError{File: name, Msg: `memtier JSON without "run information": the run did not finish`}
	} else if err := decode(raw, &info, `"run information"`); err != nil {
		return nil, err
	}
	if info["Threads"] <= 0 || info["Connections per thread"] <= 0 {
		return nil, &ParseError{File: name, Msg: `memtier JSON "run information" without Threads and Connections per thread`}
	}
	if _, ok := cfg["clients_start"]; ok {
		return nil, &ParseError{File: name, Msg: "memtier ran in step mode (--clients-start): one section per step is not supported; run one memtier per client count"}
	}
	var single, aggregate string
	individual := map[int]string{}
	for k := range top {
		switch {
		case k == "configuration", k == "run information", k == "client verifications results":
		case k == "ALL STATS":
			single = k
		case k == "BEST RUN RESULTS", k == "WORST RUN RESULTS":
		case strings.HasPrefix(k, "AGGREGATED AVERAGE RESULTS ("):
			aggregate = k
		default:
			m := match(memtierRunSection, k)
			if m == nil {
				return nil, &ParseError{File: name, Msg: fmt.Sprintf("unknown section %q in memtier JSON", k)}
			}
			n, _ := strconv.Atoi(m[1])
			individual[n] = k
		}
	}
	var chosen []string
	switch {
	case len(individual) > 0:
		nums := make([]int, 0, len(individual))
		for n := range individual {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			chosen = append(chosen, individual[n])
		}
	case single != "":
		chosen = []string{single}
	case aggregate != "":
		chosen = []string{aggregate}
	default:
		return nil, &ParseError{File: name, Msg: `memtier JSON without results ("ALL STATS" or "AGGREGATED AVERAGE RESULTS"): the run did not finish`}
	}
	var runs []*result.Run
	for _, sec := range chosen {
		var body map[string]json.RawMessage
		if err := decode(top[sec], &body, fmt.Sprintf("%q", sec)); err != nil {
			return nil, err
		}
		r, err := memtierJSONRun(name, sec, body, cfg, info, decode, len(individual) > 0)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// memtierJSONSection is one results section of a memtier JSON (ALL STATS,
// a RUN #k, or the aggregate), read into a run.
type memtierJSONSection struct {
	file, sec string
	body      map[string]json.RawMessage
	decode    func([]byte, any, string) error
}

// bad is an error about the section.
func (j *memtierJSONSection) bad(format string, args ...any) error {
	return &ParseError{File: j.file, Msg: fmt.Sprintf("memtier JSON %q: ", j.sec) + fmt.Sprintf(format, args...)}
}

// readOp decodes the object of an op (or Totals), refusing one without the
// fields a run needs.
func (j *memtierJSONSection) readOp(k string) (memtierJSONOp, error) {
	var o memtierJSONOp
	raw, ok := j.body[k]
	if !ok {
		return o, j.bad("no %q", k)
	}
	if err := j.decode(raw, &o, fmt.Sprintf("%q %s", j.sec, k)); err != nil {
		return o, err
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{{"Count", o.Count != nil}, {"Ops/sec", o.OpsSec != nil}, {"Accumulated Latency", o.AccLatency != nil},
		{"Percentile Latencies", o.Percentiles != nil}} {
		if !f.ok {
			return o, j.bad("%s without %q", k, f.name)
		}
	}
	return o, nil
}

// opNames are the section's objects other than Runtime and Totals, in
// memtier's order (set, get, wait, then commands as their keys sort).
func (j *memtierJSONSection) opNames() []string {
	var names []string
	for k, raw := range j.body {
		if k == "Runtime" || k == "Totals" || len(raw) == 0 || raw[0] != '{' {
			continue // the arrays are the printed distribution; the histograms are read instead
		}
		names = append(names, k)
	}
	order := map[string]int{"Sets": 0, "Gets": 1, "Waits": 2}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	return names
}

// memtierJSONOps is what the op objects of a section add up to.
type memtierJSONOps struct {
	merged    *hdr.Histogram
	kb        float64 // the ops' KB/sec
	arbitrary bool    // an op is a --command, not set, get or wait
}

// ops reads the ops with traffic into r.Ops and the summary's count.
func (j *memtierJSONSection) ops(r *result.Run, names []string) (memtierJSONOps, error) {
	all := memtierJSONOps{merged: hist.New()}
	s := &r.Summary
	for _, k := range names {
		o, err := j.readOp(k)
		if err != nil {
			return all, err
		}
		if o.KBSec != nil {
			all.kb += *o.KBSec
		}
		if *o.Count == 0 {
			continue
		}
		op := result.Op{Name: memtierOp(k), Count: *o.Count}
		if !memtierStd[op.Name] {
			all.arbitrary = true
		}
		h, err := memtierHistogram(o.Percentiles)
		if err != nil {
			return all, j.bad("%s: %v", k, err)
		}
		if h.TotalCount() != op.Count {
			return all, j.bad("%s: its histogram holds %d latencies, its Count says %d", k, h.TotalCount(), op.Count)
		}
		op.Histogram = encode(h)
		all.merged.Merge(h)
		if o.ConnErrors != nil && *o.ConnErrors > 0 {
			op.Errors = map[result.ErrorClass]int64{result.ErrConnection: *o.ConnErrors}
		}
		s.Transactions += op.Count
		r.Ops = append(r.Ops, op)
	}
	return all, nil
}

// timing sets the run's duration, start and series from Runtime and Totals'
// Time-Serie; the aggregate has neither, its duration follows from its
// throughput.
func (j *memtierJSONSection) timing(r *result.Run, rt memtierJSONRuntime, totals memtierJSONOp, agg bool) error {
	if agg {
		// memtier has no duration for the aggregate: the one that gives its
		// throughput (mean of the runs' rates) from the summed counts.
		r.Duration = time.Duration(float64(r.Summary.Transactions) / r.Summary.Throughput * float64(time.Second))
		return nil
	}
	if rt.Duration == nil || rt.Start == nil {
		return j.bad(`Runtime without "Start time" and "Total duration"`)
	}
	if rt.Unit != "MILLISECONDS" {
		return j.bad("Runtime in %q, expected MILLISECONDS", rt.Unit)
	}
	r.Duration = time.Duration(*rt.Duration) * time.Millisecond
	if *rt.Start > 0 {
		r.StartedAt = time.UnixMilli(*rt.Start).UTC()
	}
	series, err := memtierSeries(totals.TimeSerie, r.Duration)
	if err != nil {
		return j.bad("Totals Time-Serie: %v", err)
	}
	r.Series = series
	return nil
}

func memtierJSONRun(name, sec string, body map[string]json.RawMessage, cfg map[string]any, info map[string]int64,
	decode func([]byte, any, string) error, individual bool) (*result.Run, error) {
	j := &memtierJSONSection{file: name, sec: sec, body: body, decode: decode}
	agg := strings.HasPrefix(sec, "AGGREGATED")
	threads, conns := info["Threads"], info["Connections per thread"]
	r := &result.Run{Workload: "memtier_benchmark", Kind: "kv", Params: map[string]any{}, Clients: int(threads * conns)}
	tool := map[string]any{"threads": threads, "connections_per_thread": conns, "section": sec}
	clean := map[string]any{}
	for k, v := range cfg {
		if !memtierSecretKeys[k] {
			clean[k] = v
		}
	}
	r.Env.Extra = map[string]any{"tool": tool, "memtier": map[string]any{"configuration": clean}}
	var rt memtierJSONRuntime
	if raw, ok := body["Runtime"]; !ok {
		return nil, j.bad(`no "Runtime"`)
	} else if err := decode(raw, &rt, fmt.Sprintf("%q Runtime", sec)); err != nil {
		return nil, err
	}
	names := j.opNames()
	totals, err := j.readOp("Totals")
	if err != nil {
		return nil, err
	}
	s := &r.Summary
	s.Throughput = *totals.OpsSec
	ops, err := j.ops(r, names)
	if err != nil {
		return nil, err
	}
	if len(r.Ops) == 0 {
		return nil, j.bad("no operation with a count above 0: memtier measured nothing")
	}
	if s.Transactions != *totals.Count {
		return nil, j.bad("the operations count %d, Totals says %d", s.Transactions, *totals.Count)
	}
	// The mean from the accumulated latency: Totals' own average is
	// truncated to whole milliseconds.
	s.LatencyMean = *totals.AccLatency * 1000 / float64(*totals.Count)
	if agg {
		// The aggregate's Totals has no latency at all (0 accumulated, an
		// empty histogram): the mean is the ops' accumulated latencies.
		var acc float64
		for _, k := range names {
			o, _ := j.readOp(k)
			acc += *o.AccLatency
		}
		s.LatencyMean = acc * 1000 / float64(s.Transactions)
		n, _ := cfg["run_count"].(float64)
		tool["run_count"] = int64(n)
	}
	fillFromHist(s, ops.merged)
	if !agg && totals.MinLatency != nil {
		s.LatencyMin = *totals.MinLatency * 1000
	}
	if err := j.timing(r, rt, totals, agg); err != nil {
		return nil, err
	}
	if rt.Interrupted == "true" {
		r.Deviations = append(r.Deviations, "memtier was interrupted (Ctrl-C) before the end of its run")
	}
	if totals.ConnErrors != nil && *totals.ConnErrors > 0 {
		r.Deviations = append(r.Deviations, fmt.Sprintf("%d connection errors during the run (memtier's Connection Errors)", *totals.ConnErrors))
	}
	memtierJSONExtra(r, totals, ops)
	memtierParams(r, cfg, ops.arbitrary)
	r.Deviations = append(r.Deviations, memtierJSONDeviations(agg, individual, tool["run_count"])...)
	return r, nil
}

// memtierJSONExtra puts Totals' hits, misses and byte rates into the
// summary; a --command run's hits and misses mean nothing.
func memtierJSONExtra(r *result.Run, totals memtierJSONOp, ops memtierJSONOps) {
	row := memtierRow{vals: map[string]float64{}}
	for k, p := range map[string]*float64{"Hits/sec": totals.HitsSec, "Misses/sec": totals.MissesSec, "MOVED/sec": totals.MovedSec,
		"ASK/sec": totals.AskSec, "KB/sec": totals.KBSec} {
		if p != nil {
			row.vals[k] = *p
		}
	}
	if ops.arbitrary {
		delete(row.vals, "Hits/sec")
		delete(row.vals, "Misses/sec")
	}
	memtierExtra(r, row, ops.kb)
	if !ops.arbitrary && totals.KBSecRX != nil && totals.KBSecTX != nil {
		r.Summary.Extra["kb_per_sec_rx"], r.Summary.Extra["kb_per_sec_tx"] = *totals.KBSecRX, *totals.KBSecTX
	}
}

// memtierJSONDeviations are what a run read from a JSON section says of how
// its numbers were read.
func memtierJSONDeviations(agg, individual bool, runCount any) []string {
	var d []string
	if !agg {
		d = append(d, "mean latency is memtier's Accumulated Latency ÷ Count: its JSON's Totals Average Latency is truncated to whole milliseconds")
	}
	d = append(d, "latency histograms are memtier's own (HdrHistogram at 2 significant digits), each bucket counted at its upper edge")
	if agg {
		d = append(d, fmt.Sprintf("memtier ran %v runs (--run-count) and printed no individual run (--print-all-runs does): this is its AGGREGATED AVERAGE section, counts summed over the runs and throughput the mean of their rates; BEST RUN and WORST RUN are ignored (memtier 2.3.0 reports run 1 as both); the aggregate's Totals percentiles are not used (its Totals histogram is empty), the percentiles come from the commands' pooled histograms", runCount))
	} else if individual {
		d = append(d, memtierEachRun)
	}
	return d
}

// memtierHistogram decodes memtier's "Compressed Histogram" (HdrHistogram
// log format, µs) into a fairbench histogram: each of memtier's buckets is
// recorded at its upper edge, the value memtier's own percentiles report.
func memtierHistogram(pcts map[string]json.RawMessage) (*hdr.Histogram, error) {
	raw, ok := pcts["Histogram log format"]
	if !ok {
		return nil, errors.New(`"Percentile Latencies" without "Histogram log format"`)
	}
	var f struct {
		Compressed *string `json:"Compressed Histogram"`
	}
	if err := json.Unmarshal(raw, &f); err != nil || f.Compressed == nil {
		return nil, errors.New(`no "Compressed Histogram"`)
	}
	src, err := hist.Decode([]byte(*f.Compressed))
	if err != nil {
		return nil, err
	}
	h := hist.New()
	for _, b := range src.Distribution() {
		if b.Count > 0 {
			if err := h.RecordValues(usValue(float64(b.To)), b.Count); err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

// memtierSeries reads Totals' Time-Serie: second "0" is the first second of
// the run, stored as t=1 (the end of its interval); the last entry holds the
// operations after the last full second, its rate taken over what is left of
// the run's duration d.
func memtierSeries(ts map[string]memtierJSONSecond, d time.Duration) ([]result.SeriesPoint, error) {
	secs := make([]int, 0, len(ts))
	for k := range ts {
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("second %q is not a number", k)
		}
		secs = append(secs, n)
	}
	sort.Ints(secs)
	var out []result.SeriesPoint
	for _, n := range secs {
		p := ts[strconv.Itoa(n)]
		if p.Count < 0 {
			return nil, fmt.Errorf("second %d: count %d", n, p.Count)
		}
		rate := float64(p.Count)
		if left := d.Seconds() - float64(n); left > 0 && left < 1 {
			rate = float64(p.Count) / left
		}
		out = append(out, result.SeriesPoint{Second: n + 1, Ops: p.Count, Rate: rate,
			Mean: p.AvgLatency * 1000, P50: p.P50 * 1000, P95: p.P95 * 1000, P99: p.P99 * 1000, Max: p.MaxLatency * 1000})
	}
	return out, nil
}

// memtierParams maps memtier's configuration (its JSON's names, which are
// mostly the kv parameters') to the kv parameters a study cell gives.
func memtierParams(r *result.Run, cfg map[string]any, arbitrary bool) {
	num := func(k string) (float64, bool) { v, ok := cfg[k].(float64); return v, ok }
	str := func(k string) (string, bool) { v, ok := cfg[k].(string); return v, ok }
	p := r.Params
	if !arbitrary {
		// --command runs print the default ratio, which they do not use,
		// and not the commands they ran.
		if v, ok := str("ratio"); ok {
			p[kvparams.Ratio] = v
		}
	}
	if v, ok := num("pipeline"); ok {
		p[kvparams.Pipeline] = int64(v)
		p[kvparams.PipelineMode] = kvparams.Window // memtier's only kind of pipeline
	}
	if v, ok := str("pipeline_mode"); ok { // fairbench's memtier JSON of a batch run
		p[kvparams.PipelineMode] = v
	}
	if v, ok := str("data_size_range"); ok && v != "0:0" {
		p[kvparams.DataSizeRange] = strings.Replace(v, ":", "-", 1)
	} else if v, ok := num("data_size"); ok {
		p[kvparams.DataSize] = int64(v)
	}
	pattern, _ := str("key_pattern")
	if pattern != "" {
		p[kvparams.KeyPattern] = pattern
	}
	for json, name := range map[string]string{"key_minimum": kvparams.KeyMinimum, "key_maximum": kvparams.KeyMaximum, "requests": kvparams.Requests} {
		if v, ok := num(json); ok && (name != kvparams.Requests || v > 0) {
			p[name] = int64(v)
		}
	}
	if v, ok := str("key_prefix"); ok {
		p[kvparams.KeyPrefix] = v
	}
	for json, name := range map[string]string{"key_stddev": kvparams.KeyStddev, "key_median": kvparams.KeyMedian} {
		if v, ok := num(json); ok && v > 0 {
			p[name] = v
		}
	}
	if strings.Contains(pattern, "Z") {
		v, _ := num("key_zipf_exp")
		if v == 0 {
			v = 1 // memtier's default when the pattern asks for Zipf
		}
		p[kvparams.KeyZipfExp] = v
	}
	if v, ok := num("rate_limit"); ok && v > 0 {
		r.Summary.TargetRate = v * float64(r.Clients)
	}
}

// completeMemtier names what a text output cannot tell: the pipeline depth
// and value size (memtier's JSON records them), and for --command runs the
// commands (neither output records them).
func completeMemtier(r *result.Run) error {
	var need []string
	if _, ok := r.Params[kvparams.PipelineMode]; !ok {
		r.Params[kvparams.PipelineMode] = kvparams.Window // memtier's only kind of pipeline
	}
	if _, ok := r.Params[kvparams.Pipeline]; !ok {
		need = append(need, "--pipeline N (memtier's default is 1)")
	}
	arbitrary := false
	for _, op := range r.Ops {
		if !memtierStd[op.Name] {
			arbitrary = true
		}
	}
	if arbitrary {
		if _, ok := r.Params[kvparams.Command]; !ok {
			need = append(need, `--set command="INCR __key__" (the --command memtier ran: its outputs name only the command's type)`)
		}
	} else {
		_, size := r.Params[kvparams.DataSize]
		_, sizes := r.Params[kvparams.DataSizeRange]
		if !size && !sizes {
			need = append(need, "--data-size N (memtier's default is 32)")
		}
	}
	if len(need) > 0 {
		return fmt.Errorf("the memtier_benchmark output does not say: give %s, or import its --json-out-file, which records the pipeline and value size", strings.Join(need, " and "))
	}
	return nil
}

// attachMemtierLogDir replaces the run parsed from a study cell's text
// output by the one its --json-out-file holds (Build writes it into dir):
// exact counts, memtier's own histograms and a per-second series.
func attachMemtierLogDir(runs []*result.Run, dir string) error {
	if len(runs) != 1 {
		return fmt.Errorf("memtier's JSON needs exactly one memtier_benchmark run to replace, got %d", len(runs))
	}
	path := filepath.Join(dir, memtierJSONFile)
	b, err := boundfile.Read(path, maxOutput, "memtier_benchmark's JSON")
	if err != nil {
		return fmt.Errorf("memtier_benchmark wrote no JSON (--json-out-file): %w", err)
	}
	jr, err := parseMemtierJSON(path, string(b))
	if err != nil {
		return err
	}
	if len(jr) != 1 {
		return fmt.Errorf("%s: %d runs, expected 1", path, len(jr))
	}
	if err := validRun(path, jr[0]); err != nil {
		return err
	}
	if t := runs[0].Summary.Transactions; t > 0 && jr[0].Summary.Transactions != t && !estimated(runs[0]) {
		return fmt.Errorf("%s: %d operations, memtier's output says %d", path, jr[0].Summary.Transactions, t)
	}
	*runs[0] = *jr[0]
	return nil
}

// estimated reports whether a text run's counts are estimates (no progress
// lines were read), which a JSON run need not match exactly.
func estimated(r *result.Run) bool {
	for _, d := range r.Deviations {
		if strings.Contains(d, "configured --test-time") {
			return true
		}
	}
	return false
}
