package study

import (
	"strings"
	"testing"
	"time"
)

func TestShorterTimeKeepsFloors(t *testing.T) {
	for _, c := range []struct {
		d     time.Duration
		f     float64
		floor time.Duration
		want  time.Duration
	}{
		{60 * time.Second, 0.1, 5 * time.Second, 6 * time.Second},
		{60 * time.Second, 0.05, 5 * time.Second, 5 * time.Second}, // the floor
		{3 * time.Second, 0.5, 5 * time.Second, 3 * time.Second},   // already below the floor: as it was
		{10 * time.Second, 1, 5 * time.Second, 10 * time.Second},
		{0, 0.5, time.Second, 0}, // no warm-up stays none
	} {
		if got := ShorterTime(c.d, c.f, c.floor); got != c.want {
			t.Errorf("ShorterTime(%s, %g, %s) = %s, want %s", c.d, c.f, c.floor, got, c.want)
		}
	}
}

func TestDeriveMapsTargetsAndRecordsChanges(t *testing.T) {
	src := []byte(`[study]
name = "s"
repetitions = 3
warmup = "10s"
duration = "60s"

[[target]]
name = "a"
url = "sqlite:a.db"
node_exporter = "http://10.0.0.1:9100/metrics"

[[target]]
name = "b"
url = "sqlite:b.db"

[[workload]]
name = "only-b"
kind = "tpcb"
targets = ["b"]

[[workload]]
name = "both"
kind = "tpcb"
duration = "20s"
`)
	st, changes, notes, err := Derive("s.toml", src, cat, Derivation{Name: "s reproduced", URLs: map[string]string{"a": "sqlite:mine.db"},
		Repetitions: 2, Shorter: 0.1, Header: []string{"from x\nwith a newline"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "s reproduced" || len(st.Targets) != 1 || st.Targets[0].URL != "sqlite:mine.db" || st.Targets[0].NodeExporter != "" {
		t.Fatalf("derived study: name %q, targets %+v", st.Name, st.Targets)
	}
	if len(st.Workloads) != 1 || st.Workloads[0].Name != "both" || st.Repetitions != 2 || st.Warmup != time.Second || st.Duration != 6*time.Second || *st.Workloads[0].Duration != 5*time.Second {
		t.Fatalf("derived: workloads %d, repetitions %d, warm-up %s, duration %s", len(st.Workloads), st.Repetitions, st.Warmup, st.Duration)
	}
	all := strings.Join(changes, "\n")
	for _, want := range []string{"warm-up 1s instead of the published 10s (--shorter 0.1)", "measured duration 6s instead of the published 1m0s",
		"workload both's measured duration 5s instead of the published 20s", "2 repetitions instead of the published 3"} {
		if !strings.Contains(all, want) {
			t.Errorf("changes lack %q:\n%s", want, all)
		}
	}
	if n := strings.Join(notes, "\n"); !strings.Contains(n, "target b is not mapped") || !strings.Contains(n, "workload only-b runs only on targets left out") {
		t.Errorf("notes: %s", n)
	}
	if !strings.HasPrefix(string(st.Source), "# from x\\nwith a newline\n") {
		t.Errorf("the header is not one escaped comment line:\n%s", st.Source)
	}
}
