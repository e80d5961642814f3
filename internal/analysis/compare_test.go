package analysis

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// PeakFixture is testdata/vm_vs_k8s_peak.json: a study shaped like a
// published VM-versus-Kubernetes pgbench comparison (see its _comment).
type PeakFixture struct {
	Baseline string                          `json:"baseline"`
	Clients  []int                           `json:"clients"`
	TPS      map[string]map[string][]float64 `json:"tps"`
	Expected map[string]map[string]struct {
		PeakTPS     float64 `json:"peak_tps"`
		PeakClients int     `json:"peak_clients"`
		Degradation float64 `json:"degradation_pct"`
	} `json:"expected"`
}

// fixtureRuns turns the fixture into one run per (scenario, target, clients),
// the shape of a study run with repetitions = 1.
func fixtureRuns(t *testing.T) (*PeakFixture, []*result.Run) {
	t.Helper()
	b, err := os.ReadFile("testdata/vm_vs_k8s_peak.json")
	if err != nil {
		t.Fatal(err)
	}
	var f PeakFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var runs []*result.Run
	id := int64(0)
	for _, mode := range []string{"select-only", "tpcb-like", "simple-update"} {
		for _, c := range f.Clients {
			for _, target := range []string{"native-vm", "cnpg-local-ssd", "cnpg-network-ssd"} {
				id++
				i := indexOf(f.Clients, c)
				runs = append(runs, &result.Run{ID: id, StudyName: "vm-vs-k8s", Target: target, Workload: "pgbench",
					Kind: "tpcb", Params: map[string]any{"mode": mode, "scale": int64(100)}, Clients: c,
					Repetition: 1, Status: result.StatusOK,
					Summary: result.Summary{Throughput: f.TPS[mode][target][i]}})
			}
		}
	}
	return &f, runs
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestPeaksReproducePublishedShape(t *testing.T) {
	f, runs := fixtureRuns(t)
	gs, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	peaks := Peaks(gs, f.Baseline)
	if len(peaks) != 9 {
		t.Fatalf("%d peaks, want 9", len(peaks))
	}
	for _, p := range peaks {
		mode := strings.TrimPrefix(strings.Fields(p.Params)[0], "mode=")
		want := f.Expected[mode][p.Target]
		if p.Value != want.PeakTPS || p.Clients != want.PeakClients {
			t.Errorf("%s %s: peak %v at %d, want %v at %d", mode, p.Target, p.Value, p.Clients, want.PeakTPS, want.PeakClients)
		}
		if !p.SingleRun {
			t.Errorf("%s %s: one run per point must be flagged", mode, p.Target)
		}
		if p.Target == f.Baseline {
			if !math.IsNaN(p.Degradation) {
				t.Errorf("baseline has a degradation %v", p.Degradation)
			}
			continue
		}
		if math.Abs(p.Degradation-want.Degradation) > 0.05 {
			t.Errorf("%s %s: degradation %.3f %%, published %.1f %%", mode, p.Target, p.Degradation, want.Degradation)
		}
		// select-only on cnpg-network-ssd still rises at 128 clients.
		if edge := mode == "select-only" && p.Target == "cnpg-network-ssd"; p.AtEdge != edge {
			t.Errorf("%s %s: AtEdge = %v, want %v", mode, p.Target, p.AtEdge, edge)
		}
	}
}

func reps(id0 int64, target string, tps ...float64) []*result.Run {
	var out []*result.Run
	for i, x := range tps {
		r := okRun(id0+int64(i), target, 4, x)
		r.Repetition = i + 1
		out = append(out, r)
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	cases := []struct {
		name        string
		base, other []float64
		want        Verdict
	}{
		// 4 vs 4 fully separated: p = 2/70 = 0.029 < 0.05.
		{"faster", []float64{1000, 1010, 1020, 1030}, []float64{1100, 1110, 1120, 1130}, Faster},
		{"slower", []float64{1100, 1110, 1120, 1130}, []float64{1000, 1010, 1020, 1030}, Slower},
		// Interleaved 4 vs 4.
		{"same", []float64{1000, 1020, 1040, 1060}, []float64{1010, 1030, 1050, 1070}, NoDifference},
		// 3 vs 3: Mann–Whitney can never reach p < 0.05; Welch's t on logs decides.
		{"3v3", []float64{1000, 1010, 1020}, []float64{2000, 2010, 2020}, Faster},
		{"single", []float64{1000}, []float64{2000}, SingleRun},
	}
	for _, c := range cases {
		runs := append(reps(1, "base", c.base...), reps(100, "other", c.other...)...)
		gs, err := GroupRuns(runs)
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := Compare(gs, "base", DefaultAlpha)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmp.Cells) != 1 {
			t.Fatalf("%s: %d cells", c.name, len(cmp.Cells))
		}
		m := cmp.Cells[0].Headline
		if m.Verdict != c.want {
			t.Errorf("%s: verdict %q (p=%v, minP=%v), want %q", c.name, m.Verdict, m.P, m.MinP, c.want)
		}
		if c.want == SingleRun && (m.DeltaCI.OK() || m.CI.OK()) {
			t.Errorf("%s: a single run must have no interval: %+v", c.name, m)
		}
	}
	// The "faster" case by hand: medians 1015 and 1115, delta +9.852 %; the
	// log-shift interval at k=1 (level 1 − 2/70) spans the extreme ratios
	// 1100/1030 and 1130/1000.
	gs, _ := GroupRuns(append(reps(1, "base", 1000, 1010, 1020, 1030), reps(100, "other", 1100, 1110, 1120, 1130)...))
	cmp, _ := Compare(gs, "base", DefaultAlpha)
	m := cmp.Cells[0].Headline
	if !near(m.Delta, (1115.0/1015-1)*100, 1e-9) {
		t.Errorf("delta %v", m.Delta)
	}
	if !near(m.DeltaCI.Lo, (1100.0/1030-1)*100, 1e-9) || !near(m.DeltaCI.Hi, 13, 1e-9) || !near(m.DeltaCI.Level, 1-2.0/70, 1e-12) {
		t.Errorf("delta CI %+v", m.DeltaCI)
	}
	if len(cmp.GeoMeans) != 1 || !near(cmp.GeoMeans[0].Delta, m.Delta, 1e-9) {
		t.Errorf("geomean over one cell must equal its delta: %+v", cmp.GeoMeans)
	}
}

func TestGeoMeanRowAndPrice(t *testing.T) {
	// Two cells: other is 2× at 1 client and 0.5× at 2 clients. The
	// arithmetic mean of the ratios would claim +25 %; the geomean says 0 %.
	mk := func(id int64, target string, clients int, tps, price float64) *result.Run {
		r := okRun(id, target, clients, tps)
		r.Env = result.EnvironmentFromMap(map[string]any{"declared": map[string]any{"price_per_hour": price}})
		return r
	}
	gs, _ := GroupRuns([]*result.Run{mk(1, "base", 1, 100, 1), mk(2, "other", 1, 200, 2),
		mk(3, "base", 2, 400, 1), mk(4, "other", 2, 200, 2)})
	cmp, err := Compare(gs, "base", DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	g := cmp.GeoMeans[0]
	if g.Cells != 2 || !near(g.Delta, 0, 1e-9) || !near(g.Base, 200, 1e-9) {
		t.Errorf("geomean row %+v", g)
	}
	// At twice the price and the same geomean throughput, transactions per
	// dollar halve: base sqrt(100·400)·3600/1 = 720000, other 360000.
	if !g.HasPrices || !near(g.BasePerDollar, 720000, 1e-6) || !near(g.PerDollar, 360000, 1e-6) || !near(g.PerDollarDelta, -50, 1e-9) {
		t.Errorf("price row %+v", g)
	}
	if _, err := Compare(gs, "nope", DefaultAlpha); err == nil {
		t.Error("an unknown baseline must be an error")
	}
}

// Cells with several op types compare each type's p99 too, from each run's
// histogram of that type: a target whose reads got slower and updates
// faster says both, where the merged p99 would hide one.
func TestCompareEachOpTypesP99(t *testing.T) {
	mk := func(id int64, target string, read, update int64) *result.Run {
		r := okRun(id, target, 4, 1000)
		r.Repetition = int(id % 10)
		r.Ops = []result.Op{
			{Name: "READ", Count: 1000, Histogram: encode(t, map[int64]int64{read: 1000})},
			{Name: "UPDATE", Count: 1000, Histogram: encode(t, map[int64]int64{update: 1000})},
			{Name: "SCAN", Count: 0},
		}
		return r
	}
	var runs []*result.Run
	for i := int64(1); i <= 4; i++ {
		runs = append(runs, mk(i, "base", 100+i, 5000+i), mk(10+i, "other", 200+i, 2000+i))
	}
	gs, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare(gs, "base", DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Cells) != 1 {
		t.Fatalf("%d cells", len(cmp.Cells))
	}
	ops := cmp.Cells[0].Ops
	if len(ops) != 2 || ops[0].Name != "READ p99" || ops[1].Name != "UPDATE p99" {
		t.Fatalf("op metrics %+v, want READ p99 and UPDATE p99 (SCAN never ran)", ops)
	}
	if ops[0].Verdict != Slower || ops[1].Verdict != Faster || ops[0].N != 4 || ops[0].BaseN != 4 {
		t.Fatalf("READ %s (n %d/%d), UPDATE %s: want slower and faster over 4 runs each", ops[0].Verdict, ops[0].BaseN, ops[0].N, ops[1].Verdict)
	}
	if d := ops[1].Delta; d > -55 || d < -65 {
		t.Fatalf("UPDATE p99 delta %.1f %%, want about -60 %%", d)
	}
	if got := len(cmp.Cells[0].Metrics()); got != 5 {
		t.Fatalf("%d metrics, want headline, p95, p99 and two op types", got)
	}
}
