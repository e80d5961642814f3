package analysis

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// A fairbench confined by a cgroup to 0.3 CPU that used 91 % of it is a
// saturated load generator, though it used 14 % of the host's 2 threads.
func TestSaturationIsAgainstTheCPUBudget(t *testing.T) {
	quota := map[string]any{"threads": int64(2), "cpu_budget": 0.3, "cpu_budget_source": "cgroup cpu.max 30000 100000"}
	r := withSeries(okRun(1, "a", 8, 1000), steady(), 0.273)
	r.Env = result.EnvironmentFromMap(map[string]any{"host": quota})
	w := checks(Warnings(group(t, r), ""), checkSaturation)
	if len(w) != 1 || !strings.Contains(w[0].Message, "0.27 cores of its CPU budget of 0.30 cores (cgroup cpu.max 30000 100000; the host has 2 threads) (91 %)") {
		t.Fatalf("saturation against the quota not raised: %+v", w)
	}
	r3 := withSeries(okRun(1, "a", 8, 1000), steady(), 0.273)
	r3.Env = result.EnvironmentFromMap(map[string]any{"host": map[string]any{"threads": int64(2), "cpu_budget": 2.0, "cpu_budget_source": "host threads"}})
	if w := checks(Warnings(group(t, r3), ""), checkSaturation); len(w) != 0 {
		t.Fatalf("saturation raised at 14 %% of the host's threads: %+v", w)
	}
}

// A flagged run is a methodology warning naming its reasons; its dead seconds
// held up by the host are not called the target's outage.
func TestFlaggedRunIsAWarningAndNotAnOutageOfTheTarget(t *testing.T) {
	rates := steady()
	rates[3], rates[4] = 0, 0
	r := withSeries(okRun(1, "a", 1, 900), rates, 0.1)
	r.Summary.MeasuredSeconds = len(rates)
	r.Series[3].Missed, r.Series[4].Missed = true, true
	d := result.DeadSecondsOf(r.Series, r.Summary.MeasuredSeconds, false)
	r.Summary.DeadSpans, r.Summary.DeadSeconds, r.Summary.SilentSeconds, r.Summary.StarvedSeconds = d.Spans, d.Seconds, d.Silent, d.Starved
	r.Summary.Flags = []result.Flag{{Kind: result.FlagHostBusy, Reason: "fairbench did not read 2 of its 30 seconds in time: it was not running"}}
	ws := Warnings(group(t, r), "")
	f := checks(ws, checkHostBusy)
	if len(f) != 1 || !strings.Contains(f[0].Message, "run 1") || !strings.Contains(f[0].Message, "host busy: fairbench did not read 2 of its 30 seconds") {
		t.Fatalf("flagged warning: %+v", f)
	}
	o := checks(ws, CheckOutage)
	if len(o) != 1 || !strings.Contains(o[0].Message, "no operation completed in 2 of 30 s (s 4–5)") ||
		!strings.Contains(o[0].Message, "2 of them without an error while fairbench itself was held up") ||
		strings.Contains(o[0].Message, "the target did not serve") {
		t.Fatalf("outage warning: %+v", o)
	}
}
