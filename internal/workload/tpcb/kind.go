package tpcb

import (
	"fmt"
	"strconv"

	"github.com/fairbench/fairbench/internal/params/tpcbparams"
)

// BytesPerScale estimates pgbench's data size on PostgreSQL per scale unit
// (tables and indexes, ~15 MB), for runs that did not record the database size.
const BytesPerScale = 15 << 20

// workingSet is scale × BytesPerScale; false without a scale.
func workingSet(p map[string]any) (int64, string, bool) {
	var s float64
	switch x := p[tpcbparams.Scale].(type) {
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
