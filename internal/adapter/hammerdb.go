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

func parseHammerDBLines(l *lines) ([]*result.Run, error) {
	r := &result.Run{Workload: tpccKind, Kind: tpccKind, ToolVersion: "hammerdb",
		Params: map[string]any{tpccparams.Implementation: tpccparams.Procedures}}
	env := map[string]any{}
	settings := map[string]string{}
	var nopm, tpm float64
	var engine string
	haveResult, haveDuration, jobResult := false, false, false
	var timing *hdbTiming
	for {
		raw, ok := l.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(raw)
		if m := match(hdbResult, t); m != nil {
			if haveResult {
				return nil, l.errorf("a second TEST RESULT line")
			}
			haveResult = true
			a, b := m[2], m[3]
			engine = m[4]
			if m[2] == "" {
				a, b, engine = m[7], m[5], m[6]
			}
			n, err := l.integer(a, "NOPM")
			if err != nil {
				return nil, err
			}
			tp, err := l.integer(b, "TPM")
			if err != nil {
				return nil, err
			}
			nopm, tpm = float64(n), float64(tp)
			continue
		}
		if m := match(hdbVUs, t); m != nil {
			n, err := l.integer(m[1], "active virtual users")
			if err != nil {
				return nil, err
			}
			if n < 1 || n > maxClients {
				return nil, l.badf("%d active virtual users is out of range (1 to %d)", n, maxClients)
			}
			r.Clients = int(n)
			continue
		}
		if m := match(hdbRampup, t); m != nil {
			f, err := l.num(m[1], "rampup minutes")
			if err != nil {
				return nil, err
			}
			r.Warmup = time.Duration(f * float64(time.Minute))
			continue
		}
		if m := match(hdbDuration, t); m != nil {
			f, err := l.num(m[1], "test period minutes")
			if err != nil {
				return nil, err
			}
			if f <= 0 {
				return nil, l.badf("a test period of %s minutes", m[1])
			}
			r.Duration = time.Duration(f * float64(time.Minute))
			haveDuration = true
			continue
		}
		if m := match(hdbFailed, t); m != nil {
			return nil, l.errorf("virtual user %s failed: its transactions are missing from the result", m[1])
		}
		if m := match(hdbVersion, t); m != nil {
			r.ToolVersion = "hammerdb " + m[1]
			continue
		}
		if m := match(hdbDBVer, t); m != nil {
			env["db_version"] = m[1]
			continue
		}
		if m := match(hdbSame, t); m != nil {
			settings[m[2]] = hdbSetting(m[2], m[1])
			continue
		}
		if m := match(hdbChanged, t); m != nil {
			settings[m[1]] = hdbSetting(m[1], m[2])
			continue
		}
		if hdbJobRes.MatchString(t) {
			if jobResult {
				return nil, l.errorf("a second JOB RESULT line")
			}
			jobResult = true
			if err := readHammerDBJobResult(l, env); err != nil {
				return nil, err
			}
			continue
		}
		if hdbJobTime.MatchString(t) {
			tm, err := readHammerDBJobTiming(l)
			if err != nil {
				return nil, err
			}
			timing = tm
			continue
		}
		// After the job's result, the script prints only its timing JSON:
		// anything else there is not hammerdbcli's (two files pasted
		// together, an editor's stray text) and is not skipped silently.
		if jobResult && t != "" {
			return nil, l.errorf("%q after the JOB RESULT JSON: the script prints only JOB TIMING and its JSON there; the output is damaged or edited", clip(t))
		}
	}
	if !haveResult {
		return nil, l.missing("TEST RESULT line (hammerdbcli prints it at the end of a timed run)")
	}
	if !haveDuration {
		return nil, l.missing("\"Timing test period of N in minutes\" line (the timed driver's)")
	}
	if r.Clients == 0 {
		return nil, l.missing("\"Active Virtual Users configured\" line")
	}
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
	mins := r.Duration.Minutes()
	s := &r.Summary
	s.Extra = map[string]float64{tpccparams.NewOrders: nopm * mins, tpccparams.ServerTransactions: tpm * mins}
	s.Metric = &result.Metric{Headline: tpccparams.Headline, Value: nopm}
	s.Throughput = tpm / 60
	env["engine"] = engine
	env["nopm"], env["tpm"] = nopm, tpm
	if len(settings) > 0 {
		env["settings"] = settings
	}
	r.Env.Extra = map[string]any{"hammerdb": env}
	r.Deviations = append(r.Deviations, fmt.Sprintf("the throughput is HammerDB's TPM / 60 (%s's commits and rollbacks per second, the server's count), not the client's transactions", engine))
	if timing != nil {
		timing.apply(r, true)
	}
	return []*result.Run{r}, nil
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

func readHammerDBProfile(l *lines) (*hdbTiming, error) {
	first, ok := l.next()
	if !ok || !hdbProfHead.MatchString(first) {
		return nil, l.errorf("not a HammerDB time profile (its first line is \"… Hammerdb Time Profile Report @ …\")")
	}
	vuCalls := map[string]int64{} // op → calls summed over the virtual users
	vus := map[string]bool{}
	var summary map[string]*hdbProc
	var summaryVUs int64
	var cur map[string]*hdbProc // the section being read
	for {
		raw, ok := l.next()
		if !ok {
			break
		}
		t := strings.TrimRight(raw, "\r")
		switch {
		case strings.TrimSpace(t) == "" || hdbProfSep.MatchString(t):
			continue
		case hdbProfVU.MatchString(t):
			m := match(hdbProfVU, t)
			if summary != nil {
				return nil, l.errorf("a virtual user's section after the SUMMARY")
			}
			if vus[m[1]] {
				return nil, l.errorf("a second section of virtual user %s", m[1])
			}
			vus[m[1]] = true
			cur = map[string]*hdbProc{}
			continue
		case hdbProfSum.MatchString(t):
			m := match(hdbProfSum, t)
			if summary != nil {
				return nil, l.errorf("a second SUMMARY")
			}
			summaryVUs, _ = l.integer(m[1], "active virtual users")
			summary = map[string]*hdbProc{}
			cur = summary
			continue
		}
		m := match(hdbProfProc, t)
		if m == nil {
			return nil, l.errorf("unexpected line in a HammerDB time profile")
		}
		if cur == nil {
			return nil, l.errorf("a PROC before any virtual user's section")
		}
		op, ok := hdbProcs[m[1]]
		if !ok {
			return nil, l.errorf("unknown procedure %q (HammerDB's TPROC-C has NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT)", m[1])
		}
		if cur[op] != nil {
			return nil, l.errorf("a second PROC %s in one section", m[1])
		}
		var p hdbProc
		line1, ok1 := l.next()
		m1 := match(hdbProfL1, strings.TrimRight(line1, "\r"))
		if !ok1 || m1 == nil {
			if !ok1 {
				return nil, l.missing("CALLS line of PROC " + m[1])
			}
			return nil, l.errorf("unreadable CALLS line of PROC %s", m[1])
		}
		var err error
		if p.calls, err = l.integer(m1[1], m[1]+" CALLS"); err != nil {
			return nil, err
		}
		for i, v := range []*float64{&p.min, &p.avg, &p.max, &p.total} {
			if *v, err = l.num(m1[2+i], m[1]+" timing"); err != nil {
				return nil, err
			}
		}
		line2, ok2 := l.next()
		m2 := match(hdbProfL2, strings.TrimRight(line2, "\r"))
		if !ok2 || m2 == nil {
			if !ok2 {
				return nil, l.missing("P99 line of PROC " + m[1])
			}
			return nil, l.errorf("unreadable P99 line of PROC %s", m[1])
		}
		for i, v := range []*float64{&p.p99, &p.p95, &p.p50} {
			if *v, err = l.num(m2[1+i], m[1]+" percentile"); err != nil {
				return nil, err
			}
		}
		if err := p.check(l, m[1]); err != nil {
			return nil, err
		}
		cur[op] = &p
		if cur != nil && summary == nil {
			vuCalls[op] += p.calls
		}
	}
	if summary == nil {
		return nil, l.missing("SUMMARY OF N ACTIVE VIRTUAL USERS section")
	}
	if int(summaryVUs) != len(vus) {
		return nil, &ParseError{File: l.file, Msg: fmt.Sprintf("the SUMMARY is of %d virtual users, the profile has sections of %d", summaryVUs, len(vus))}
	}
	tm := &hdbTiming{procs: summary, source: filepath.Base(l.file)}
	ops := make([]string, 0, len(summary))
	for op := range summary {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	doubled, single := 0, 0
	for _, op := range ops {
		p := summary[op]
		switch p.calls {
		case vuCalls[op]:
			single++
		case 2 * vuCalls[op]:
			doubled++
		default:
			return nil, &ParseError{File: l.file, Msg: fmt.Sprintf("the SUMMARY has %d calls of %s, the virtual users' sections %d", p.calls, op, vuCalls[op])}
		}
		p.calls = vuCalls[op]
	}
	tm.doubled = doubled > 0 && single == 0
	return tm, nil
}
