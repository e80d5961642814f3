package tpcb

import (
	"fmt"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
)

// bytesPerScale estimates pgbench's data size on PostgreSQL per scale unit
// (tables and indexes, ~15 MB), for runs that did not record the database size.
const bytesPerScale = 15 << 20

// workingSet is scale × bytesPerScale; false without a scale.
func workingSet(v params.Values) (int64, string, bool) {
	s, ok := v[tpcbparams.Scale].(int64)
	if !ok || s <= 0 {
		return 0, "", false
	}
	return s * bytesPerScale, fmt.Sprintf("scale %d × ~15 MB", s), true
}
