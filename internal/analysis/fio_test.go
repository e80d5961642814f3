package analysis

import (
	"math"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// fioRun is a completed fio run whose environment holds what the fio adapter
// keeps per direction.
func fioRun(id int64, target string, clients int, dirs map[string]float64) *result.Run {
	fe := map[string]any{}
	for d, iops := range dirs {
		fe[d] = map[string]any{"iops": iops, "bw_bytes": iops * 4096, "total_ios": int64(iops * 10),
			"clat_mean_us": 1e6 / iops, "clat_p99_us": 2e6 / iops, "clat_p99.9_us": 3e6 / iops}
	}
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "fio", Kind: "fio",
		Params: map[string]any{"rw": "randrw"}, Clients: clients, Repetition: 1, Status: result.StatusOK,
		Summary: result.Summary{Throughput: 1}, Env: map[string]any{"fio": fe}}
}

func TestFioRatiosPairCellsWithTheBaseline(t *testing.T) {
	runs := []*result.Run{
		fioRun(1, "a", 1, map[string]float64{"read": 100, "write": 50}),
		fioRun(2, "b", 1, map[string]float64{"read": 300, "write": 25}),
		fioRun(3, "b", 4, map[string]float64{"read": 800}), // a has no 4-client cell
		fioRun(4, "c", 4, map[string]float64{"read": 400, "write": 10}),
		{ID: 5, StudyName: "s", Target: "x", Workload: "tpcb", Kind: "tpcb", Clients: 1, Repetition: 1, Status: result.StatusOK},
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		target  string
		clients int
	}
	index := func(cells []*FioCell) map[key]*FioCell {
		m := map[key]*FioCell{}
		for _, c := range cells {
			m[key{c.Group.Target, c.Group.Clients}] = c
		}
		return m
	}

	// No baseline: each cell against the first target that has it.
	cells := index(Fio(groups, ""))
	if len(cells) != 4 {
		t.Fatalf("%d fio cells, want 4 (the tpcb group is not one)", len(cells))
	}
	b1, c4 := cells[key{"b", 1}], cells[key{"c", 4}]
	if b1.Base != cells[key{"a", 1}] || b1.IOPSRatio["read"] != 3 || b1.IOPSRatio["write"] != 0.5 || b1.BandwidthRatio["read"] != 3 {
		t.Errorf("b at 1 client: base %v, ratios %v %v", b1.Base.Group.Target, b1.IOPSRatio, b1.BandwidthRatio)
	}
	if c4.Base != cells[key{"b", 4}] || c4.IOPSRatio["read"] != 0.5 || !math.IsNaN(c4.IOPSRatio["write"]) {
		t.Errorf("c at 4 clients: base %v, ratios %v", c4.Base.Group.Target, c4.IOPSRatio)
	}
	if a1 := cells[key{"a", 1}]; a1.Base != a1 {
		t.Errorf("the first target is its own base")
	}
	if io := b1.IO["read"]; io.IOPS != 300 || io.Bandwidth != 300*4096 || io.P99 != 2e6/300 || !io.HasPercentiles {
		t.Errorf("b read %+v", io)
	}

	// Baseline c: only the 4-client cells have one.
	cells = index(Fio(groups, "c"))
	if cells[key{"a", 1}].Base != nil || cells[key{"b", 1}].Base != nil {
		t.Errorf("1-client cells have no c run, yet a base")
	}
	if b4 := cells[key{"b", 4}]; b4.Base != cells[key{"c", 4}] || b4.IOPSRatio["read"] != 2 {
		t.Errorf("b at 4 clients against c: %v", b4.IOPSRatio)
	}
	if err := CheckBaseline(groups, "nope"); err == nil {
		t.Error("an unknown baseline passes CheckBaseline")
	}
}
