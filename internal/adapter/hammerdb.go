package adapter

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// HammerDB 4.12 TPROC-C (TPC-Council/HammerDB), the output of hammerdbcli
// running a timed driver script (dbset db pg|mysql; diset tpcc …_driver
// timed; vurun), saved with 2>&1. One run per output:
//
//   - "Vuser 1:TEST RESULT : System achieved N NOPM from M <engine> TPM" (or
//     HammerDB's TPM-first form) is the headline: NOPM, HammerDB's New-Orders
//     per minute from the districts' next order ids, as tpccparams.Headline
//     defines it; Summary.Extra[new_orders] = NOPM × the measured minutes and
//     Extra[server_transactions] = TPM × minutes (TPM is the engine's own
//     commits and rollbacks). The throughput is TPM / 60, the server's
//     transactions per second, not the client's;
//   - "N Active Virtual Users configured" is the clients; "Beginning rampup
//     time of R minutes" the warm-up, "Timing test period of D in minutes"
//     the measured duration; the diset echoes ("Value … for tpcc:pg_count_ware
//     …", "Changed tpcc:… from … to …") give warehouses, all_warehouses and
//     keying_thinking (passwords, which diset echoes too, are not kept).
//     HammerDB runs every transaction as a stored procedure or function:
//     implementation = procedures, unless mysql_no_stored_procs is true;
//   - with the time profile on (…_timeprofile true), the per-transaction
//     figures come from hdbxtprofile.log saved beside the output (IsLog,
//     AttachLogs): each virtual user's CALLS summed, and the summary's
//     MIN/P50/P95/P99/MAX for a histogram reconstructed from them; or, when
//     the output holds it, from the job's timing ("jobs JOBID timing", JSON).
//
// HammerDB 4.12's defects, worked around and named in the deviations: its
// time-profile SUMMARY counts every call twice when the job database is on
// (xtprof appends each virtual user's samples to the summary list in both of
// its loops), so its CALLS and TOTAL are doubled (its percentiles, minimum,
// maximum and mean are not changed by the duplication). The time profile
// covers each virtual user's whole run, ramp-up included, not the measured
// period alone.

// hammerdbTool is hammerdb as registered, which the package's tests name.
var hammerdbTool *Tool

func init() {
	hammerdbTool = Register(Tool{
		Name:         "hammerdb",
		Kind:         tpccKind,
		DetectOrder:  90,
		Formats:      "HammerDB 4.12 hammerdbcli timed-run output (hdbxtprofile.log alongside)",
		Detect:       regexp.MustCompile(`(?m)(System achieved \d+ NOPM from \d+ .* TPM|Vuser \d+:TEST RESULT|^HammerDB CLI v\d)`).MatchString,
		Once:         regexp.MustCompile(`(?m)^Vuser \d+:TEST RESULT : `),
		Parse:        parseHammerDB,
		ParseReader:  streamed(parseHammerDBLines),
		IsLog:        isHammerDBProfile,
		AttachLogs:   attachHammerDBProfile,
		Build:        buildHammerDB,
		Load:         loadHammerDB,
		Install:      hammerdbInstall,
		Binary:       "hammerdbcli",
		AttachLogDir: attachHammerDBLogDir,
		OwnWarmup:    true,
	})
}

var (
	hdbResult   = regexp.MustCompile(`^Vuser (\d+):TEST RESULT : System achieved (?:(\S+) NOPM from (\S+) (\S+) TPM|(\S+) (\S+) TPM at (\S+) NOPM)$`)
	hdbVUs      = regexp.MustCompile(`^Vuser \d+:(\S+) Active Virtual Users configured$`)
	hdbRampup   = regexp.MustCompile(`^Vuser \d+:Beginning rampup time of (\S+) minutes$`)
	hdbDuration = regexp.MustCompile(`^Vuser \d+:Timing test period of (\S+) in minutes$`)
	hdbVersion  = regexp.MustCompile(`^HammerDB CLI (v\S+)$`)
	hdbDBVer    = regexp.MustCompile(`^Vuser \d+:DBVersion:(.+)$`)
	hdbSame     = regexp.MustCompile(`^Value (.*) for tpcc:(\w+) is the same as existing value .*, no change made$`)
	hdbChanged  = regexp.MustCompile(`^Changed tpcc:(\w+) from .* to (.*) for \S+$`)
	hdbFailed   = regexp.MustCompile(`^Vuser (\d+):FINISHED FAILED`)
	hdbJobTime  = regexp.MustCompile(`^JOB TIMING:$`)
	hdbJobRes   = regexp.MustCompile(`^JOB RESULT:$`)
)

// hdbProcs maps HammerDB's procedure names to the tpcc kind's op types.
var hdbProcs = map[string]string{
	"NEWORD":   tpccparams.NewOrder,
	"PAYMENT":  tpccparams.Payment,
	"OSTAT":    tpccparams.OrderStatus,
	"DELIVERY": tpccparams.Delivery,
	"SLEV":     tpccparams.StockLevel,
}

const hdbDoubledNote = "HammerDB 4.12's time-profile summary counts every call twice with its job database on (xtprof appends each virtual user's samples to the summary in two loops): its CALLS and TOTAL are halved here; its percentiles, minimum, maximum and mean are unaffected"

const hdbProfileNote = "HammerDB's time profile covers each virtual user's whole run, ramp-up included: the op counts and latencies are not the measured period's alone (the headline is)"

func parseHammerDB(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseHammerDBLines)
}

// hammerdbParse is the state of a hammerdbcli output being read.
type hammerdbParse struct {
	l                                   *lines
	r                                   *result.Run
	env                                 map[string]any
	settings                            map[string]string
	nopm, tpm                           float64
	engine                              string
	haveResult, haveDuration, jobResult bool
	timing                              *hdbTiming
}

// hammerdbRules are the lines of a hammerdbcli output fairbench reads,
// trimmed, in the order they are tried; the script's other lines are skipped.
var hammerdbRules = []lineRule[*hammerdbParse]{
	{re: hdbResult, handle: (*hammerdbParse).testResult},
	{re: hdbVUs, handle: (*hammerdbParse).virtualUsers},
	{re: hdbRampup, handle: (*hammerdbParse).rampup},
	{re: hdbDuration, handle: (*hammerdbParse).testPeriod},
	{re: hdbFailed, handle: func(p *hammerdbParse, m []string) error {
		return p.l.errorf("virtual user %s failed: its transactions are missing from the result", m[1])
	}},
	{re: hdbVersion, handle: func(p *hammerdbParse, m []string) error { p.r.ToolVersion = "hammerdb " + m[1]; return nil }},
	{re: hdbDBVer, handle: func(p *hammerdbParse, m []string) error { p.env["db_version"] = m[1]; return nil }},
	{re: hdbSame, handle: func(p *hammerdbParse, m []string) error { p.settings[m[2]] = hdbSetting(m[2], m[1]); return nil }},
	{re: hdbChanged, handle: func(p *hammerdbParse, m []string) error { p.settings[m[1]] = hdbSetting(m[1], m[2]); return nil }},
	{re: hdbJobRes, handle: (*hammerdbParse).jobResultJSON},
	{re: hdbJobTime, handle: (*hammerdbParse).jobTimingJSON},
}

func parseHammerDBLines(l *lines) ([]*result.Run, error) {
	p := &hammerdbParse{
		l: l,
		r: &result.Run{Workload: tpccKind, Kind: tpccKind, ToolVersion: "hammerdb",
			Params: map[string]any{tpccparams.Implementation: tpccparams.Procedures}},
		env:      map[string]any{},
		settings: map[string]string{},
	}
	for t := range l.trimmed() {
		ok, err := applyRules(hammerdbRules, p, t)
		if err != nil {
			return nil, err
		}
		// After the job's result, the script prints only its timing JSON:
		// anything else there is not hammerdbcli's (two files pasted
		// together, an editor's stray text) and is not skipped silently.
		if !ok && p.jobResult && t != "" {
			return nil, l.errorf("%q after the JOB RESULT JSON: the script prints only JOB TIMING and its JSON there; the output is damaged or edited", clip(t))
		}
	}
	return p.finish()
}

func (p *hammerdbParse) testResult(m []string) error {
	l := p.l
	if p.haveResult {
		return l.errorf("a second TEST RESULT line")
	}
	p.haveResult = true
	a, b := m[2], m[3]
	p.engine = m[4]
	if m[2] == "" {
		a, b, p.engine = m[7], m[5], m[6]
	}
	n, err := l.integer(a, "NOPM")
	if err != nil {
		return err
	}
	tp, err := l.integer(b, "TPM")
	if err != nil {
		return err
	}
	p.nopm, p.tpm = float64(n), float64(tp)
	return nil
}

func (p *hammerdbParse) virtualUsers(m []string) error {
	n, err := p.l.integer(m[1], "active virtual users")
	if err != nil {
		return err
	}
	if n < 1 || n > maxClients {
		return p.l.badf("%d active virtual users is out of range (1 to %d)", n, maxClients)
	}
	p.r.Clients = int(n)
	return nil
}

func (p *hammerdbParse) rampup(m []string) error {
	f, err := p.l.num(m[1], "rampup minutes")
	if err != nil {
		return err
	}
	p.r.Warmup = time.Duration(f * float64(time.Minute))
	return nil
}

func (p *hammerdbParse) testPeriod(m []string) error {
	f, err := p.l.num(m[1], "test period minutes")
	if err != nil {
		return err
	}
	if f <= 0 {
		return p.l.badf("a test period of %s minutes", m[1])
	}
	p.r.Duration = time.Duration(f * float64(time.Minute))
	p.haveDuration = true
	return nil
}

func (p *hammerdbParse) jobResultJSON([]string) error {
	if p.jobResult {
		return p.l.errorf("a second JOB RESULT line")
	}
	p.jobResult = true
	return readHammerDBJobResult(p.l, p.env)
}

func (p *hammerdbParse) jobTimingJSON([]string) error {
	tm, err := readHammerDBJobTiming(p.l)
	if err != nil {
		return err
	}
	p.timing = tm
	return nil
}

// finish checks that the output was a timed run's and makes its run.
func (p *hammerdbParse) finish() ([]*result.Run, error) {
	l, r, env := p.l, p.r, p.env
	if !p.haveResult {
		return nil, l.missing("TEST RESULT line (hammerdbcli prints it at the end of a timed run)")
	}
	if !p.haveDuration {
		return nil, l.missing("\"Timing test period of N in minutes\" line (the timed driver's)")
	}
	if r.Clients == 0 {
		return nil, l.missing("\"Active Virtual Users configured\" line")
	}
	hdbSettingParams(r, p.settings)
	mins := r.Duration.Minutes()
	s := &r.Summary
	s.Extra = map[string]float64{tpccparams.NewOrders: p.nopm * mins, tpccparams.ServerTransactions: p.tpm * mins}
	s.Metric = &result.Metric{Headline: tpccparams.Headline, Value: p.nopm}
	s.Throughput = p.tpm / 60
	env["engine"] = p.engine
	env["nopm"], env["tpm"] = p.nopm, p.tpm
	if len(p.settings) > 0 {
		env["settings"] = p.settings
	}
	r.Env.Extra = map[string]any{"hammerdb": env}
	r.Deviations = append(r.Deviations, fmt.Sprintf("the throughput is HammerDB's TPM / 60 (%s's commits and rollbacks per second, the server's count), not the client's transactions", p.engine))
	if p.timing != nil {
		p.timing.apply(r, true)
	}
	return []*result.Run{r}, nil
}

// hdbSettingParams sets the run's parameters the diset values echoed tell.
func hdbSettingParams(r *result.Run, settings map[string]string) {
	for k, v := range settings {
		_, key, ok := strings.Cut(k, "_")
		if !ok {
			continue
		}
		switch key {
		case "count_ware":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				r.Params[tpccparams.Warehouses] = n
			}
		case "allwarehouse":
			r.Params[tpccparams.AllWarehouses] = v == "true"
		case "keyandthink":
			r.Params[tpccparams.KeyingThinking] = v == "true"
		case "no_stored_procs":
			if v == "true" {
				r.Params[tpccparams.Implementation] = tpccparams.Client
			}
		}
	}
}

// hdbSetting is a diset value as the run keeps it: passwords (pg_pass,
// pg_superuserpass, mysql_pass, …), which hammerdbcli echoes, are not kept.
func hdbSetting(key, value string) string {
	if strings.Contains(key, "pass") {
		return "(not kept)"
	}
	return value
}

// hdbProc is one procedure's time profile; times in ms.
type hdbProc struct {
	calls                          int64
	min, avg, max, total, p99, p95 float64
	p50, elapsed                   float64
}

// hdbTiming is a run's time profile: the summary over all virtual users,
// with the calls summed from the virtual users' own sections when known.
type hdbTiming struct {
	procs   map[string]*hdbProc // by op type
	doubled bool                // the summary's calls are twice the virtual users'
	source  string
}

func (tm *hdbTiming) apply(r *result.Run, fromOutput bool) {
	r.Ops = nil
	var all []quantile
	_ = all
	var total int64
	var sumMs float64
	for _, name := range tpccparams.Ops {
		p := tm.procs[name]
		if p == nil {
			continue
		}
		qs := []quantile{{50, p.p50 * 1000}, {95, p.p95 * 1000}, {99, p.p99 * 1000}}
		h := histFromPercentiles(qs, p.calls, p.min*1000, p.max*1000)
		r.Ops = append(r.Ops, result.Op{Name: name, Count: p.calls, Histogram: encode(h)})
		total += p.calls
		sumMs += p.avg * float64(p.calls)
	}
	r.Summary.Transactions = total
	if total > 0 {
		r.Summary.LatencyMean = sumMs * 1000 / float64(total)
	}
	devs := []string{hdbProfileNote, reconstructedNote + " (HammerDB's P50, P95, P99, minimum and maximum per transaction)"}
	if tm.doubled {
		devs = append(devs, hdbDoubledNote)
	}
	// Replace the notes of a profile read before (the output's JSON).
	var keep []string
	for _, d := range r.Deviations {
		if d != hdbProfileNote && d != hdbDoubledNote && !strings.HasPrefix(d, reconstructedNote) {
			keep = append(keep, d)
		}
	}
	r.Deviations = append(keep, devs...)
	if env, ok := r.Env.Extra["hammerdb"].(map[string]any); ok {
		env["time_profile"] = tm.source
	}
}

// readHammerDBJobResult reads the JSON list hammerdbcli prints for "jobs
// JOBID result" after its "JOB RESULT:" line: the job id, the time the job
// started and the lines of its result, which are kept with the run.
func readHammerDBJobResult(l *lines, env map[string]any) error {
	text, err := readJSONBlock(l, "JOB RESULT", '[', ']')
	if err != nil {
		return err
	}
	var job []string
	if err := json.Unmarshal([]byte(text), &job); err != nil {
		return l.errorf("JOB RESULT JSON: %v", err)
	}
	if len(job) < 2 {
		return l.errorf("JOB RESULT JSON has %d entries, not the job id and its start time", len(job))
	}
	env["job_id"], env["job_started"] = job[0], job[1]
	return nil
}

// readJSONBlock reads the JSON value that follows a "WHAT:" line, from the
// line with its opening bracket to the line that closes it.
func readJSONBlock(l *lines, what string, open, close byte) (string, error) {
	start := l.line()
	var b strings.Builder
	depth := 0
	for {
		raw, ok := l.next()
		if !ok {
			return "", &ParseError{File: l.file, Line: start, Msg: fmt.Sprintf("the %s JSON does not end: the output is truncated", what)}
		}
		if depth == 0 && strings.TrimSpace(raw) == "" && b.Len() == 0 {
			continue
		}
		if b.Len() == 0 && !strings.HasPrefix(strings.TrimSpace(raw), string(open)) {
			return "", l.errorf("%s is not followed by JSON (%q)", what, clip(strings.TrimSpace(raw)))
		}
		b.WriteString(raw)
		b.WriteByte('\n')
		depth += strings.Count(raw, string(open)) - strings.Count(raw, string(close))
		if depth <= 0 {
			return b.String(), nil
		}
	}
}

// readHammerDBJobTiming reads the JSON hammerdbcli prints for "jobs JOBID
// timing" after its "JOB TIMING:" line: the summary rows, whose calls are
// doubled (HammerDB stores them only with its job database on, which is what
// doubles them).
func readHammerDBJobTiming(l *lines) (*hdbTiming, error) {
	text, err := readJSONBlock(l, "JOB TIMING", '{', '}')
	if err != nil {
		return nil, err
	}
	var raw map[string]map[string]string
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, l.errorf("JOB TIMING JSON: %v", err)
	}
	tm := &hdbTiming{procs: map[string]*hdbProc{}, doubled: true, source: "job timing (JSON in the output)"}
	for proc, f := range raw {
		op, ok := hdbProcs[proc]
		if !ok {
			return nil, l.errorf("JOB TIMING: unknown procedure %q", proc)
		}
		var p hdbProc
		calls, err := l.integer(f["calls"], proc+" calls")
		if err != nil {
			return nil, err
		}
		if calls%2 != 0 {
			return nil, l.badf("JOB TIMING: %s calls %d is odd, but HammerDB 4.12's summary counts every call twice", proc, calls)
		}
		p.calls = calls / 2
		for _, x := range []struct {
			key string
			v   *float64
		}{{"min_ms", &p.min}, {"avg_ms", &p.avg}, {"max_ms", &p.max}, {"total_ms", &p.total}, {"p99_ms", &p.p99},
			{"p95_ms", &p.p95}, {"p50_ms", &p.p50}, {"elapsed_ms", &p.elapsed}} {
			if *x.v, err = l.num(f[x.key], proc+" "+x.key); err != nil {
				return nil, err
			}
		}
		if err := p.check(l, proc); err != nil {
			return nil, err
		}
		tm.procs[op] = &p
	}
	return tm, nil
}

func (p *hdbProc) check(l *lines, proc string) error {
	if !(p.min <= p.p50 && p.p50 <= p.p95 && p.p95 <= p.p99 && p.p99 <= p.max) {
		return l.badf("%s: MIN %g, P50 %g, P95 %g, P99 %g, MAX %g are not in order", proc, p.min, p.p50, p.p95, p.p99, p.max)
	}
	return nil
}

// --- hdbxtprofile.log --------------------------------------------------------

var (
	hdbProfHead = regexp.MustCompile(`^\S+ Hammerdb Time Profile Report @ `)
	hdbProfVU   = regexp.MustCompile(`^>>>>> VIRTUAL USER (\d+) : ELAPSED TIME : (\d+)ms$`)
	hdbProfSum  = regexp.MustCompile(`^>>>>> SUMMARY OF (\d+) ACTIVE VIRTUAL USERS : MEDIAN ELAPSED TIME : (\d+)ms$`)
	hdbProfProc = regexp.MustCompile(`^>>>>> PROC: (\S+)$`)
	hdbProfL1   = regexp.MustCompile(`^CALLS: (\S+)\tMIN: (\S+)ms\tAVG: (\S+)ms\tMAX: (\S+)ms\tTOTAL: (\S+)ms$`)
	hdbProfL2   = regexp.MustCompile(`^P99: (\S+)ms\tP95: (\S+)ms\tP50: (\S+)ms\tSD: (\S+)\tRATIO: (\S+)%$`)
	hdbProfSep  = regexp.MustCompile(`^(\+-)+\+$`)
)

func isHammerDBProfile(name, text string) bool {
	return strings.HasSuffix(filepath.Base(name), ".log") && hdbProfHead.MatchString(head(text, 200))
}

// attachHammerDBProfile reads hdbxtprofile.log into the run: calls summed
// over the virtual users, the summary's percentiles.
func attachHammerDBProfile(runs []*result.Run, logs []File) error {
	if len(logs) != 1 {
		return fmt.Errorf("%d HammerDB time profiles beside one output: give one hdbxtprofile.log per output", len(logs))
	}
	if len(runs) != 1 {
		return fmt.Errorf("a HammerDB time profile for %d runs", len(runs))
	}
	tm, err := checkedProfile(logs[0])
	if err != nil {
		return err
	}
	tm.apply(runs[0], false)
	return nil
}

func checkedProfile(f File) (*hdbTiming, error) {
	l := newLines(f.Name, f.Text)
	if err := cutShort(f.Name, f.Text); err != nil {
		return nil, err
	}
	tm, err := readHammerDBProfile(l)
	if err != nil {
		return nil, err
	}
	if l.bad != nil {
		return nil, l.bad
	}
	return tm, nil
}

// hdbProfileParse is the state of an hdbxtprofile.log being read.
type hdbProfileParse struct {
	l          *lines
	vuCalls    map[string]int64 // op → calls summed over the virtual users
	vus        map[string]bool
	summary    map[string]*hdbProc
	summaryVUs int64
	cur        map[string]*hdbProc // the section being read
}

// hdbProfileRules are the lines of a time profile after its first, in the
// order they are tried.
var hdbProfileRules = []lineRule[*hdbProfileParse]{
	{when: func(_ *hdbProfileParse, t string) bool { return strings.TrimSpace(t) == "" }, handle: skipLine[*hdbProfileParse]},
	{re: hdbProfSep, handle: skipLine[*hdbProfileParse]},
	{re: hdbProfVU, handle: (*hdbProfileParse).virtualUser},
	{re: hdbProfSum, handle: (*hdbProfileParse).summarySection},
	{re: hdbProfProc, handle: (*hdbProfileParse).proc},
}

func readHammerDBProfile(l *lines) (*hdbTiming, error) {
	first, ok := l.next()
	if !ok || !hdbProfHead.MatchString(first) {
		return nil, l.errorf("not a HammerDB time profile (its first line is \"… Hammerdb Time Profile Report @ …\")")
	}
	p := &hdbProfileParse{l: l, vuCalls: map[string]int64{}, vus: map[string]bool{}}
	for raw, ok := l.next(); ok; raw, ok = l.next() {
		read, err := applyRules(hdbProfileRules, p, strings.TrimRight(raw, "\r"))
		if err != nil {
			return nil, err
		}
		if !read {
			return nil, l.errorf("unexpected line in a HammerDB time profile")
		}
	}
	return p.finish()
}

func (p *hdbProfileParse) virtualUser(m []string) error {
	if p.summary != nil {
		return p.l.errorf("a virtual user's section after the SUMMARY")
	}
	if p.vus[m[1]] {
		return p.l.errorf("a second section of virtual user %s", m[1])
	}
	p.vus[m[1]] = true
	p.cur = map[string]*hdbProc{}
	return nil
}

func (p *hdbProfileParse) summarySection(m []string) error {
	if p.summary != nil {
		return p.l.errorf("a second SUMMARY")
	}
	p.summaryVUs, _ = p.l.integer(m[1], "active virtual users")
	p.summary = map[string]*hdbProc{}
	p.cur = p.summary
	return nil
}

// proc reads a PROC line and the two lines of its numbers.
func (p *hdbProfileParse) proc(m []string) error {
	l := p.l
	if p.cur == nil {
		return l.errorf("a PROC before any virtual user's section")
	}
	op, ok := hdbProcs[m[1]]
	if !ok {
		return l.errorf("unknown procedure %q (HammerDB's TPROC-C has NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT)", m[1])
	}
	if p.cur[op] != nil {
		return l.errorf("a second PROC %s in one section", m[1])
	}
	proc, err := readHdbProfileProc(l, m[1])
	if err != nil {
		return err
	}
	p.cur[op] = proc
	if p.summary == nil {
		p.vuCalls[op] += proc.calls
	}
	return nil
}

// readHdbProfileProc reads the CALLS and P99 lines of PROC name.
func readHdbProfileProc(l *lines, name string) (*hdbProc, error) {
	var p hdbProc
	line1, ok1 := l.next()
	m1 := match(hdbProfL1, strings.TrimRight(line1, "\r"))
	if !ok1 || m1 == nil {
		if !ok1 {
			return nil, l.missing("CALLS line of PROC " + name)
		}
		return nil, l.errorf("unreadable CALLS line of PROC %s", name)
	}
	var err error
	if p.calls, err = l.integer(m1[1], name+" CALLS"); err != nil {
		return nil, err
	}
	for i, v := range []*float64{&p.min, &p.avg, &p.max, &p.total} {
		if *v, err = l.num(m1[2+i], name+" timing"); err != nil {
			return nil, err
		}
	}
	line2, ok2 := l.next()
	m2 := match(hdbProfL2, strings.TrimRight(line2, "\r"))
	if !ok2 || m2 == nil {
		if !ok2 {
			return nil, l.missing("P99 line of PROC " + name)
		}
		return nil, l.errorf("unreadable P99 line of PROC %s", name)
	}
	for i, v := range []*float64{&p.p99, &p.p95, &p.p50} {
		if *v, err = l.num(m2[1+i], name+" percentile"); err != nil {
			return nil, err
		}
	}
	if err := p.check(l, name); err != nil {
		return nil, err
	}
	return &p, nil
}

// finish checks the SUMMARY against the virtual users' sections: its calls
// are theirs, or twice theirs (HammerDB 4.12 with its job database on).
func (p *hdbProfileParse) finish() (*hdbTiming, error) {
	l, summary := p.l, p.summary
	if summary == nil {
		return nil, l.missing("SUMMARY OF N ACTIVE VIRTUAL USERS section")
	}
	if int(p.summaryVUs) != len(p.vus) {
		return nil, &ParseError{File: l.file, Msg: fmt.Sprintf("the SUMMARY is of %d virtual users, the profile has sections of %d", p.summaryVUs, len(p.vus))}
	}
	tm := &hdbTiming{procs: summary, source: filepath.Base(l.file)}
	ops := make([]string, 0, len(summary))
	for op := range summary {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	doubled, single := 0, 0
	for _, op := range ops {
		proc := summary[op]
		switch proc.calls {
		case p.vuCalls[op]:
			single++
		case 2 * p.vuCalls[op]:
			doubled++
		default:
			return nil, &ParseError{File: l.file, Msg: fmt.Sprintf("the SUMMARY has %d calls of %s, the virtual users' sections %d", proc.calls, op, p.vuCalls[op])}
		}
		proc.calls = p.vuCalls[op]
	}
	tm.doubled = doubled > 0 && single == 0
	return tm, nil
}
