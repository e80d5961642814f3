package report

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// firstRuns is each target's first run, in the groups' order: what the
// setup tables read.
func firstRuns(groups []*analysis.Group) []*result.Run {
	seen := map[string]bool{}
	var out []*result.Run
	for _, g := range groups {
		if !seen[g.Target] && len(g.Runs) > 0 {
			seen[g.Target] = true
			out = append(out, g.Runs[0])
		}
	}
	return out
}

// targetsTable is each target's setup as its runs recorded it: the engine and
// version the server reported, the TLS of the client's connections (version
// and cipher where the driver says), and the engine's own cache under its
// own name, so that a reader sees what was compared before the numbers;
// where a target's connections went through a connection pooler, a column
// names it. It reads the first run of each target; false when no run
// recorded a database.
func targetsTable(groups []*analysis.Group) (table, bool) {
	t := table{Caption: "Targets as measured (first run of each): the engine and version the server reported, TLS of the client's " +
		"connections, the engine's own cache:",
		Header: []string{"target", "engine", "version", "TLS", "cache"},
		Right:  []bool{false, false, false, false, true}}
	runs := firstRuns(groups)
	pooled := false
	for _, r := range runs {
		pooled = pooled || r.Env.Database.Pooler != nil
	}
	if pooled {
		t.Caption = strings.TrimSuffix(t.Caption, ":") + ", the connection pooler the client went through:"
		t.Header = append(t.Header, "pooler")
		t.Right = append(t.Right, false)
	}
	recorded := false
	for _, r := range runs {
		db := r.Env.Database
		if db.Empty() {
			row := make([]string, len(t.Header))
			row[0], row[1] = r.Target, "not recorded"
			t.Rows = append(t.Rows, row)
			continue
		}
		recorded = true
		tls := "not recorded"
		if s, ok := db.TLS(); ok {
			tls = s.String()
		}
		cache := ""
		if b, setting := db.Cache(); b > 0 {
			cache = setting + " " + numfmt.BytesIEC(float64(b))
		}
		row := []string{r.Target, db.Engine, db.VersionText(), tls, cache}
		if pooled {
			row = append(row, db.Pooler.String())
		}
		t.Rows = append(t.Rows, row)
	}
	return t, recorded
}

// hostsTable is the OS of each target's load generator as its first run
// recorded it, the facts that change a measurement beside the hardware:
// kernel, container or hypervisor, CPU governor, transparent huge pages,
// swappiness, NUMA nodes. False when no run recorded any of them.
func hostsTable(groups []*analysis.Group) (table, bool) {
	t := table{Caption: "Client hosts as measured (first run of each target): the OS settings that shape a measurement:",
		Header: []string{"target", "kernel", "virtualisation", "CPU governor", "transparent huge pages", "swappiness", "NUMA nodes"},
		Right:  []bool{false, false, false, false, false, true, true}}
	recorded := false
	for _, r := range firstRuns(groups) {
		h := r.Env.Host
		swappiness, nodes := "", ""
		if h.Swappiness != nil {
			swappiness = strconv.Itoa(*h.Swappiness)
		}
		if h.NUMANodes > 0 {
			nodes = strconv.Itoa(h.NUMANodes)
		}
		row := []string{r.Target, h.Kernel, h.Virtualisation, h.CPUGovernor, h.TransparentHugepages, swappiness, nodes}
		if strings.Join(row[1:], "") != "" {
			recorded = true
		}
		t.Rows = append(t.Rows, row)
	}
	return t, recorded
}
