package analysis

import (
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Namer names cells by what varies in the study: "oltp read_write, 2
// clients", not the full list of a workload's parameters, most of them the
// same in every cell. Only the parameters whose value (or presence) differs
// between the groups of one workload (study, workload name and kind) are
// named; the ones they share are listed once by the reports.
type Namer struct {
	vary map[string]map[string]bool // workload key → varying parameter names
}

// WorkloadKey identifies a workload of a study across its parameter sets.
func WorkloadKey(study, workload, kind string) string {
	return study + "\x00" + workload + "\x00" + kind
}

// NewNamer finds, per workload, the parameters that vary between groups.
func NewNamer(groups []*Group) *Namer {
	values := map[string]map[string]map[string]bool{} // workload → param → formatted values
	count := map[string]int{}
	present := map[string]map[string]int{}
	for _, g := range groups {
		wk := WorkloadKey(g.Study, g.Workload, g.Kind)
		count[wk]++
		if values[wk] == nil {
			values[wk] = map[string]map[string]bool{}
			present[wk] = map[string]int{}
		}
		for k, v := range g.ParamValues {
			if values[wk][k] == nil {
				values[wk][k] = map[string]bool{}
			}
			values[wk][k][params.Format(v)] = true
			present[wk][k]++
		}
	}
	n := &Namer{vary: map[string]map[string]bool{}}
	for wk, ps := range values {
		n.vary[wk] = map[string]bool{}
		for k, vs := range ps {
			if len(vs) > 1 || present[wk][k] != count[wk] {
				n.vary[wk][k] = true
			}
		}
	}
	return n
}

// Varies reports whether parameter name varies between the groups of g's workload.
func (n *Namer) Varies(g *Group, name string) bool {
	return n.vary[WorkloadKey(g.Study, g.Workload, g.Kind)][name]
}

// Varying returns the parameters of g that vary in its workload.
func (n *Namer) Varying(g *Group) params.Values {
	return n.varying(WorkloadKey(g.Study, g.Workload, g.Kind), g.ParamValues)
}

func (n *Namer) varying(wk string, pv params.Values) params.Values {
	v := params.Values{}
	for k, x := range pv {
		if n.vary[wk][k] {
			v[k] = x
		}
	}
	return v
}

// paramText writes parameter values the way a reader names a cell: as
// name=value ("tables=8 rw=randread") in name order, separated by spaces,
// except a single string value, which its value alone names ("read_write").
func paramText(v params.Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if s, ok := v[k].(string); ok && s != "" && len(keys) == 1 {
			parts = append(parts, s)
		} else {
			parts = append(parts, k+"="+params.Format(v[k]))
		}
	}
	return strings.Join(parts, " ")
}

// WorkloadName is the workload's name, with its kind when that differs.
func WorkloadName(workload, kind string) string {
	if kind == "" || kind == workload {
		return workload
	}
	return workload + " (" + kind + ")"
}

// Scenario names g's scenario: its workload and the parameters that vary.
func (n *Namer) Scenario(g *Group) string {
	s := WorkloadName(g.Workload, g.Kind)
	if p := paramText(n.Varying(g)); p != "" {
		s += " " + p
	}
	return s
}

// Cell names g within its scenario's workload: "read_write, 2 clients".
func (n *Namer) Cell(g *Group) string {
	return joinComma(paramText(n.Varying(g)), clientsText(g.Clients))
}

// Label names g anywhere in a report: "delete-full · oltp read_write, 2 clients".
func (n *Namer) Label(g *Group) string {
	return g.Target + " · " + joinComma(n.Scenario(g), clientsText(g.Clients))
}

// VaryingRun returns the parameters of r that vary in its workload.
func (n *Namer) VaryingRun(r *result.Run) params.Values {
	return n.varying(WorkloadKey(r.StudyName, r.Workload, r.Kind), params.Values(r.Params))
}

// runLabel names a run: its cell's label and its repetition.
func (n *Namer) runLabel(r *result.Run) string {
	wk := WorkloadKey(r.StudyName, r.Workload, r.Kind)
	s := WorkloadName(r.Workload, r.Kind)
	if p := paramText(n.varying(wk, params.Values(r.Params))); p != "" {
		s += " " + p
	}
	return r.Target + " · " + s + ", " + clientsText(r.Clients) + ", rep " + strconv.Itoa(r.Repetition)
}

func clientsText(c int) string {
	return strconv.Itoa(c) + numfmt.Plural(c, " client", " clients")
}

func joinComma(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}
