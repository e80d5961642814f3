package runner

import (
	"slices"
	"testing"
)

// TestCatalogHasWorkloadsAndTools: the catalog callers pass to the study
// parser knows the registered workloads and the runnable tools, with the
// parameters of the kinds only tools run.
func TestCatalogHasWorkloadsAndTools(t *testing.T) {
	var c Catalog
	if !slices.Contains(c.Kinds(), fakeWorkload{}.Kind()) {
		t.Errorf("Kinds() = %v, want the registered %s", c.Kinds(), fakeWorkload{}.Kind())
	}
	if _, ok := c.Params(fakeWorkload{}.Kind()); !ok {
		t.Error("no parameters for a registered workload")
	}
	kind, ok := c.Tool("fio")
	if !ok || kind != "fio" {
		t.Fatalf("Tool(fio) = %q, %v; want kind fio", kind, ok)
	}
	if !slices.Contains(c.Tools(), "fio") {
		t.Errorf("Tools() = %v, want fio among them", c.Tools())
	}
	if _, ok := c.Params(kind); !ok {
		t.Error("no parameters for fio's kind, which only a tool runs")
	}
	if _, ok := c.Tool("no-such-tool"); ok {
		t.Error("an unknown tool is runnable")
	}
}
