package tpcc

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// go-tpc's efficiency (tpcc/workload.go: 100 × tpmC ÷ (12.86 × warehouses))
// beside fairbench's tpmC: 643 committed New-Orders in 10 minutes on 10
// warehouses are 64.3 tpmC, half of the 128.6 the specification allows; a
// stored run's warehouses, a JSON number, give the same.
func TestSummaryPrintsGoTPCsEfficiency(t *testing.T) {
	for _, wh := range []any{int64(10), float64(10)} {
		r := &result.Run{Duration: 10 * time.Minute, Params: map[string]any{tpccparams.Warehouses: wh},
			Ops: []result.Op{{Name: tpccparams.NewOrder, Count: 643}}}
		var b bytes.Buffer
		peerSummary(&b, r)
		if want := "tpmC (committed New-Orders fairbench counted): 64, efficiency 50.0% (go-tpc's: tpmC ÷ (12.86 × 10 warehouses))"; !strings.Contains(b.String(), want) {
			t.Errorf("warehouses %T: summary\n%s\nwant a line with %q", wh, b.String(), want)
		}
	}
}
