package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
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
