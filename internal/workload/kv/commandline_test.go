package kv

import (
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

// TestPrintPercentilesDomain: memtier's --print-percentiles takes numbers
// within 0–100; anything else is refused when the flag is read.
func TestPrintPercentilesDomain(t *testing.T) {
	for _, ok := range []string{"50,99,99.9", "0,100", " 99.99 "} {
		if _, err := params.Coerce(percentilesSpec, ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "NaN", "Inf", "-1", "100.5", "1e12", "50,,99", "p99", "50;99"} {
		if _, err := params.Coerce(percentilesSpec, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if got := percentileColumn(99.9); got != "p99.9 Latency" {
		t.Errorf("column %q, want memtier's p99.9 Latency", got)
	}
	if got := percentileColumn(50); got != "p50 Latency" {
		t.Errorf("column %q, want memtier's p50 Latency", got)
	}
}
