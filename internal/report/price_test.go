package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 38: the price table's columns listed every parameter, defaults
// included ("pgbench fillfactor=100 load_workers=1 … vacuum=true: tx per
// $", ~200 characters). They are named by what varies between the
// scenarios, as compare --peak names its columns; what all share is one
// line under the table.
func TestPriceColumnsNamedByWhatVaries(t *testing.T) {
	shared := map[string]any{"fillfactor": int64(100), "load_workers": int64(1), "scale": int64(1), "unlogged": false, "vacuum": true}
	var runs []*result.Run
	id := int64(0)
	for _, mode := range []string{"select-only", "tpcb-like"} {
		for _, target := range []string{"a", "b"} {
			id++
			p := map[string]any{"mode": mode}
			for k, v := range shared {
				p[k] = v
			}
			r := &result.Run{ID: id, StudyName: "s", Target: target, Workload: "w", Kind: "w", Params: p,
				Clients: 2, Repetition: 1, Status: result.StatusOK, Duration: time.Second,
				Summary: result.Summary{Transactions: 100 * id, Throughput: float64(100 * id)}}
			r.Env.Declared.PricePerHour = 0.5
			runs = append(runs, r)
		}
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Markdown(&b, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	rows := tableAfter(t, md, "Price (price_per_hour declared in the study)")
	if got := strings.Join(cells(rows[0]), " | "); !strings.HasPrefix(got, "target | $ per hour | w select-only: ") || !strings.Contains(got, " | w tpcb-like: ") || strings.Contains(got, "fillfactor") {
		t.Errorf("price header %q: want the scenarios named by their mode alone", got)
	}
	if !strings.Contains(md, "Same in every column: w fillfactor=100 load_workers=1 scale=1 unlogged=false vacuum=true") {
		t.Errorf("no line of the shared parameters:\n%s", md)
	}
}
