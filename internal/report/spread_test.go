package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// spreadRuns: one cell of two repetitions, in which every number of the
// summary tables is known by construction. Run 1: 800 requests at 0.8 ms and
// 200 at 4 ms (mean 1.44 ms, stddev 1.28 ms), connected in 2 ms; run 2: 900
// at 2 ms and 100 at 60 ms (mean 7.8 ms, stddev 17.4 ms), connected in 4 ms.
func spreadRuns(t *testing.T) ([]*analysis.Group, []*result.Run) {
	t.Helper()
	enc := func(values map[int64]int64) []byte {
		h := hist.New()
		for v, n := range values {
			if err := h.RecordValues(v, n); err != nil {
				t.Fatal(err)
			}
		}
		b, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	mk := func(id int64, mean, sd, conn float64, values map[int64]int64) *result.Run {
		return &result.Run{ID: id, StudyName: "s", Target: "a", Workload: "test-spread", Kind: "test-spread", Clients: 8, Repetition: int(id),
			Status: result.StatusOK, Duration: 10 * time.Second,
			Summary: result.Summary{Transactions: 1000, Throughput: 100, LatencyMean: mean, LatencyStddev: sd, ConnectTimeMean: conn},
			Ops:     []result.Op{{Name: "get", Count: 1000, Histogram: enc(values)}}}
	}
	runs := []*result.Run{
		mk(1, 1440, 1280, 2, map[int64]int64{800: 800, 4000: 200}),
		mk(2, 7800, 17400, 4, map[int64]int64{2000: 900, 60000: 100}),
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	return groups, runs
}

func TestSpreadAndSharesTables(t *testing.T) {
	groups, runs := spreadRuns(t)
	th := []time.Duration{time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond}
	opt := Options{LatencyShares: th}

	// Pooled over the 2 000 requests: mean (1.44 + 7.8) / 2 ms; variance the
	// mean of each run's (stddev² + mean²) less the pooled mean².
	mean := (1.44 + 7.8) / 2
	sd := math.Sqrt((1.28*1.28+1.44*1.44+17.4*17.4+7.8*7.8)/2 - mean*mean)
	// Shares: within 1 ms 800 of 2 000; within 5 ms and 50 ms 1 900; max 60 ms.
	wantSpread := []string{"a", "8", "100.0", fmt.Sprintf("%.3f", mean), fmt.Sprintf("%.3f", sd), "3.000", "2000"}
	wantShares := []string{"a", "8", "40.00", "95.00", "95.00", "60.031"}

	var md bytes.Buffer
	if err := Markdown(&md, groups, runs, opt); err != nil {
		t.Fatal(err)
	}
	spread := tableAfter(t, md.String(), "the latency average and standard deviation")
	if got := strings.Join(cells(spread[0]), ","); got != "target,clients,tps,latency avg ms,latency stddev ms,initial connection ms,transactions" {
		t.Errorf("spread header %q", got)
	}
	if got := cells(spread[2]); strings.Join(got, ",") != strings.Join(wantSpread, ",") {
		t.Errorf("spread row %q, want %q", got, wantSpread)
	}
	shares := tableAfter(t, md.String(), "Cumulative latency")
	if got := strings.Join(cells(shares[0]), ","); got != "target,clients,≤ 1 ms %,≤ 5 ms %,≤ 50 ms %,max ms" {
		t.Errorf("shares header %q", got)
	}
	if got := cells(shares[2]); strings.Join(got, ",") != strings.Join(wantShares, ",") {
		t.Errorf("shares row %q, want %q", got, wantShares)
	}
	lat := rowOfTable(t, md.String(), "Latency, ms (average / p50 / p95 / p99)", "a")
	// p50 2 ms; p95 4 ms (1 900 of 2 000 within it, the 4 ms bucket's top); p99 60 ms.
	if want := fmt.Sprintf("%.3f / 2.000 / 4.001 / 60.031", mean); lat[1] != want {
		t.Errorf("latency cell %q, want %q", lat[1], want)
	}

	var term bytes.Buffer
	if err := Terminal(&term, groups, opt); err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{
		{"a", "test-spread", "-", "8", "100.0", wantSpread[3], wantSpread[4], "3.000", "2000"},
		{"a", "test-spread", "-", "8", "40.00", "95.00", "95.00", "60.031"},
	} {
		if !containsFields(term.String(), want) {
			t.Errorf("terminal has no row %q:\n%s", want, term.String())
		}
	}

	var js bytes.Buffer
	if err := JSON(&js, groups, opt); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells []struct {
			Mean    float64 `json:"mean_us"`
			Stddev  float64 `json:"stddev_us"`
			Connect float64 `json:"connect_time_ms"`
			Shares  []struct {
				ThresholdUs int64   `json:"threshold_us"`
				Share       float64 `json:"share"`
			} `json:"latency_shares"`
			Ops []struct {
				P95 float64 `json:"p95_us"`
			} `json:"ops"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Cells[0]
	if math.Abs(c.Mean-mean*1000) > 1e-6 || math.Abs(c.Stddev-sd*1000) > 1e-6 || c.Connect != 3 ||
		len(c.Shares) != 3 || c.Shares[0].ThresholdUs != 1000 || c.Shares[0].Share != 0.4 || c.Shares[2].Share != 0.95 {
		t.Errorf("JSON cell %+v", c)
	}

	var cb bytes.Buffer
	if err := CSV(&cb, groups, opt); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["connect_time_ms"] != "3" || col["le_1000us"] != "0.4" || col["le_50000us"] != "0.95" || col["stddev_us"] == "" {
		t.Errorf("CSV %v", col)
	}

	var page bytes.Buffer
	if err := HTML(&page, groups, runs, HTMLOptions{Options: opt}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>Latency average and spread</h3>", "<h3>Cumulative latency</h3>", "<th>≤ 5 ms %</th>", `<td class="num">95.00</td>`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// containsFields reports whether some line of s has exactly the fields want.
func containsFields(s string, want []string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}
