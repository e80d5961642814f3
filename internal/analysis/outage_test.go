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
	r.Summary.DeadSpans, r.Summary.DeadSeconds = result.DeadSecondsOf(r.Series, false)
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
	spans, n := result.DeadSecondsOf(pts, false)
	if n != 4 || result.SpansText(spans) != "s 2–3, s 5–6" {
		t.Fatalf("got %d dead seconds %v", n, spans)
	}
	// A remainder after the last full tick (same second) is not a dead second.
	tail := append(append([]result.SeriesPoint{}, pts[:4]...), result.SeriesPoint{Second: 4, Errors: 3})
	if spans, n := result.DeadSecondsOf(tail, false); n != 2 || result.SpansText(spans) != "s 2–3" {
		t.Fatalf("with a short remainder: got %d dead seconds %v", n, spans)
	}
	// Slow operations (or a low rate): only seconds with errors count.
	spans, n = result.DeadSecondsOf(pts, true)
	if n != 2 || result.SpansText(spans) != "s 3, s 5" {
		t.Fatalf("errors only: got %d dead seconds %v", n, spans)
	}
}
