package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

func init() { addCommand(newReproduce) }

// maxReproduceRepetitions bounds --repetitions as a study's
// max_repetitions is bounded.
const maxReproduceRepetitions = 1000

type reproduceOptions struct {
	maps, only             []string
	studyName, results     string
	format, out            string
	repetitions            int
	shorter                float64
	quiet                  bool
	repetitionsSet, shortr bool
}

func newReproduce() *cobra.Command {
	var o reproduceOptions
	cmd := &cobra.Command{
		Use:   "reproduce FILE --map NAME=URL … [--study NAME] [--only WORKLOAD] [--repetitions N] [--shorter F] [--results F]",
		Short: "Run a published study again on your own targets and say which of its findings held",
		Long: `Reads a study and its runs from FILE (a results file, or a bundle), runs the same study —
parameters, seeds, durations, order — against the targets --map names, stores the runs as a new study
in --results, and prints whether each of the publication's findings held, the published and reproduced
headline per cell, and both environments side by side.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.repetitionsSet, o.shortr = cmd.Flags().Changed("repetitions"), cmd.Flags().Changed("shorter")
			return reproduce(cmd, args[0], o)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.maps, "map", nil, "run the published target NAME against URL (NAME=URL, repeatable); targets not mapped are left out")
	fl.StringVar(&o.studyName, "study", "", "the study of FILE to reproduce (by name); default: its most recent")
	fl.StringSliceVar(&o.only, "only", nil, "run only these workloads (by name, comma-separated); recorded as a deviation")
	fl.IntVar(&o.repetitions, "repetitions", 0, "run N repetitions instead of the published ones (1 to 1000); recorded as a deviation")
	fl.Float64Var(&o.shorter, "shorter", 1, "scale every warm-up and measured duration by F, in (0, 1], but not below 1 s of warm-up and 5 s measured; recorded as a deviation")
	fl.StringVar(&o.results, "results", defaultResults, "results file (or postgres:// store) the reproduced runs go to; never FILE itself")
	fl.StringVar(&o.format, "format", "text", "output format: text, md or json")
	fl.StringVarP(&o.out, "output", "o", "", "write the account to this file instead of standard output")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	return cmd
}

// checkReproduceFlags refuses flag values outside their domain, before
// anything is read or run.
func checkReproduceFlags(file string, o reproduceOptions) error {
	if o.repetitionsSet && (o.repetitions < 1 || o.repetitions > maxReproduceRepetitions) {
		return fmt.Errorf("--repetitions %d: give 1 to %d", o.repetitions, maxReproduceRepetitions)
	}
	if o.shortr && !(o.shorter > 0 && o.shorter <= 1) {
		return fmt.Errorf("--shorter %v: give a factor above 0 and at most 1 (0.5 halves every warm-up and duration)", o.shorter)
	}
	switch o.format {
	case "text", "", "md", "markdown", "json":
	default:
		return fmt.Errorf("--format %q: use text, md or json", o.format)
	}
	if len(o.maps) == 0 {
		return fmt.Errorf("reproduce: give --map NAME=URL for each published target to run (the others are left out)")
	}
	if samePath(file, o.results) {
		return fmt.Errorf("--results %s is FILE itself: the reproduction goes to another results file (the publication stays as it was)", o.results)
	}
	return nil
}

// samePath says whether two paths name one file (or would).
func samePath(a, b string) bool {
	if store.IsURL(a) || store.IsURL(b) {
		return a == b
	}
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// published is the study a reproduction starts from.
type published struct {
	file, hash, name string
	src              []byte
	st               *study.Study
	runs             []*result.Run
}

// readPublished reads the study (by name, or the most recent) of FILE:
// its runs and the study file stored with them.
func readPublished(s *store.Store, file, name string) (*published, error) {
	runs, _, title, err := selectRuns(s, store.Filter{StudyName: name, LatestStudy: name == ""}, "reproduce")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	p := &published{file: file, name: title}
	for i := len(runs) - 1; i >= 0 && p.hash == ""; i-- {
		p.hash = runs[i].StudyHash
	}
	if p.hash == "" {
		return nil, fmt.Errorf("%s: study %q has no study file stored with its runs (imported or ad-hoc runs): nothing to run again", file, title)
	}
	for _, r := range runs {
		if r.StudyHash == p.hash {
			p.runs = append(p.runs, r)
		}
	}
	src, ok, err := s.StudySource(p.hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: the study file of %q (sha256 %.12s) is not stored with its runs: nothing to run again", file, title, p.hash)
	}
	p.src = src
	if p.st, err = study.Parse(file+" (study "+title+")", src, runner.Catalog{}); err != nil {
		return nil, fmt.Errorf("%s: the stored study does not parse with this fairbench: %v", file, err)
	}
	return p, nil
}

// publishedEngine is the engine family (the driver's name) of a published
// target: its runs' URL says it, else what its driver recorded, else the
// study's URL.
func (p *published) publishedEngine(target string) string {
	for _, r := range p.runs {
		if r.Target != target {
			continue
		}
		if d, err := driver.ForURL(r.TargetURL); err == nil {
			return d.Name()
		}
		if r.Env.Database.Engine != "" {
			return r.Env.Database.Engine
		}
	}
	for _, t := range p.st.Targets {
		if t.Name == target {
			if d, err := driver.ForURL(t.URL); err == nil {
				return d.Name()
			}
		}
	}
	return ""
}

// checkMaps refuses a map of an unknown target, and one whose URL's
// engine is not the published target's.
func (p *published) checkMaps(maps map[string]string) error {
	var names []string
	for _, t := range p.st.Targets {
		names = append(names, t.Name)
	}
	for _, name := range sortedKeys(maps) {
		url := maps[name]
		if !slices.Contains(names, name) {
			return fmt.Errorf("--map %s=…: the study has no target %q (its targets: %s)", name, name, strings.Join(names, ", "))
		}
		d, err := driver.ForURL(url)
		if err != nil {
			return fmt.Errorf("--map %s=%s: %v", name, driver.Redacted(url), err)
		}
		if want := p.publishedEngine(name); want != "" && want != d.Name() {
			return fmt.Errorf("--map %s=%s: %s ran on %s, this URL is %s: a reproduction runs the same engine (map it to a %s URL)", name, driver.Redacted(url), name, want, d.Name(), want)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reproductionName is "<study> reproduced", numbered when the results
// store already has a study of that name, so the two never mix.
func reproductionName(results, name string) string {
	base := name + " reproduced"
	if _, err := os.Stat(results); err != nil && !store.IsURL(results) {
		return base
	}
	s, err := store.OpenExisting(results)
	if err != nil {
		return base
	}
	defer s.Close()
	n := base
	for i := 2; hasStudy(s, n) && i < 1000; i++ {
		n = fmt.Sprintf("%s %d", base, i)
	}
	return n
}

func reproduce(cmd *cobra.Command, file string, o reproduceOptions) error {
	if err := checkReproduceFlags(file, o); err != nil {
		return err
	}
	maps, err := parseMaps("map", o.maps)
	if err != nil {
		return err
	}
	pub, err := openResults(file)
	if err != nil {
		return err
	}
	defer pub.Close()
	p, err := readPublished(pub, file, o.studyName)
	if err != nil {
		return err
	}
	if err := p.checkMaps(maps); err != nil {
		return err
	}
	var workloads []string
	for _, w := range p.st.Workloads {
		workloads = append(workloads, w.Name)
	}
	for _, w := range o.only {
		if !slices.Contains(workloads, w) {
			return fmt.Errorf("--only %s: the study has no workload %q (its workloads: %s)", w, w, strings.Join(workloads, ", "))
		}
	}
	name := reproductionName(o.results, p.name)
	d := study.Derivation{Name: name, URLs: maps, Workloads: o.only, Repetitions: o.repetitions, Header: []string{
		fmt.Sprintf("fairbench reproduce: study %q (sha256 %s) of %s, its targets mapped to these URLs", p.name, p.hash, file)}}
	if o.shortr {
		d.Shorter = o.shorter
	}
	if o.only == nil {
		d.Workloads = nil
	}
	st, changes, notes, err := study.Derive(file, p.src, runner.Catalog{}, d)
	if err != nil {
		return fmt.Errorf("reproduce %s: %v", file, err)
	}
	stderr := escape.NewWriter(os.Stderr, escape.TerminalText)
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	for _, c := range changes {
		fmt.Fprintf(stderr, "deviation: %s\n", c)
	}
	fmt.Fprintf(stderr, "reproducing %q of %s as %q in %s\n", p.name, file, name, o.results)
	x := execution{results: o.results, quiet: o.quiet, deviations: changes, noTable: true}
	if _, err := x.run(cmd.Context(), st); err != nil {
		return err
	}
	s, err := store.OpenExisting(o.results)
	if err != nil {
		return err
	}
	defer s.Close()
	repRuns, _, _, err := selectRuns(s, store.Filter{StudyHash: st.Hash}, "show")
	if err != nil {
		return err
	}
	pubRuns, pubGroups, _, err := selectRuns(pub, store.Filter{StudyName: p.name, StudyHash: p.hash}, "show")
	if err != nil {
		return err
	}
	baseline, err := baselineOf(pub, pubRuns, pubGroups, "")
	if err != nil {
		return err
	}
	acc, err := account(p, pubRuns, pubGroups, repRuns, baseline, name, changes, o.results)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch o.format {
	case "md", "markdown":
		buf.WriteString(mdMarker)
		acc.writeMarkdown(&buf)
	case "json":
		err = acc.writeJSON(&buf)
	default:
		acc.writeText(escape.NewWriter(&buf, escape.TerminalText))
	}
	if err != nil {
		return err
	}
	return emit(&buf, o.out)
}

// findingCheck is one finding of the publication and what the reproduction
// made of it.
type findingCheck struct {
	Target, Baseline, Scenario string
	Verdict                    analysis.Verdict // published
	Published                  *analysis.Pooled
	Reproduced                 *analysis.Pooled // nil: not reproduced
	Outcome                    string
}

// The outcomes of a finding.
const (
	findingHolds     = "holds"
	findingReversed  = "does not hold (direction reversed)"
	findingNotShown  = "not shown (not significant in the reproduction)"
	findingLeftOut   = "not reproduced (left out)"
	findingUntestedR = "not shown (the reproduction has no test: %s)"
)

// checkFindings sets, for each finding of the publication (a target
// against its baseline in a scenario whose pooled verdict is a significant
// difference), whether the reproduction's pooled verdict agrees.
func checkFindings(pub, rep *analysis.Findings) []findingCheck {
	key := func(f *analysis.Finding) string {
		return strings.Join([]string{f.Workload, f.Kind, f.Params, f.Target, f.Baseline}, "\x00")
	}
	reproduced := map[string]*analysis.Finding{}
	if rep != nil {
		for _, f := range rep.Items {
			reproduced[key(f)] = f
		}
	}
	var out []findingCheck
	for _, f := range pub.Items {
		if f.Pooled == nil || (f.Pooled.Verdict != analysis.Faster && f.Pooled.Verdict != analysis.Slower) {
			continue
		}
		c := findingCheck{Target: f.Target, Baseline: f.Baseline, Scenario: f.Scenario, Verdict: f.Pooled.Verdict, Published: f.Pooled}
		r := reproduced[key(f)]
		switch {
		case r == nil || r.Pooled == nil:
			c.Outcome = findingLeftOut
		case r.Pooled.Verdict == f.Pooled.Verdict:
			c.Reproduced, c.Outcome = r.Pooled, findingHolds
		case r.Pooled.Verdict == analysis.Faster || r.Pooled.Verdict == analysis.Slower:
			c.Reproduced, c.Outcome = r.Pooled, findingReversed
		case r.Pooled.Verdict == analysis.NoDifference:
			c.Reproduced, c.Outcome = r.Pooled, findingNotShown
		default:
			c.Reproduced, c.Outcome = r.Pooled, fmt.Sprintf(findingUntestedR, r.Pooled.Reason)
		}
		out = append(out, c)
	}
	return out
}

// line is the finding as the account's first lines say it.
func (c findingCheck) line() string {
	rep := "not run"
	if c.Reproduced != nil {
		rep = pooledChangeText(c.Reproduced)
	}
	return fmt.Sprintf("%s %s than %s in %s: published %s, reproduced %s: %s", c.Target, c.Verdict, c.Baseline, c.Scenario,
		pctText(c.Published.Change), rep, c.Outcome)
}

func pctText(f float64) string {
	if math.IsNaN(f) {
		return "—"
	}
	return fmt.Sprintf("%+.1f %%", f)
}

// reproduction is everything reproduce prints.
type reproduction struct {
	title, file, results, name string
	baseline                   string
	baselineMissing            string // why the findings could not be checked, "" when they were
	findings                   []findingCheck
	across                     *acrossStudies
	deviations                 []string
	env                        []envTable
	leftOut                    []string // published targets not reproduced
}

// account compares the reproduction with the publication.
func account(p *published, pubRuns []*result.Run, pubGroups []*analysis.Group, repRuns []*result.Run, baseline, name string, changes []string, results string) (*reproduction, error) {
	acc := &reproduction{title: p.name, file: p.file, results: results, name: name, deviations: changes}
	pubF, err := analysis.Summarise(pubGroups, baseline, analysis.DefaultAlpha, nil)
	if err != nil {
		return nil, err
	}
	acc.baseline = pubF.Baseline
	repGroups, err := analysis.GroupRuns(repRuns)
	if err != nil {
		return nil, err
	}
	var repF *analysis.Findings
	repTargets := runTargets(repRuns)
	missing := slices.DeleteFunc(analysis.SplitBaselines(pubF.Baseline), func(b string) bool { return slices.Contains(repTargets, b) })
	if len(missing) == 0 {
		if repF, err = analysis.Summarise(repGroups, pubF.Baseline, analysis.DefaultAlpha, nil); err != nil {
			return nil, err
		}
	} else {
		acc.baselineMissing = fmt.Sprintf("the baseline %s was not reproduced (not mapped): no finding can be checked", strings.Join(missing, ", "))
	}
	acc.findings = checkFindings(pubF, repF)
	var pairs []targetPair
	for _, t := range runTargets(pubRuns) {
		if slices.Contains(repTargets, t) {
			pairs = append(pairs, targetPair{base: t, cur: t})
		} else {
			acc.leftOut = append(acc.leftOut, t)
		}
	}
	if acc.across, err = compareAcross(pubRuns, repRuns, pairs, name, "published", analysis.DefaultAlpha); err != nil {
		return nil, err
	}
	for _, pr := range pairs {
		acc.env = append(acc.env, environmentTable(pr.cur, firstOK(pubRuns, pr.base), firstOK(repRuns, pr.cur)))
	}
	return acc, nil
}

func firstOK(runs []*result.Run, target string) *result.Run {
	var any *result.Run
	for _, r := range runs {
		if r.Target != target {
			continue
		}
		if r.Status == result.StatusOK {
			return r
		}
		if any == nil {
			any = r
		}
	}
	return any
}

// envTable is one target's environment, published against reproduced.
type envTable struct {
	Target string   `json:"target"`
	Rows   []envRow `json:"rows"`
}

type envRow struct {
	Fact       string `json:"fact"`
	Published  string `json:"published"`
	Reproduced string `json:"reproduced"`
	Differs    bool   `json:"differs"`
}

// environmentTable sets the facts a reader compares side by side: the
// engine and its version, the settings the driver recorded, the host's
// cores and CPU, TLS, kernel, governor, THP and virtualisation.
func environmentTable(target string, pub, rep *result.Run) envTable {
	t := envTable{Target: target}
	var pe, re result.Environment
	if pub != nil {
		pe = pub.Env
	}
	if rep != nil {
		re = rep.Env
	}
	add := func(fact string, f func(result.Environment) string) {
		a, b := f(pe), f(re)
		t.Rows = append(t.Rows, envRow{Fact: fact, Published: a, Reproduced: b, Differs: a != b})
	}
	add("engine", func(e result.Environment) string {
		return strings.TrimSpace(e.Database.Engine + " " + e.Database.VersionText())
	})
	installation := slices.Concat(pe.Database.WithEngineFacts().InstallationSettings, re.Database.WithEngineFacts().InstallationSettings)
	var keys []string
	for _, s := range []map[string]string{pe.Database.Settings, re.Database.Settings} {
		for k := range s {
			if !slices.Contains(keys, k) && !slices.Contains(installation, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		add("setting "+k, func(e result.Environment) string { return e.Database.Settings[k] })
	}
	add("cores", func(e result.Environment) string {
		h := e.Host
		if h.Cores == 0 && h.Threads == 0 {
			return ""
		}
		return fmt.Sprintf("%d cores, %d threads", h.Cores, h.Threads)
	})
	add("declared cores", func(e result.Environment) string {
		if e.Declared.Cores == 0 {
			return ""
		}
		return fmt.Sprint(e.Declared.Cores)
	})
	add("CPU model", func(e result.Environment) string { return e.Host.CPUModel })
	add("TLS", func(e result.Environment) string {
		if tls, ok := e.Database.TLS(); ok {
			return tls.String()
		}
		return ""
	})
	add("kernel", func(e result.Environment) string { return e.Host.Kernel })
	add("governor", func(e result.Environment) string { return e.Host.CPUGovernor })
	add("THP", func(e result.Environment) string { return e.Host.TransparentHugepages })
	add("virtualisation", func(e result.Environment) string { return e.Host.Virtualisation })
	for i := range t.Rows {
		for _, v := range []*string{&t.Rows[i].Published, &t.Rows[i].Reproduced} {
			if *v == "" {
				*v = "—"
			}
		}
	}
	return t
}

// cellRows are the per-cell lines: published → reproduced headline.
func (acc *reproduction) cellRows() [][]string {
	var rows [][]string
	for _, it := range acc.across.items {
		for _, cc := range it.Cells {
			m := cc.Headline
			verdict := string(m.Verdict)
			if !math.IsNaN(m.P) {
				verdict += fmt.Sprintf(" (p=%.3f)", m.P)
			}
			rows = append(rows, []string{cc.Other.Target, it.Scenario, cc.Other.LevelID(), metricShown(m, m.Base), metricShown(m, m.Value), changeText(m), verdict})
		}
	}
	return rows
}

var cellHeader = []string{"target", "scenario", "clients", "published", "reproduced", "change [CI]", "verdict"}

// compareHint is the command that prints the whole comparison, latency
// percentiles and methodology included.
func (acc *reproduction) compareHint() string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return fmt.Sprintf("fairbench compare --results %s --study %s --against %s --baseline-study %s", q(acc.results), q(acc.name), q(acc.file), q(acc.title))
}

func (acc *reproduction) findingLines() []string {
	var out []string
	if acc.baselineMissing != "" {
		out = append(out, acc.baselineMissing)
	}
	for _, f := range acc.findings {
		out = append(out, f.line())
	}
	if len(acc.findings) == 0 && acc.baselineMissing == "" {
		out = append(out, fmt.Sprintf("the publication has no finding against %s: no scenario's pooled verdict is a significant difference", acc.baseline))
	}
	return out
}

func (acc *reproduction) writeText(w io.Writer) {
	for _, l := range acc.findingLines() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "\n%s (%s) reproduced as %q in %s\n", acc.title, acc.file, acc.name, acc.results)
	for _, d := range acc.deviations {
		fmt.Fprintf(w, "deviation: %s\n", d)
	}
	for _, t := range acc.leftOut {
		fmt.Fprintf(w, "%s: not mapped, not reproduced\n", t)
	}
	fmt.Fprintf(w, "\nPer cell, median headline, published → reproduced (change at α = %.2f, compare's statistics):\n", acc.across.cmp.Alpha)
	writeAligned(w, cellHeader, acc.cellRows())
	fmt.Fprintf(w, "all metrics and the methodology: %s\n", acc.compareHint())
	for _, t := range acc.env {
		fmt.Fprintf(w, "\nEnvironment of %s (≠ differs):\n", t.Target)
		rows := envRows(t.Rows)
		writeAligned(w, []string{"", "published", "reproduced", ""}, rows)
	}
}

// envRows is an environment table's rows: fact, published, reproduced,
// and ≠ where they differ.
func envRows(facts []envRow) [][]string {
	rows := make([][]string, 0, len(facts))
	for _, r := range facts {
		mark := ""
		if r.Differs {
			mark = "≠"
		}
		rows = append(rows, []string{r.Fact, r.Published, r.Reproduced, mark})
	}
	return rows
}

// writeAligned writes rows under header in aligned columns.
func writeAligned(w io.Writer, header []string, rows [][]string) {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func (acc *reproduction) writeMarkdown(w io.Writer) {
	md := report.MarkdownCell
	fmt.Fprintf(w, "# %s reproduced\n\n", md(acc.title))
	for _, l := range acc.findingLines() {
		fmt.Fprintf(w, "- %s\n", md(l))
	}
	fmt.Fprintf(w, "\nReproduced from `%s` as **%s** in `%s`.\n\n", strings.ReplaceAll(acc.file, "`", "'"), md(acc.name), strings.ReplaceAll(acc.results, "`", "'"))
	for _, d := range acc.deviations {
		fmt.Fprintf(w, "- deviation: %s\n", md(d))
	}
	for _, t := range acc.leftOut {
		fmt.Fprintf(w, "- %s: not mapped, not reproduced\n", md(t))
	}
	fmt.Fprintf(w, "\n## Per cell\n\nMedian headline, published → reproduced, change at α = %.2f (compare's statistics).\n\n", acc.across.cmp.Alpha)
	writeMarkdownTable(w, cellHeader, acc.cellRows())
	for _, t := range acc.env {
		fmt.Fprintf(w, "\n## Environment of %s\n\n", md(t.Target))
		rows := envRows(t.Rows)
		writeMarkdownTable(w, []string{"", "published", "reproduced", "differs"}, rows)
	}
}

func writeMarkdownTable(w io.Writer, header []string, rows [][]string) {
	line := func(r []string) {
		var cells []string
		for _, c := range r {
			cells = append(cells, report.MarkdownCell(c))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line(header)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	for _, r := range rows {
		line(r)
	}
}

func (acc *reproduction) writeJSON(w io.Writer) error {
	type jfinding struct {
		Target     string    `json:"target"`
		Baseline   string    `json:"baseline"`
		Scenario   string    `json:"scenario"`
		Verdict    string    `json:"verdict"`
		Published  *float64  `json:"published_pct"`
		Reproduced *float64  `json:"reproduced_pct"`
		CI         []float64 `json:"reproduced_pct_ci,omitempty"`
		Outcome    string    `json:"outcome"`
		Line       string    `json:"line"`
	}
	var cmp bytes.Buffer
	if err := writeComparison(&cmp, acc.across.cmp, acc.name, acc.results, "json"); err != nil {
		return err
	}
	doc := struct {
		Study      string          `json:"study"`
		File       string          `json:"file"`
		Reproduced string          `json:"reproduced_as"`
		Results    string          `json:"results"`
		Note       string          `json:"note,omitempty"`
		Findings   []jfinding      `json:"findings"`
		Deviations []string        `json:"deviations"`
		LeftOut    []string        `json:"not_reproduced,omitempty"`
		Env        []envTable      `json:"environment"`
		Comparison json.RawMessage `json:"comparison"`
	}{Study: acc.title, File: acc.file, Reproduced: acc.name, Results: acc.results, Note: acc.baselineMissing, Findings: []jfinding{},
		Deviations: append([]string{}, acc.deviations...), LeftOut: acc.leftOut, Env: acc.env, Comparison: cmp.Bytes()}
	for _, f := range acc.findings {
		j := jfinding{Target: f.Target, Baseline: f.Baseline, Scenario: f.Scenario, Verdict: string(f.Verdict), Published: finiteOrNil(f.Published.Change), Outcome: f.Outcome, Line: f.line()}
		if f.Reproduced != nil {
			j.Reproduced = finiteOrNil(f.Reproduced.Change)
			if f.Reproduced.CI.OK() {
				j.CI = []float64{f.Reproduced.CI.Lo, f.Reproduced.CI.Hi}
			}
		}
		doc.Findings = append(doc.Findings, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
