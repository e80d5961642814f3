package study

import "testing"

// The outage thresholds are shares from 0 to 1 under [study]; unset, they are
// nil and the runner's defaults apply.
func TestOutageThresholdKeys(t *testing.T) {
	doc := "[study]\nmax_error_ratio = 0.05\nmax_dead_ratio = 0\n[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"
	s, err := Parse("s.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	if s.MaxErrorRatio == nil || *s.MaxErrorRatio != 0.05 || s.MaxDeadRatio == nil || *s.MaxDeadRatio != 0 {
		t.Fatalf("thresholds %v %v", s.MaxErrorRatio, s.MaxDeadRatio)
	}
	s, err = Parse("s.toml", []byte("[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"), cat)
	if err != nil || s.MaxErrorRatio != nil || s.MaxDeadRatio != nil {
		t.Fatalf("unset thresholds must stay nil: %v %v %v", err, s.MaxErrorRatio, s.MaxDeadRatio)
	}
	const rest = "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"
	parseErr(t, "[study]\nmax_dead_ratio = 1.5\n"+rest, "max_dead_ratio", "max_dead_ratio is a share between 0 and 1")
	parseErr(t, "[study]\nmax_error_ratio = -0.1\n"+rest, "max_error_ratio", "must not be negative")
	parseErr(t, "[study]\nmax_error_ratio = \"half\"\n"+rest, "max_error_ratio", "must be a number")
}
