package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// demoShaped is a study shaped like `fairbench demo`'s select-only
// scenario: two targets, 1, 2 and 4 clients, runs[target][clients] per
// round; interleaved runs every target of a cell and round back to back,
// sequential runs each target's runs one after another.
func demoShaped(t *testing.T, tps map[string]map[int][]float64, interleaved bool) []*result.Run {
	t.Helper()
	var runs []*result.Run
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	targets := []string{"wal-normal", "delete-full"}
	rounds := len(tps["wal-normal"][1])
	slot := func(ti, c, r int) int {
		if interleaved {
			return (r*3+c)*2 + ti
		}
		return ti*3*rounds + c*rounds + r
	}
	for ti, target := range targets {
		for c, clients := range []int{1, 2, 4} {
			for r := range rounds {
				v := tps[target][clients][r]
				h := hist.New()
				h.RecordValues(int64(1e6*float64(clients)/v), 1000)
				b, err := hist.Encode(h)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, &result.Run{ID: int64(slot(ti, c, r) + 1), Source: "fairbench", StudyName: "demo", Target: target,
					TargetURL: "sqlite:" + target + ".db", Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"mode": "select-only"},
					Clients: clients, Repetition: r + 1, Status: result.StatusOK,
					StartedAt: t0.Add(time.Duration(slot(ti, c, r)) * 10 * time.Second), Duration: 8 * time.Second,
					Summary: result.Summary{Transactions: int64(v * 8), Throughput: v},
					Ops:     []result.Op{{Name: "select", Count: int64(v * 8), Histogram: b}}})
			}
		}
	}
	return runs
}

// The demo's numbers as the issue measured them: delete-full 19–38 %
// lower in each cell, two rounds scattering too much for any cell alone
// (a paired t with one degree of freedom).
var demoTPS = map[string]map[int][]float64{
	"wal-normal":  {1: {52100, 47000}, 2: {36100, 43000}, 4: {30800, 36500}},
	"delete-full": {1: {30000, 31500}, 2: {29900, 32900}, 4: {24900, 27700}},
}

func findingsOf(t *testing.T, runs []*result.Run) (*analysis.Findings, []*analysis.Group) {
	t.Helper()
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := analysis.Summarise(groups, "wal-normal", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items) != 1 {
		t.Fatalf("%d findings, want 1", len(f.Items))
	}
	return f, groups
}

// The demo's select-only finding says what its cells and chart show: one
// pooled verdict over 3 cells × 2 rounds, with its interval, where each
// cell alone has too few repetitions to decide.
func TestDemoShapedFindingIsPooled(t *testing.T) {
	f, _ := findingsOf(t, demoShaped(t, demoTPS, true))
	it := f.Items[0]
	// The numbers checked against scipy 1.17.1: mean of the six log ratios,
	// stats.t.ppf(0.975, 5) for the interval, 2·stats.t.sf(|t|, 5) for p.
	const want = "delete-full is 27.1 % slower than wal-normal: -27.1 % tps [-36.9, -15.8], lower in all 3 cells (-37.9 % to -20.4 %) " +
		"(paired over 3 cells × 2 rounds, p=0.002)"
	if got := findingStatement(it); got != want {
		t.Errorf("statement\n got %s\nwant %s", got, want)
	}
	if got := findingVerdicts(it, f.Alpha); !strings.HasPrefix(got, "each cell alone has too few repetitions to decide; verdicts in 3 cells: ") {
		t.Errorf("verdicts: %s", got)
	}
	for _, cc := range it.Cells {
		if cc.Headline.Delta >= 0 || cc.Headline.Verdict == analysis.Faster || cc.Headline.Verdict == analysis.Slower {
			t.Errorf("cell %d clients: %+.1f %% %s; the fixture wants every cell lower and none decided alone", cc.Other.Clients, cc.Headline.Delta, cc.Headline.Verdict)
		}
	}
}

// Runs that are not in interleaved rounds are pooled unpaired, and the
// sentence says so.
func TestSequentialRunsArePooledUnpaired(t *testing.T) {
	f, _ := findingsOf(t, demoShaped(t, demoTPS, false))
	p := f.Items[0].Pooled
	if p.Paired || p.Test != analysis.UnpairedTest {
		t.Fatalf("sequential runs pooled as %q (paired %v)", p.Test, p.Paired)
	}
	if s := findingStatement(f.Items[0]); !strings.Contains(s, "unpaired over 3 cells, 12 runs: not in interleaved rounds") || !strings.Contains(s, "slower") {
		t.Errorf("statement: %s", s)
	}
}

// Cells whose own verdicts go opposite ways are said to disagree, by
// level, instead of being pooled into "no difference".
func TestCellsThatDisagreeAreNamed(t *testing.T) {
	tps := map[string]map[int][]float64{
		"wal-normal":  {1: {1000, 1010, 990}, 2: {1000, 1005, 995}, 4: {1000, 1008, 992}},
		"delete-full": {1: {1500, 1512, 1488}, 2: {1510, 1500, 1495}, 4: {600, 598, 603}},
	}
	f, _ := findingsOf(t, demoShaped(t, tps, true))
	s := findingStatement(f.Items[0])
	if !f.Items[0].Pooled.Disagree || !strings.Contains(s, "differs by cell: better at 1 client–2 clients, worse at 4 clients") {
		t.Errorf("statement: %s", s)
	}
}

// A comparison cell holds the change, its interval or a mark, and the
// verdict; its reasons are notes, once per distinct reason (text,
// Markdown), or its tooltip (HTML), whose visible cells hold at most 12
// words.
func TestComparisonCellsAtAGlance(t *testing.T) {
	runs := demoShaped(t, demoTPS, true)
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := analysis.Compare(groups, "wal-normal", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, page bytes.Buffer
	if err := CompareTerminal(&text, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := CompareMarkdown(&md, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, groups, runs, HTMLOptions{Comparison: cmp}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "md": md.String()} {
		for _, reason := range []string{"no significant difference at α = 0.05", "no interval:"} {
			if n := strings.Count(out, reason); n != 1 {
				t.Errorf("%s: %q %d times, want once (a numbered note)", name, reason, n)
			}
		}
		if strings.Contains(out, "reps per side would detect") || strings.Contains(out, "Welch's t on log values, p=") {
			t.Errorf("%s: a cell repeats its reasons:\n%s", name, out)
		}
	}
	cells := regexp.MustCompile(`<td class="v-[a-z]+" data-v="[^"]*" title="[^"]*">([^<]*)</td>`).FindAllStringSubmatch(page.String(), -1)
	if len(cells) == 0 {
		t.Fatal("HTML: no comparison cell found")
	}
	for _, c := range cells {
		if n := len(strings.Fields(c[1])); n > 12 {
			t.Errorf("HTML comparison cell of %d words: %s", n, c[1])
		}
	}
	if !strings.Contains(page.String(), `<details class="cmp-notes">`) {
		t.Error("HTML: no notes row under the comparison")
	}
}
