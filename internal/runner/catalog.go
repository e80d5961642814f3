package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// Catalog is what a study may name and this runner can run: the registered
// workloads and the external tools of internal/adapter. It is the
// study.Catalog callers pass to study.Load, Parse and Plan, so that the
// study package imports neither workloads nor adapters.
type Catalog struct{}

// Params returns the parameters of a native workload's kind, else those of
// a kind only tools run (fio).
func (Catalog) Params(kind string) ([]params.Spec, bool) {
	if w, err := workload.Get(kind); err == nil {
		return w.Params(), true
	}
	return adapter.KindParams(kind)
}

// Kinds lists the native workload kinds.
func (Catalog) Kinds() []string { return workload.Kinds() }

// Tool returns the kind of the runs a study cell of tool name makes; ok is
// false when the tool is unknown or fairbench can only import its output.
func (Catalog) Tool(name string) (string, bool) {
	t, ok := adapter.Lookup(name)
	if !ok || t.Build == nil {
		return "", false
	}
	return t.Kind, true
}

// Fits refuses a native workload on a target whose driver offers none of
// the capability families the workload needs (workload.Needer,
// driver.Offerer); either side that declares nothing passes.
func (Catalog) Fits(kind, url string) error {
	w, err := workload.Get(kind)
	if err != nil {
		return nil
	}
	n, ok := w.(workload.Needer)
	if !ok {
		return nil
	}
	offers, ok := driver.OffersFor(url)
	if !ok {
		return nil
	}
	for _, f := range n.Needs() {
		if slices.Contains(offers, f) {
			return nil
		}
	}
	scheme, _, _ := strings.Cut(url, ":")
	return fmt.Errorf("workload kind %s needs a %s target, and %s: targets speak %s: choose a target that speaks it",
		kind, families(n.Needs(), " or "), scheme, families(offers, " and "))
}

func families(fs []driver.Family, sep string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return strings.Join(out, sep)
}

// Tools lists the tools a study cell can run.
func (Catalog) Tools() []string {
	var out []string
	for _, t := range adapter.Tools() {
		if t.Build != nil {
			out = append(out, t.Name)
		}
	}
	return out
}
