package tpcb

import (
	"fmt"
	"strconv"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// What reports need to know about tpcb results, native or imported from
// pgbench: the headline (transactions per second, pgbench's tps) and the size
// of the data a scale touches.
func init() {
	kinds.Register(kinds.Info{
		Kind:       "tpcb",
		Headline:   result.Throughput,
		WorkingSet: workingSet,
	})
}

// BytesPerScale estimates pgbench's data size on PostgreSQL per scale unit
// (tables and indexes, ~15 MB), for runs that did not record the database size.
const BytesPerScale = 15 << 20

// workingSet is scale × BytesPerScale; false without a scale.
func workingSet(p map[string]any) (int64, string, bool) {
	var s float64
	switch x := p["scale"].(type) {
	case int64:
		s = float64(x)
	case int:
		s = float64(x)
	case float64:
		s = x
	}
	if s <= 0 {
		return 0, "", false
	}
	return int64(s * BytesPerScale), fmt.Sprintf("scale %s × ~15 MB", strconv.FormatFloat(s, 'f', -1, 64)), true
}
