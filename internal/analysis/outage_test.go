package analysis

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// A run with seconds of no completed operation is flagged, naming the seconds,
// the reconnects and the server's error text; a run without is not.
func TestOutageWarningNamesSecondsAndError(t *testing.T) {
	rates := steady()
	for i := 11; i <= 17; i++ { // seconds 12–18
		rates[i] = 0
	}
	r := withSeries(okRun(1, "a", 1, 800), rates, 0.1)
	d := result.DeadSecondsOf(r.Series, 0, false)
	r.Summary.DeadSpans, r.Summary.DeadSeconds = d.Spans, d.Seconds
	r.Summary.ReconnectAttempts, r.Summary.Reconnects = 35, 2
	r.Summary.FirstErrors = map[result.ErrorClass]string{result.ErrConnection: "dial tcp 127.0.0.1:5432: connect: connection refused"}
	w := checks(Warnings(group(t, r), ""), CheckOutage)
	if len(w) != 1 {
		t.Fatalf("outage not raised: %+v", w)
	}
	for _, want := range []string{"run 1", "no operation completed in 7 of 30 s (s 12–18)", "2 lost connections replaced in 35 attempts",
		"first connection error: dial tcp 127.0.0.1:5432: connect: connection refused"} {
		if !strings.Contains(w[0].Message, want) {
			t.Errorf("warning lacks %q: %s", want, w[0].Message)
		}
	}
	if w := checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 1000), steady(), 0.1)), ""), CheckOutage); len(w) != 0 {
		t.Errorf("outage raised for a run without one: %+v", w)
	}
}

func TestDeadSecondsOf(t *testing.T) {
	pts := []result.SeriesPoint{{Second: 1, Ops: 5}, {Second: 2}, {Second: 3, Errors: 2}, {Second: 4, Ops: 1}, {Second: 5, Errors: 1}, {Second: 6}}
	d := result.DeadSecondsOf(pts, 0, false)
	if d.Seconds != 4 || d.Silent != 2 || result.SpansText(d.Spans) != "s 2–3, s 5–6" {
		t.Fatalf("got %+v", d)
	}
	// A remainder after the last full tick (same second) is not a dead second.
	tail := append(append([]result.SeriesPoint{}, pts[:4]...), result.SeriesPoint{Second: 4, Errors: 3})
	if d := result.DeadSecondsOf(tail, 0, false); d.Seconds != 2 || result.SpansText(d.Spans) != "s 2–3" {
		t.Fatalf("with a short remainder: got %+v", d)
	}
	// Slow operations (or a low rate): only seconds with errors count.
	d = result.DeadSecondsOf(pts, 0, true)
	if d.Seconds != 2 || d.Silent != 0 || result.SpansText(d.Spans) != "s 3, s 5" {
		t.Fatalf("errors only: got %+v", d)
	}
}

// Only the measured phase's points count: a 3 s run whose clients took two
// seconds to stop has 3 measured seconds, not 5 ("3 dead seconds of 4 (s 1–2,
// s 5)" before). A second fairbench did not read is dead and starved, and so
// is one in which its threads waited for a CPU.
func TestDeadSecondsOfTheMeasuredPhaseOnly(t *testing.T) {
	pts := []result.SeriesPoint{{Second: 1, Missed: true}, {Second: 2, CPUWait: 0.6}, {Second: 3, Ops: 9}, {Second: 5}}
	d := result.DeadSecondsOf(pts, 3, false)
	if d.Seconds != 2 || d.Silent != 2 || d.Starved != 2 || result.SpansText(d.Spans) != "s 1–2" {
		t.Fatalf("got %+v", d)
	}
	pts[1].CPUWait = 0.01 // clients blocked on a server that does not answer
	if d := result.DeadSecondsOf(pts, 3, false); d.Starved != 1 {
		t.Fatalf("a second without CPU wait counted as starved: %+v", d)
	}
}
