package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 36: a change without a printable interval (2 scattered repetitions
// a side) is printed with the reason, never with an interval, in every
// format that prints deltas (text, Markdown and HTML share deltaText; JSON
// has the reason beside the absent interval).
func TestChangeWithoutIntervalPrintsTheReason(t *testing.T) {
	why := "2 repetitions scattering ±120 %: too few for an interval; ~14 per side would give about ±62 %"
	m := analysis.Metric{Name: "ops", Unit: "ops/s", Headline: true, HigherIsBetter: true, Base: 1000, Value: 6892,
		BaseN: 2, N: 2, Delta: 589.2, NoCI: why}
	got := deltaText(m, 0.95)
	if got != "+589.2 % ("+why+")" {
		t.Errorf("delta printed %q", got)
	}
	if strings.Contains(got, "[") {
		t.Errorf("delta without an interval printed one: %q", got)
	}
	b, err := json.Marshal(metricJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if _, ok := j["delta_pct_ci"]; ok || j["delta_pct_no_ci"] != why {
		t.Errorf("JSON has delta_pct_ci %v, delta_pct_no_ci %v", j["delta_pct_ci"], j["delta_pct_no_ci"])
	}
	m.DeltaCI, m.NoCI = analysis.CI{Lo: 400, Hi: 700, Level: 0.95}, ""
	if got := deltaText(m, 0.95); got != "+589.2 % [+400.0, +700.0]" {
		t.Errorf("delta with an interval printed %q", got)
	}
}

// Issue 38: the peak tables of `compare --peak` named each scenario by every
// parameter (columns ~400 characters wide). They are named by what varies
// between the compared scenarios; what all share is one line above.
func TestPeakColumnsNamedByWhatVaries(t *testing.T) {
	shared := map[string]any{"fillfactor": int64(100), "load_workers": int64(1), "scale": int64(1), "unlogged": false, "vacuum": true}
	var runs []*result.Run
	id := int64(0)
	for _, mode := range []string{"select-only", "tpcb-like"} {
		for _, target := range []string{"a", "b"} {
			id++
			p := map[string]any{"mode": mode}
			for k, v := range shared {
				p[k] = v
			}
			runs = append(runs, &result.Run{ID: id, StudyName: "s", Target: target, Workload: "w", Kind: "w", Params: p,
				Clients: 2, Repetition: 1, Status: result.StatusOK, Duration: time.Second,
				Summary: result.Summary{Transactions: 100 * id, Throughput: float64(100 * id)}})
		}
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := PeakTerminal(&b, analysis.Peaks(groups, "a"), "a", nil, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	var header string
	for _, l := range lines {
		if strings.Contains(l, "target") {
			header = l
			break
		}
	}
	if got := strings.Fields(header); strings.Join(got, " ") != "target w select-only w tpcb-like" {
		t.Errorf("header %q, want the workload and mode only:\n%s", header, out)
	}
	if !strings.Contains(out, "Same in every column: w fillfactor=100 load_workers=1 scale=1 unlogged=false vacuum=true") {
		t.Errorf("no line of the shared parameters:\n%s", out)
	}
	// a: 100 and 300 tps; b: 200 and 400 tps.
	if !containsFields(out, []string{"b", "200.0", "(2)", "¹", "400.0", "(2)", "¹"}) {
		t.Errorf("peak row of b:\n%s", out)
	}
}
