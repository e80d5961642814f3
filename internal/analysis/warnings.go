package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// Thresholds of the methodology checks. They are deliberately plain numbers a
// reader can check against the values each warning prints.
const (
	// driftMinChange: a drift smaller than this share of the run's mean
	// throughput is not reported, however clean the series.
	driftMinChange = 0.05
	// driftSigmas: the change between the first and last third must also exceed
	// this many standard errors of that difference (the run's own noise).
	driftSigmas = 3.0
	// SaturationShare: the load generator counts as saturated when its median
	// CPU use per second reaches this share of its CPU budget: the client
	// host's threads, or less under a cgroup quota, cpuset or GOMAXPROCS.
	SaturationShare = 0.8
	// maxCV: repetitions disagree when their coefficient of variation exceeds it.
	maxCV = 0.10
	// warmupMinChange: the first seconds of the measured phase differ from the
	// rest when their mean is this far from the rest's median (and beyond 3
	// robust standard deviations of the rest).
	warmupMinChange = 0.10
	// maxErrorShare: errors above this share of all operations are reported.
	maxErrorShare = 0.001
)

// Check names, in the order reports list them.
const (
	checkDrift       = "drift"
	checkSaturation  = "load-generator"
	checkGenerators  = "load-generators"
	checkRepetitions = "repetitions"
	CheckSingleRun   = "single-run"
	checkWarmup      = "warm-up"
	CheckConfig      = "configuration"
	checkWorkingSet  = "working-set"
	checkErrors      = "errors"
	CheckOutage      = "outage"
	checkHostBusy    = "host-busy"
	checkStalled     = "stalled"
	checkSameHost    = "same-host"
	CheckPeakEdge    = "peak-edge"
	checkGovernor    = "cpu-governor"
	checkServerBusy  = "server-busy"
	checkUnverified  = "unverified"
)

// Check is one methodology check: its name, as warnings carry it, and what
// it looks at, as a report's Methodology section lists it.
type Check struct{ Name, Text string }

// Checks describes every check, in the order reports list them, so that a
// reader sees what was checked even when nothing was raised. A threshold is
// printed from its constant, so that the description and the check agree.
var Checks = []Check{
	{checkDrift, fmt.Sprintf("throughput drift inside a run (first vs last third of the per-second series, beyond %g %% and %g standard errors)",
		driftMinChange*100, driftSigmas)},
	{checkSaturation, fmt.Sprintf("load-generator saturation (fairbench's median CPU use ≥ %g %% of its CPU budget: the client host's threads, or a smaller cgroup quota, cpuset or GOMAXPROCS; or of each load generator's CPUs when several measured a run; not for embedded engines, whose work is fairbench's CPU)",
		SaturationShare*100)},
	{checkGenerators, fmt.Sprintf("load generators of one run that disagree (throughput per client more than %g %% apart between generators) or whose clocks are more than %g ms off the results store's",
		maxGeneratorSpread*100, maxClockSkewMS)},
	{checkRepetitions, fmt.Sprintf("repetitions that disagree (coefficient of variation of the headline metric > %g %%)", maxCV*100)},
	{CheckSingleRun, "cells resting on a single completed run (no interval, no verdict)"},
	{checkWarmup, fmt.Sprintf("warm-up too short (the first seconds of the measured phase differ from the rest by > %g %%)", warmupMinChange*100)},
	{CheckConfig, "database versions and settings that differ between compared targets"},
	{checkWorkingSet, "working set against memory (data size vs the database's own cache and RAM)"},
	{checkErrors, fmt.Sprintf("errors above %g %% of operations", maxErrorShare*100)},
	{CheckOutage, "outages: seconds of the measured phase without a completed operation, lost connections and reconnects"},
	{checkHostBusy, fmt.Sprintf("runs stored as ok but flagged host busy: seconds fairbench did not read, or in which nothing completed or failed while it waited for a CPU; other processes using ≥ %g cores while it waited ≥ %g %% of its time; steal ≥ %g %%",
		result.BusyOthersCores, result.BusyWaitShare*100, result.BusyStealShare*100)},
	{checkStalled, fmt.Sprintf("runs stored as ok but flagged stalled: wall time > %g× the planned duration, an operation longer than the measured phase, an embedded engine completing nothing without an error",
		result.StallFactor)},
	{checkSameHost, "client and server on the same host (an embedded engine, in fairbench's own process, is noted instead)"},
	{CheckPeakEdge, "a peak of the headline metric at the edge of the clients sweep (knee not found)"},
	{checkGovernor, "the load generator's host ran a CPU frequency governor other than performance (its frequency, and an embedded engine's or a same-host server's, changed with the load)"},
	{checkServerBusy, fmt.Sprintf("the server host busy with something else (with node_exporter given: its CPUs ≥ %g %% busy in the idle second before a run, fairbench's clients connected and sending nothing)",
		serverIdleBusyPct)},
	{checkUnverified, "results not verified (no check of what the database answered ran after the run: the workload has none, or --check was not given)"},
}

// Warning is one methodology finding, naming the runs and numbers behind it.
// Info findings (the working-set label of each target, an embedded engine)
// are context rather than a problem.
type Warning struct {
	Check   string  `json:"check"`
	Runs    []int64 `json:"runs"`
	Message string  `json:"message"`
	Info    bool    `json:"info,omitempty"`
}

// Warnings runs every methodology check over the groups. Settings and
// versions are compared against the baseline target, or against the first
// target when baseline is "".
func Warnings(groups []*Group, baseline string) []Warning {
	var ws []Warning
	var single []int64
	singleCells := 0
	names := NewNamer(groups)
	scenario := map[string]string{} // study, workload, kind, params → scenario name
	for _, g := range groups {
		scenario[strings.Join([]string{g.Study, g.Workload, g.Kind, g.Params}, "\x00")] = names.Scenario(g)
		for _, r := range g.Runs {
			ws = append(ws, runWarnings(r, names)...)
		}
		switch {
		case g.N == 1:
			singleCells++
			single = append(single, g.Runs[0].ID)
		case g.N >= 2:
			if cv := cv(g.Values); cv > maxCV {
				ws = append(ws, Warning{Check: checkRepetitions, Runs: runIDs(g.Runs), Message: fmt.Sprintf(
					"%s: the %d repetitions disagree: %s %s %s, coefficient of variation %.1f %% (> %.0f %%)",
					names.Label(g), g.N, g.Headline.Name, joinFloats(g.Values), g.Headline.Unit, cv*100, maxCV*100)})
			}
		}
	}
	if singleCells > 0 {
		ws = append(ws, Warning{Check: CheckSingleRun, Runs: single, Message: fmt.Sprintf(
			"%d %s on a single completed run (runs %s): no confidence interval and no verdict for %s",
			singleCells, numfmt.Plural(singleCells, "cell rests", "cells rest"), idRanges(single), numfmt.Plural(singleCells, "it", "them"))})
	}
	ws = append(ws, configWarnings(groups, baseline)...)
	ws = append(ws, workingSetWarnings(groups, names)...)
	ws = append(ws, sameHostWarnings(groups)...)
	ws = append(ws, governorWarnings(groups)...)
	ws = append(ws, serverBusyWarnings(groups)...)
	ws = append(ws, unverifiedWarnings(groups, names)...)
	for _, p := range Peaks(groups, "") {
		if p.AtEdge {
			ws = append(ws, Warning{Check: CheckPeakEdge, Runs: p.Runs, Message: fmt.Sprintf(
				"%s on %s: peak %s %.1f %s at %d %s, the edge of the sweep %s: the knee was not found, a wider sweep may peak elsewhere",
				scenario[strings.Join([]string{p.Study, p.Workload, p.Kind, p.Params}, "\x00")], p.Target, p.Headline.Name, p.Value, p.Headline.Unit, p.Clients, numfmt.Plural(p.Clients, "client", "clients"), intsList(p.Levels))})
		}
	}
	rank := map[string]int{}
	for i, c := range Checks {
		rank[c.Name] = i
	}
	sort.SliceStable(ws, func(i, j int) bool { return rank[ws[i].Check] < rank[ws[j].Check] })
	return ws
}

// runWarnings are the checks that look at one run alone.
func runWarnings(r *result.Run, names *Namer) []Warning {
	var ws []Warning
	label := names.runLabel(r)
	rf := rateFindings(r)
	if shift := rf.Shift; shift != nil {
		ws = append(ws, levelShiftWarning(r, label, *shift))
	}
	if w := rf.Warmup; w != nil {
		ws = append(ws, Warning{Check: checkWarmup, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): the first %d s of the measured phase averaged %.1f requests/s, %+.1f %% from the rest's median %.1f requests/s: warm-up too short",
			r.ID, label, w.Seconds, w.First, (w.First/w.Rest-1)*100, w.Rest)})
	}
	if d := rf.Drift; d != nil {
		ws = append(ws, Warning{Check: checkDrift, Runs: []int64{r.ID}, Message: fmt.Sprintf(
			"run %d (%s): throughput drifted %+.1f %% inside the run, from %.1f requests/s (first third) to %.1f requests/s (last third); its own noise is %.1f requests/s (standard error): burst credits, throttling, checkpoints or cache warming?",
			r.ID, label, (d.Last/d.First-1)*100, d.First, d.Last, d.SE)})
	}
	if budget, source, threads := cpuBudget(r); budget > 0 && !inProcess(r) {
		med, points := clientCPU(r)
		if points == 0 && r.Duration.Seconds() > 0 {
			med = r.Summary.ClientCPU / r.Duration.Seconds()
		}
		of := fmt.Sprintf("the client host's %.0f threads", budget)
		if budget < threads {
			of = fmt.Sprintf("its CPU budget of %.2f cores (%s; the host has %.0f threads)", budget, source, threads)
		}
		if med >= SaturationShare*budget {
			ws = append(ws, Warning{Check: checkSaturation, Runs: []int64{r.ID}, Message: fmt.Sprintf(
				"run %d (%s): fairbench used a median %.2f cores of %s (%.0f %%): the load generator may be the bottleneck",
				r.ID, label, med, of, med/budget*100)})
		}
	}
	if errs, total, unit := r.FailuresIn(Headline(r).Headline); total > 0 && errs > 0 {
		if share := float64(errs) / float64(total); share > maxErrorShare {
			ws = append(ws, Warning{Check: checkErrors, Runs: []int64{r.ID}, Message: fmt.Sprintf(
				"run %d (%s): %d errors in %d %s (%.2f %%, > %.1f %%)%s",
				r.ID, label, errs, total, unit, share*100, maxErrorShare*100, errorClasses(r))})
		}
	}
	if w, ok := outageWarning(r, label); ok {
		ws = append(ws, w)
	}
	ws = append(ws, flagWarnings(r, label)...)
	return append(ws, generatorWarnings(r, label)...)
}

// flagWarnings turn a run's flags into a warning per kind (host busy,
// stalled), naming the reasons.
func flagWarnings(r *result.Run, label string) []Warning {
	var ws []Warning
	for _, kind := range []struct{ flag, check string }{{result.FlagHostBusy, checkHostBusy}, {result.FlagStalled, checkStalled}} {
		var reasons []string
		for _, f := range r.Summary.Flags {
			if f.Kind == kind.flag {
				reasons = append(reasons, f.Reason)
			}
		}
		if len(reasons) > 0 {
			ws = append(ws, Warning{Check: kind.check, Runs: []int64{r.ID}, Message: fmt.Sprintf(
				"run %d (%s): %s: %s; its numbers may describe fairbench's host, not the target",
				r.ID, label, kind.flag, strings.Join(reasons, "; "))})
		}
	}
	return ws
}

// outageWarning names the seconds of a run without a completed operation,
// its reconnects and the first error of each class (the server's own text).
func outageWarning(r *result.Run, label string) (Warning, bool) {
	s := r.Summary
	if s.DeadSeconds == 0 && s.ReconnectAttempts == 0 {
		return Warning{}, false
	}
	var parts []string
	heldUp := s.HeldUpSeconds(inProcess(r))
	if s.DeadSeconds > 0 {
		parts = append(parts, fmt.Sprintf("no operation completed in %d of %d s (%s)",
			s.DeadSeconds, r.MeasuredPoints(), result.SpansText(s.DeadSpans)))
	}
	if heldUp > 0 {
		parts = append(parts, fmt.Sprintf("%d of them without an error while fairbench itself was held up (flagged, not an outage)", heldUp))
	}
	if s.ReconnectAttempts > 0 {
		parts = append(parts, fmt.Sprintf("%d lost connections replaced in %d attempts", s.Reconnects, s.ReconnectAttempts))
		if s.ReconnectError != "" {
			parts = append(parts, "reconnecting failed with: "+s.ReconnectError)
		}
	}
	classes := make([]string, 0, len(s.FirstErrors))
	for c := range s.FirstErrors {
		classes = append(classes, string(c))
	}
	sort.Strings(classes)
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("first %s error: %s", c, s.FirstErrors[result.ErrorClass(c)]))
	}
	why := " (the target did not serve for part of the measured phase)"
	if heldUp == s.DeadSeconds && s.ReconnectAttempts == 0 {
		why = ""
	}
	return Warning{Check: CheckOutage, Runs: []int64{r.ID}, Message: fmt.Sprintf(
		"run %d (%s): %s%s", r.ID, label, strings.Join(parts, "; "), why)}, true
}

// warmupShift compares the first w seconds (10 % of the series, 2 to 10
// points) with the median of the rest. It needs 10 points.
func warmupShift(rates []float64) (w int, first, rest float64, ok bool) {
	n := len(rates)
	if n < 10 {
		return 0, 0, 0, false
	}
	w = warmupWindow(n)
	first, _ = meanSD(rates[:w])
	rest = hist.Median(rates[w:])
	if rest <= 0 {
		return 0, 0, 0, false
	}
	dev := make([]float64, 0, n-w)
	for _, x := range rates[w:] {
		dev = append(dev, math.Abs(x-rest))
	}
	robustSD := 1.4826 * hist.Median(dev)
	diff := math.Abs(first - rest)
	return w, first, rest, diff > warmupMinChange*rest && diff > 3*robustSD
}

// drift compares the means of the first and last thirds of the series. It
// needs 9 points.
func drift(rates []float64) (first, last, se float64, ok bool) {
	n := len(rates)
	if n < 9 {
		return 0, 0, 0, false
	}
	k := n / 3
	m1, s1 := meanSD(rates[:k])
	m3, s3 := meanSD(rates[n-k:])
	mAll, _ := meanSD(rates)
	se = math.Sqrt(s1*s1/float64(k) + s3*s3/float64(k))
	d := math.Abs(m3 - m1)
	if m1 <= 0 || mAll <= 0 {
		return 0, 0, 0, false
	}
	return m1, m3, se, d > driftMinChange*mAll && d > driftSigmas*se
}

// cpuBudget is the CPU the run's load generator could use, in cores, what set
// it (envinfo.Budget), and the host's threads; runs stored before the budget
// was recorded had the host's threads.
func cpuBudget(r *result.Run) (budget float64, source string, threads float64) {
	h := r.Env.Host
	threads = float64(h.Threads)
	if h.CPUBudget > 0 {
		return h.CPUBudget, h.CPUBudgetSource, threads
	}
	return threads, "host threads", threads
}

func errorClasses(r *result.Run) string {
	by := map[result.ErrorClass]int64{}
	for _, op := range r.Ops {
		for c, n := range op.Errors {
			by[c] += n
		}
	}
	if len(by) == 0 {
		return ""
	}
	var parts []string
	for c, n := range by {
		parts = append(parts, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(parts)
	return ": " + strings.Join(parts, ", ")
}

// configWarnings lists, per study, the versions and settings in which a
// target differs from the reference target.
func configWarnings(groups []*Group, baseline string) []Warning {
	type facts struct {
		run      int64
		engine   string
		version  string
		settings map[string]string
		tls      string // result.TLS.String(); "" when not recorded
		pooler   string // result.Pooler.String()
	}
	studies := map[string]map[string]*facts{}
	var studyOrder []string
	targetOrder := map[string][]string{}
	for _, g := range groups {
		if len(g.Runs) == 0 {
			continue
		}
		if studies[g.Study] == nil {
			studies[g.Study] = map[string]*facts{}
			studyOrder = append(studyOrder, g.Study)
		}
		if studies[g.Study][g.Target] != nil {
			continue
		}
		r := g.Runs[0]
		db := r.Env.Database
		if db.Empty() {
			continue
		}
		f := &facts{run: r.ID, engine: db.Engine, version: db.VersionText(), settings: map[string]string{}, pooler: db.Pooler.String()}
		if t, ok := db.TLS(); ok {
			f.tls = t.String()
		}
		for k, v := range db.Settings {
			// Settings that identify an installation (its paths, its
			// port) always differ between two servers and say nothing
			// about performance.
			if !db.InstallationOnly(k) {
				f.settings[k] = v
			}
		}
		studies[g.Study][g.Target] = f
		targetOrder[g.Study] = append(targetOrder[g.Study], g.Target)
	}
	var ws []Warning
	for _, st := range studyOrder {
		targets := targetOrder[st]
		if len(targets) < 2 {
			continue
		}
		bl := newBaselines(groups, baseline)
		for _, t := range targets {
			// Each target against its own baseline (baselines.go), else
			// the study's first target.
			ref := targets[0]
			if own := bl.For(t); studies[st][own] != nil {
				ref = own
			}
			rf := studies[st][ref]
			if t == ref {
				continue
			}
			f := studies[st][t]
			// How the client reached the server is a difference of
			// configuration whatever the engines: encryption costs CPU on
			// both ends (TLS on against off, or another protocol version),
			// and a connection pooler adds a hop and shares sessions.
			var connDiffs []string
			if f.tls != "" && rf.tls != "" && f.tls != rf.tls {
				connDiffs = append(connDiffs, fmt.Sprintf("TLS %s vs %s", f.tls, rf.tls))
			}
			if f.pooler != rf.pooler {
				connDiffs = append(connDiffs, fmt.Sprintf("connection pooler %s vs %s", f.pooler, rf.pooler))
			}
			if f.engine != "" && rf.engine != "" && f.engine != rf.engine {
				// Two engines (bbolt against Pebble, Redis against Valkey)
				// have settings of their own names: listing each as "not
				// reported" on the other side would hide the one fact.
				msg := fmt.Sprintf("%s and %s are different engines (runs %d, %d): %s %s vs %s %s; their settings are not compared",
					t, ref, f.run, rf.run, f.engine, f.version, rf.engine, rf.version)
				if len(connDiffs) > 0 {
					msg += "; " + strings.Join(connDiffs, "; ")
				}
				ws = append(ws, Warning{Check: CheckConfig, Runs: []int64{f.run, rf.run}, Message: msg})
				continue
			}
			diffs := connDiffs
			if f.version != rf.version {
				diffs = append(diffs, fmt.Sprintf("version %q vs %q", f.version, rf.version))
			}
			keys := map[string]bool{}
			for k := range f.settings {
				keys[k] = true
			}
			for k := range rf.settings {
				keys[k] = true
			}
			var names []string
			for k := range keys {
				if f.settings[k] != rf.settings[k] {
					names = append(names, k)
				}
			}
			sort.Strings(names)
			for _, k := range names {
				diffs = append(diffs, fmt.Sprintf("%s = %s vs %s", k, orUnset(f.settings[k]), orUnset(rf.settings[k])))
			}
			if len(diffs) > 0 {
				ws = append(ws, Warning{Check: CheckConfig, Runs: []int64{f.run, rf.run}, Message: fmt.Sprintf(
					"%s differs from %s (runs %d, %d): %s", t, ref, f.run, rf.run, strings.Join(diffs, "; "))})
			}
		}
	}
	return ws
}

func orUnset(s string) string {
	if s == "" {
		return "(not reported)"
	}
	return s
}

// WorkingSet labels a cell by where its data can live: "in the database
// cache" (the engine's own: its driver says how large, under which setting),
// "in RAM" (page cache), "disk-bound", or "" when the sizes are unknown.
// detail gives the numbers, the cache under the engine's name for it.
func WorkingSet(g *Group) (label, detail string) {
	if len(g.Runs) == 0 {
		return "", ""
	}
	r := g.Runs[0]
	db := r.Env.Database
	data := float64(db.SizeBytes)
	how := "database size"
	if data <= 0 {
		// The kind's own estimate from its parameters.
		if b, basis, ok := kinds.EstimateWorkingSet(g.Kind, g.ParamValues); ok && b > 0 {
			data = float64(b)
			how = basis
		}
	}
	if data <= 0 {
		return "", ""
	}
	cacheBytes, cacheName := db.Cache()
	cache := float64(cacheBytes)
	if cacheName == "" {
		cacheName = "database cache"
	}
	ram := float64(r.Env.Server.MemoryBytes)
	if ram <= 0 && r.Env.ClientServerSameHost() {
		ram = r.Env.Host.MemoryGiB * (1 << 30)
	}
	detail = fmt.Sprintf("data %s (%s)", numfmt.BytesIEC(data), how)
	if cache > 0 {
		detail += ", " + cacheName + " " + numfmt.BytesIEC(cache)
	}
	if ram > 0 {
		detail += ", RAM " + numfmt.BytesIEC(ram)
	}
	switch {
	case cache > 0 && data <= cache:
		return "in the database cache", detail
	case ram > 0 && data <= 0.8*ram:
		// 0.8: the OS, the server's own memory and its cache itself
		// take their share before the page cache gets any.
		return "in RAM", detail
	case ram > 0 || cache > 0:
		if ram == 0 {
			return "exceeds the database cache", detail
		}
		return "disk-bound", detail
	}
	return "", detail
}

func workingSetWarnings(groups []*Group, names *Namer) []Warning {
	type key struct{ study, scenario string }
	labels := map[key]map[string]string{}
	runs := map[key][]int64{}
	var order []key
	targets := map[key][]string{}
	for _, g := range groups {
		label, detail := WorkingSet(g)
		if label == "" {
			continue
		}
		k := key{g.Study, names.Scenario(g)}
		if labels[k] == nil {
			labels[k] = map[string]string{}
			order = append(order, k)
		}
		if _, ok := labels[k][g.Target]; ok {
			continue
		}
		labels[k][g.Target] = label + ": " + detail
		targets[k] = append(targets[k], g.Target)
		runs[k] = append(runs[k], g.Runs[0].ID)
	}
	var ws []Warning
	for _, k := range order {
		var parts []string
		distinct := map[string]bool{}
		for _, t := range targets[k] {
			parts = append(parts, t+" "+labels[k][t])
			distinct[strings.SplitN(labels[k][t], ":", 2)[0]] = true
		}
		msg := fmt.Sprintf("%s: %s", strings.TrimSpace(k.scenario), strings.Join(parts, "; "))
		if len(distinct) > 1 {
			ws = append(ws, Warning{Check: checkWorkingSet, Runs: runs[k], Message: msg +
				": the targets do not hold the data in the same place, so this compares memory with disk"})
		} else {
			ws = append(ws, Warning{Check: checkWorkingSet, Runs: runs[k], Message: msg, Info: true})
		}
	}
	return ws
}

func sameHostWarnings(groups []*Group) []Warning {
	var shared, embedded targetRuns
	for _, g := range groups {
		for _, r := range g.Runs {
			if inProcess(r) {
				embedded.add(r)
			} else if r.Env.ClientServerSameHost() {
				shared.add(r)
			}
		}
	}
	var ws []Warning
	if len(shared.names) > 0 {
		ws = append(ws, Warning{Check: checkSameHost, Runs: shared.ids, Message: fmt.Sprintf(
			"client and server share a host for %s (e.g. runs %s): the load generator takes CPU, memory and cache from the database",
			strings.Join(shared.names, ", "), idRanges(shared.ids))})
	}
	if len(embedded.names) > 0 {
		ws = append(ws, Warning{Check: checkSameHost, Runs: embedded.ids, Info: true, Message: fmt.Sprintf(
			"%s: embedded engine, inside fairbench's process (e.g. runs %s): the client CPU figures include the database's own work, and load-generator saturation is not checked",
			strings.Join(embedded.names, ", "), idRanges(embedded.ids))})
	}
	return ws
}

// governorWarnings names the targets whose runs the load generator's host
// measured under a CPU frequency governor other than performance: an
// on-demand governor can double a short query's time (db-benchmarks.com's
// principles), and runs of one study may meet the CPU at different
// frequencies. A host without cpufreq (most VMs and containers) records no
// governor and raises nothing.
func governorWarnings(groups []*Group) []Warning {
	var scaled targetRuns
	governors := map[string]bool{}
	for _, g := range groups {
		for _, r := range g.Runs {
			if gov := r.Env.Host.CPUGovernor; gov != "" && gov != "performance" {
				scaled.add(r)
				governors[gov] = true
			}
		}
	}
	if len(scaled.names) == 0 {
		return nil
	}
	return []Warning{{Check: checkGovernor, Runs: scaled.ids, Message: fmt.Sprintf(
		"the load generator's host ran the CPU frequency governor %s for %s (e.g. runs %s): its CPU frequency followed the load; set it to performance (cpupower frequency-set -g performance) for numbers that do not depend on it",
		strings.Join(slices.Sorted(maps.Keys(governors)), ", "), strings.Join(scaled.names, ", "), idRanges(scaled.ids))}}
}

// targetRuns collects each target's name once, with its first run's id.
type targetRuns struct {
	names []string
	ids   []int64
}

func (t *targetRuns) add(r *result.Run) {
	if !slices.Contains(t.names, r.Target) {
		t.names = append(t.names, r.Target)
		t.ids = append(t.ids, r.ID)
	}
}

// inProcess reports whether the run's engine ran inside fairbench's process.
// Runs stored before the runner recorded it are recognised by their engine
// (its driver registered it as in-process).
func inProcess(r *result.Run) bool { return r.Env.EngineInProcess() }

func runIDs(rs []*result.Run) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// idRanges writes ids compactly: "1–4, 7, 9–10".
func idRanges(ids []int64) string {
	s := append([]int64(nil), ids...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", s[i], s[j]))
		} else {
			parts = append(parts, strconv.FormatInt(s[i], 10))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
		if math.Abs(x) < 1 {
			parts[i] = numfmt.Significant(x, 3) // a query set's 0.06 s must not read 0.1
		}
	}
	return strings.Join(parts, ", ")
}

func intsList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
