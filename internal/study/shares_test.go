package study

import (
	"testing"
	"time"
)

func TestLatencySharesKey(t *testing.T) {
	const rest = "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"
	doc := "[study]\nlatency_shares = [\"500us\", \"1ms\", \"50ms\"]\n" + rest
	s, err := Parse("s.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500 * time.Microsecond, time.Millisecond, 50 * time.Millisecond}
	if len(s.LatencyShares) != 3 || s.LatencyShares[0] != want[0] || s.LatencyShares[2] != want[2] {
		t.Fatalf("latency_shares = %v, want %v", s.LatencyShares, want)
	}
	// A report reads the key back from the study the results file stores.
	if got, ok := LatencySharesOf([]byte(doc)); !ok || len(got) != 3 || got[1] != time.Millisecond {
		t.Errorf("LatencySharesOf = %v, %v", got, ok)
	}
	if _, ok := LatencySharesOf([]byte(rest)); ok {
		t.Error("a study without the key has no shares")
	}
	parseErr(t, "[study]\nlatency_shares = [\"5ms\", \"1ms\"]\n"+rest, "latency_shares", "must increase")
	parseErr(t, "[study]\nlatency_shares = [\"0s\"]\n"+rest, "latency_shares", "not positive")
	parseErr(t, "[study]\nlatency_shares = [1, 5]\n"+rest, "latency_shares", "as strings")
	parseErr(t, "[study]\nlatency_shares = \"1ms\"\n"+rest, "latency_shares", "must be a list")
	parseErr(t, "[study]\nlatency_shares = [\"1ms\",\"2ms\",\"3ms\",\"4ms\",\"5ms\",\"6ms\",\"7ms\",\"8ms\",\"9ms\",\"10ms\",\"11ms\",\"12ms\",\"13ms\"]\n"+rest, "latency_shares", "at most 12")
	parseErr(t, "[study]\nlatency_shares = [\"soon\"]\n"+rest, "latency_shares", "not a duration")
}
