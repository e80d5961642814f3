package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/testenv"
)

// peakStudy stores the runs of internal/analysis/testdata/vm_vs_k8s_peak.json
// (three environments, clients 8…128, one run per point) in dir/fairbench.db.
func peakStudy(t *testing.T, dir string) map[string]map[string]float64 {
	t.Helper()
	b, err := os.ReadFile("../../internal/analysis/testdata/vm_vs_k8s_peak.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Clients  []int                           `json:"clients"`
		TPS      map[string]map[string][]float64 `json:"tps"`
		Expected map[string]map[string]struct {
			Degradation float64 `json:"degradation_pct"`
		} `json:"expected"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, mode := range []string{"select-only", "tpcb-like", "simple-update"} {
		for i, c := range f.Clients {
			for _, target := range []string{"native-vm", "cnpg-local-ssd", "cnpg-network-ssd"} {
				_, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "vm-vs-k8s", Target: target,
					TargetURL: "postgres://bench@" + target + "/bench", Workload: "pgbench", Kind: "tpcb",
					Params: map[string]any{"mode": mode, "scale": int64(100)}, Clients: c, Repetition: 1,
					Status: result.StatusOK, Summary: result.Summary{Throughput: f.TPS[mode][target][i], Transactions: 1000}})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	out := map[string]map[string]float64{}
	for mode, ts := range f.Expected {
		out[mode] = map[string]float64{}
		for target, e := range ts {
			out[mode][target] = e.Degradation
		}
	}
	return out
}

// Acceptance: compare --peak reproduces the study's degradation table to 0.1 %.
func TestComparePeakReproducesDegradations(t *testing.T) {
	dir := t.TempDir()
	want := peakStudy(t, dir)
	o := fairbench(t, dir, "compare", "--baseline", "native-vm", "--peak", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var doc struct {
		Peaks []struct {
			Scenario    string   `json:"scenario"`
			Target      string   `json:"target"`
			AtEdge      bool     `json:"at_edge"`
			SingleRun   bool     `json:"single_run"`
			Degradation *float64 `json:"degradation_pct"`
		} `json:"peaks"`
		Warnings []struct{ Check string } `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	checked := 0
	for _, p := range doc.Peaks {
		mode := strings.TrimPrefix(strings.Fields(p.Scenario)[1], "mode=")
		if p.Target == "native-vm" {
			continue
		}
		if p.Degradation == nil {
			t.Fatalf("%s %s: no degradation", mode, p.Target)
		}
		got, exp := *p.Degradation, want[mode][p.Target]
		if d := got - exp; d > 0.05 || d < -0.05 {
			t.Errorf("%s %s: degradation %.2f %%, published %.1f %%", mode, p.Target, got, exp)
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d degradations, want 6", checked)
	}
	have := map[string]bool{}
	for _, w := range doc.Warnings {
		have[w.Check] = true
	}
	if !have["single-run"] || !have["peak-edge"] {
		t.Errorf("one run per point and a peak at 128 clients must be warned about: %+v", doc.Warnings)
	}

	text := fairbench(t, dir, "compare", "--baseline", "native-vm", "--peak")
	for _, s := range []string{"Max TPS per scenario (clients)", "55,120.8 (64)", "35,210.6 (128) † ¹", "20.3", "36.1", "38.8", "40.4", "Methodology", "peak-edge"} {
		if !strings.Contains(text.stdout, s) {
			t.Errorf("peak table lacks %q:\n%s", s, text.stdout)
		}
	}
	md := fairbench(t, dir, "compare", "--baseline", "native-vm", "--peak", "--format", "md")
	if !strings.Contains(md.stdout, "| cnpg-local-ssd | 43,905.2 (64) ¹ |") || !strings.Contains(md.stdout, "## Methodology") {
		t.Errorf("markdown peak table:\n%s", md.stdout)
	}
}

func TestCompareAndReportFormats(t *testing.T) {
	dir := t.TempDir()
	peakStudy(t, dir)
	for _, args := range [][]string{
		{"compare", "--baseline", "native-vm"},
		{"compare", "--baseline", "native-vm", "--format", "md"},
		{"compare", "--baseline", "native-vm", "--format", "csv"},
		{"compare", "--baseline", "native-vm", "--format", "benchstat"},
		{"report", "--format", "json"},
		{"report", "--format", "csv"},
		{"report"},
	} {
		o := fairbench(t, dir, args...)
		if o.code != 0 {
			t.Errorf("%v: exit %d: %s", args, o.code, o.stderr)
		}
		if args[0] == "compare" && len(args) == 3 && (!strings.Contains(o.stdout, "-15.5 % ? (n=1)") || !strings.Contains(o.stdout, "? a single run on a side: no test")) {
			t.Errorf("one run per side must say single run:\n%s", o.stdout)
		}
	}
	bs := fairbench(t, dir, "report", "--format", "benchstat")
	if !strings.Contains(bs.stdout, "Unit tps better=higher") ||
		!strings.Contains(bs.stdout, "BenchmarkTpcb/workload=pgbench/target=native-vm/mode=select-only/scale=100/clients=8\t1000\t") ||
		!strings.Contains(bs.stdout, " tps\t") {
		t.Errorf("benchstat output:\n%s", bs.stdout)
	}
	o := fairbench(t, dir, "compare", "--baseline", "nope")
	if o.code == 0 || !strings.Contains(o.stderr, `baseline "nope" has no runs`) {
		t.Errorf("unknown baseline: %d %s", o.code, o.stderr)
	}
}

// No password reaches env output, the store or any report format.
func TestNoPasswordInEnvStoreOrReports(t *testing.T) {
	url := testenv.FreshPostgres(t)
	password := testenv.Password(t, url)
	dir := t.TempDir()
	outputs := map[string]string{}
	o := fairbench(t, dir, "env", "--target", url)
	if o.code != 0 {
		t.Fatalf("env: exit %d: %s", o.code, o.stderr)
	}
	outputs["env"] = o.stdout + o.stderr
	if !strings.Contains(o.stdout, "database_size_bytes") || !strings.Contains(o.stdout, "uptime") {
		t.Errorf("env lacks database facts:\n%s", o.stdout)
	}
	o = fairbench(t, dir, "run", "--target", url, "--workload", "tpcb", "--mode", "select-only",
		"--scale", "1", "-c", "1", "-T", "1s")
	if o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	outputs["run"] = o.stdout + o.stderr
	for _, f := range []string{"text", "md", "json", "csv", "benchstat"} {
		r := fairbench(t, dir, "report", "--format", f)
		outputs["report "+f] = r.stdout + r.stderr
	}
	runs := storedRuns(t, dir)
	if len(runs) == 0 {
		t.Fatal("no run stored")
	}
	for _, f := range []string{"text", "json"} {
		r := fairbench(t, dir, "compare", "--baseline", runs[0].Target, "--format", f)
		outputs["compare "+f] = r.stdout + r.stderr
	}
	outputs["results file"] = readAll(t, dir, "fairbench.db*")
	for name, text := range outputs {
		if strings.Contains(text, password) {
			t.Errorf("the password appears in %s", name)
		}
	}
}
