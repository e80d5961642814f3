package report

import (
	"strings"
	"unicode/utf8"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
)

// labeler names cells by what varies in the study (analysis.Namer: "oltp
// read_write, 2 clients"); the parameters every group of a workload shares
// are listed once per workload, and of those only the ones that differ from
// the workload's declared defaults and apply to an engine its targets run
// (a MySQL storage engine is no fact about SQLite).
type labeler struct {
	names   *analysis.Namer
	engines map[string]map[string]bool // workload key → engines its runs recorded
}

func newLabeler(groups []*analysis.Group) labeler {
	l := labeler{names: analysis.NewNamer(groups), engines: map[string]map[string]bool{}}
	for _, g := range groups {
		wk := workloadKey(g)
		if l.engines[wk] == nil {
			l.engines[wk] = map[string]bool{}
		}
		for _, r := range g.Runs {
			if e := r.Env.Database.Engine; e != "" {
				l.engines[wk][e] = true
			}
		}
	}
	return l
}

// workloadKey identifies a workload across parameter sets.
func workloadKey(g *analysis.Group) string { return analysis.WorkloadKey(g.Study, g.Workload, g.Kind) }

func workloadName(g *analysis.Group) string { return analysis.WorkloadName(g.Workload, g.Kind) }

// scenario names a section: the workload and the parameters that vary.
func (l labeler) scenario(g *analysis.Group) string { return l.names.Scenario(g) }

// cell names a group within its workload: "read_write, 2 clients".
func (l labeler) cell(g *analysis.Group) string { return l.names.Cell(g) }

// params is the params column of the terminal tables: the varying
// parameters as name=value, "-" when none varies.
func (l labeler) params(g *analysis.Group) string {
	if v := l.names.Varying(g); len(v) > 0 {
		return v.Canonical()
	}
	return "-"
}

// common is what scenario leaves out: the parameters all the groups of g's
// workload share, without the ones at their declared default or that apply
// to none of the workload's engines. A kind without declared parameters (an
// import) shows them all.
func (l labeler) common(g *analysis.Group) string {
	specs, _ := kinds.Params(g.Kind)
	v := params.Values{}
	for k, x := range g.ParamValues {
		if l.names.Varies(g, k) {
			continue
		}
		if s, ok := params.Find(specs, k); ok {
			if params.Format(s.Default) == params.Format(x) || !l.applies(g, s) {
				continue
			}
		}
		v[k] = x
	}
	return v.Canonical()
}

// applies reports whether a parameter applies to any engine g's workload ran on.
func (l labeler) applies(g *analysis.Group, s params.Spec) bool {
	engines := l.engines[workloadKey(g)]
	if len(engines) == 0 || len(s.Engines) == 0 {
		return true
	}
	for e := range engines {
		if s.AppliesTo(e) {
			return true
		}
	}
	return false
}

// commonAll lists, per workload in order of appearance, its shared parameters.
func (l labeler) commonAll(groups []*analysis.Group) []string {
	var out []string
	done := map[string]bool{}
	for _, g := range groups {
		wk := workloadKey(g)
		if done[wk] {
			continue
		}
		done[wk] = true
		if c := l.common(g); c != "" {
			out = append(out, workloadName(g)+" "+c)
		}
	}
	return out
}

// commonLine is the sentence that lists a workload's shared parameters once.
func commonLine(g *analysis.Group, common string) string {
	if common == "" {
		return "Parameters of every " + workloadName(g) + " section: the workload's defaults."
	}
	return "Parameters of every " + workloadName(g) + " section: " + common + " (others at their defaults)."
}

// lineWidth bounds the prose lines of text and Markdown reports (tables
// excepted): a report reads in a terminal or a diff without scrolling.
const lineWidth = 120

// wrap breaks s at spaces into lines of at most width characters (a word
// longer than width stays whole), the continuation lines indented.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		l := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteString("\n" + indent)
			n = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
