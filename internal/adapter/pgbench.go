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

var pgbenchTool = &Tool{
	Name:         "pgbench",
	Kind:         "tpcb",
	Build:        buildPgbench,
	Install:      "apt-get install postgresql-contrib",
	Detect:       detectPgbench,
	Once:         regexp.MustCompile(`(?m)^transaction type: `),
	Parse:        parsePgbench,
	IsLog:        isPgbenchLog,
	AttachLogs:   attachPgbenchLogs,
	AttachLogDir: attachPgbenchLogDir,
	ImportFlags: []ImportFlag{
		paramFlag("scale", "s", tpcbparams.Specs(), tpcbparams.Scale, "scaling factor (pgbench -s)"),
		paramFlag("mode", "", tpcbparams.Specs(), tpcbparams.Mode, "the builtin script: tpcb-like, simple-update or select-only"),
		paramFlag("protocol", "M", tpcbparams.Specs(), tpcbparams.QueryMode, "query mode (pgbench -M): simple, extended or prepared"),
	},
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

func parsePgbench(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parsePgbenchLines)
}

func parsePgbenchLines(l *lines) ([]*result.Run, error) {
	name, text := l.file, l.text
	_, _ = name, text
	r := &result.Run{Workload: "pgbench", Kind: "tpcb", Params: map[string]any{}}
	facts := map[string]any{}
	tool := map[string]any{} // what the output says that is not a tpcb parameter
	s := &r.Summary
	var (
		seen        = map[string]bool{}
		prevT       float64
		statements  []any
		stmtRe      *regexp.Regexp
		inSummary   bool
		inScripts   bool
		failures    = map[result.ErrorClass]int64{}
		detailedErr bool
		txType      string
	)
	vacuum := false
	for {
		line, ok := l.next()
		if !ok {
			break
		}
		t := strings.TrimRight(line, " \t")
		if t == "" {
			continue
		}
		if m := match(pgbenchVersion, t); m != nil && !inSummary {
			client, server, ok := strings.Cut(m[1], ", server ")
			r.ToolVersion = "pgbench " + client
			if ok {
				facts["server version"] = server
			}
			continue
		}
		if pgbenchClientAborted.MatchString(t) {
			return nil, l.errorf("a pgbench client aborted (%s): the run went on with fewer clients and its numbers are incomplete", t)
		}
		if t == "starting vacuum...end." {
			vacuum = true
			continue
		}
		if strings.HasPrefix(t, "starting vacuum...") || strings.HasPrefix(t, "pgbench: ") ||
			strings.HasPrefix(t, "NOTICE: ") || strings.HasPrefix(t, "WARNING: ") || strings.HasPrefix(t, "client ") {
			// Messages pgbench and the server print during the run (2>&1).
			if strings.Contains(t, "Run was aborted") {
				return nil, l.errorf("pgbench reports the run as aborted; its numbers are incomplete")
			}
			continue
		}
		if t == "Run was aborted; the above results are incomplete." {
			return nil, l.errorf("pgbench reports the run as aborted; its numbers are incomplete")
		}
		if strings.HasPrefix(t, "progress: ") {
			if inSummary {
				return nil, l.errorf("progress line after the summary started")
			}
			m := match(pgbenchProgress, t)
			if m == nil {
				return nil, l.errorf("unreadable pgbench progress line")
			}
			at, _ := l.num(m[1], "progress time")
			tps, _ := l.num(m[2], "progress tps")
			lat, _ := l.num(m[3], "progress latency")
			pt := result.SeriesPoint{Second: int(math.Round(at)), Rate: tps, Mean: lat * 1000}
			pt.Ops = int64(math.Round(tps * (at - prevT)))
			prevT = at
			if m[5] != "" {
				pt.Errors, _ = l.integer(m[5], "failed")
			}
			r.Series = append(r.Series, pt)
			continue
		}
		if inScripts {
			// Per-script sections of runs with several scripts: the totals
			// above already hold what fairbench stores.
			// Their lines are "SQL script N: ...", " - ..." and, with -r,
			// the script's statement lines.
			if strings.HasPrefix(t, "SQL script ") || strings.HasPrefix(t, " - ") ||
				(statements == nil && match(pgbenchStmt[""], t) != nil) {
				continue
			}
		}
		if statements != nil || pgbenchStmtHead.MatchString(t) {
			if h := match(pgbenchStmtHead, t); h != nil {
				statements = []any{}
				stmtRe = pgbenchStmt[h[1]]
				continue
			}
			m := match(stmtRe, line)
			if m == nil {
				if strings.HasPrefix(t, "SQL script ") {
					inScripts = true
					continue
				}
				return nil, l.errorf("unreadable statement latency line")
			}
			lat, err := l.signed(m[1], "statement latency")
			if err != nil {
				return nil, err
			}
			st := map[string]any{"latency_ms": lat, "command": strings.TrimSpace(m[4])}
			if m[2] != "" {
				st["failures"], _ = l.integer(m[2], "statement failures")
			}
			if m[3] != "" {
				st["retries"], _ = l.integer(m[3], "statement retries")
			}
			statements = append(statements, st)
			continue
		}
		if m := match(pgbenchEq, t); m != nil {
			inSummary = true
			v, err := l.num(m[2], m[1])
			if err != nil {
				return nil, err
			}
			switch m[1] {
			case "latency average":
				s.LatencyMean = v * 1000
				if m[3] == "including failures" {
					// pgbench 15+ without -r/-P/--latency-limit computes the
					// average from the duration, failures included.
					r.Deviations = append(r.Deviations, "pgbench's latency average includes failed transactions (it was derived from the run time, not measured per transaction)")
				}
			case "latency stddev":
				s.LatencyStddev = v * 1000
			case "initial connection time":
				s.ConnectTimeMean = v
			case "tps":
				switch m[3] {
				case "without initial connection time", "excluding connections establishing":
					s.Throughput = v
				case "including connections establishing":
					// pgbench 11–13 print both; the excluding one is comparable to
					// what later versions and fairbench report.
					facts["tps including connections establishing"] = v
				default:
					return nil, l.errorf("unknown tps line")
				}
				seen["tps"] = true
			}
			seen[m[1]] = true
			continue
		}
		if m := match(pgbenchLag, t); m != nil {
			s.LagMean, _ = l.num(m[1], "lag")
			s.LagMax, _ = l.num(m[2], "lag max")
			s.LagMean *= 1000
			s.LagMax *= 1000
			continue
		}
		if m := match(pgbenchAbove, t); m != nil {
			limit, _ := l.num(m[1], "latency limit")
			tool["latency_limit"] = time.Duration(limit * float64(time.Millisecond)).String()
			n, _ := l.integer(m[2], "late transactions")
			s.LateStarts = n
			facts["transactions above the latency limit"] = n
			continue
		}
		m := match(pgbenchKV, t)
		if m == nil {
			return nil, l.errorf("unexpected line in pgbench output")
		}
		key, val := m[1], strings.TrimSpace(m[2])
		inSummary = true
		switch key {
		case "transaction type":
			txType = val
			facts[key] = val
			if mode, ok := pgbenchModes[val]; ok {
				r.Params[tpcbparams.Mode] = mode
			} else {
				// A custom script (-f) or several (-b/-f with weights): not
				// comparable with tpcb, so its own kind.
				r.Kind = "pgbench-script"
				r.Params["script"] = val
				if val == "multiple scripts" {
					inScripts = true
				}
			}
		case "scaling factor":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			r.Params[tpcbparams.Scale] = n
			facts[key] = val
		case "query mode":
			r.Params[tpcbparams.QueryMode] = val
			facts[key] = val
		case "number of clients":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			r.Clients = int(n)
		case "number of threads":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			tool["threads"] = n
		case "maximum number of tries":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			tool["max_tries"] = n
		case "maximum time of tries":
			facts[key] = val
		case "duration":
			d, ok := strings.CutSuffix(val, " s")
			if !ok {
				return nil, l.errorf("duration %q is not in seconds", val)
			}
			n, err := l.integer(d, key)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return nil, l.badf("duration 0 s: pgbench -T runs for at least a second")
			}
			r.Duration = time.Duration(n) * time.Second
		case "number of transactions per client":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			tool["transactions_per_client"] = n
		case "number of transactions actually processed":
			// "892", or "1000/1000" with -t.
			done, _, _ := strings.Cut(val, "/")
			n, err := l.integer(done, key)
			if err != nil {
				return nil, err
			}
			s.Transactions = n
		case "number of failed transactions":
			n, err := pgbenchCount(l, val, key)
			if err != nil {
				return nil, err
			}
			s.Failed = n
		case "number of serialization failures":
			n, err := pgbenchCount(l, val, key)
			if err != nil {
				return nil, err
			}
			failures[result.ErrSerialization] = n
			detailedErr = true
		case "number of deadlock failures":
			n, err := pgbenchCount(l, val, key)
			if err != nil {
				return nil, err
			}
			failures[result.ErrDeadlock] = n
			detailedErr = true
		case "number of transactions retried":
			n, err := pgbenchCount(l, val, key)
			if err != nil {
				return nil, err
			}
			s.Retried = n
		case "total number of retries":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			s.Retries = n
		case "number of transactions skipped":
			n, err := pgbenchCount(l, val, key)
			if err != nil {
				return nil, err
			}
			s.Skipped = n
		default:
			return nil, l.errorf("unknown pgbench summary line %q", key)
		}
		seen[key] = true
	}

	for _, need := range []string{"transaction type", "number of clients", "number of transactions actually processed", "latency average", "tps"} {
		if !seen[need] {
			return nil, l.missing(fmt.Sprintf("%q line", need))
		}
	}
	if txType == "" {
		return nil, l.missing("transaction type")
	}
	// -r lists every statement of the script: a builtin script's list cut
	// short is a truncated output.
	if want, ok := pgbenchBuiltinStatements[txType]; ok && statements != nil && len(statements) != want {
		return nil, l.missing(fmt.Sprintf("statement latencies of all %d statements of %s (%d read)", want, txType, len(statements)))
	}
	if _, ok := tool["max_tries"]; !ok {
		tool["max_tries"] = int64(1)
	}
	if r.Kind == "tpcb" {
		r.Params[tpcbparams.Vacuum] = vacuum
	}
	if r.Duration == 0 && s.Throughput > 0 {
		// -t runs: the measured time follows from count and rate.
		r.Duration = time.Duration(float64(s.Transactions) / s.Throughput * float64(time.Second))
	}
	if _, old := facts["tps including connections establishing"]; old && !seen["latency stddev"] {
		// pgbench 11–13 without -P, -R or -L measure no latencies and print
		// clients / tps including connections establishing as the average.
		r.Deviations = append(r.Deviations, "pgbench's latency average includes connection establishment (pgbench 13 and older derive it from the whole run time when they measure no latencies: without -P, -R or -L)")
	}
	if tool["latency_limit"] != nil || s.LagMax > 0 || s.Skipped > 0 {
		r.Deviations = append(r.Deviations, "rate-limited run (-R): the target rate is not in pgbench's output; pass --set rate=N to record it")
	}
	errs := map[result.ErrorClass]int64{}
	if s.Failed > 0 {
		if detailedErr {
			var sum int64
			for c, n := range failures {
				if n > 0 {
					errs[c] = n
				}
				sum += n
			}
			if other := s.Failed - sum; other > 0 {
				errs[result.ErrOther] = other
			}
		} else {
			// Without --failures-detailed pgbench only retries (and so only
			// counts as failed) serialization and deadlock errors, without
			// saying which: they are stored under serialization.
			errs[result.ErrSerialization] = s.Failed
			r.Deviations = append(r.Deviations, "failed transactions counted as serialization failures: pgbench ran without --failures-detailed and did not say which of serialization or deadlock")
		}
	}
	op := result.Op{Name: opName(r), Count: s.Transactions, Errors: errs}
	r.Ops = []result.Op{op}
	r.Env.Extra = map[string]any{"workload": facts, "tool": tool}
	if len(statements) > 0 {
		r.Env.Extra["statements"] = statements
	}
	r.Deviations = append(r.Deviations, "no latency distribution: pgbench prints only mean and stddev; percentiles need its -l per-transaction logs imported alongside")
	return []*result.Run{r}, nil
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
