package oltpparams

import (
	"math"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

// TestTableSizeFitsSysbenchsID: the spec refuses a table_size past
// sysbench's INTEGER id, naming the parameter, where the workload once
// checked it again after the spec.
func TestTableSizeFitsSysbenchsID(t *testing.T) {
	spec, ok := params.Find(Specs(), TableSize)
	if !ok {
		t.Fatal("no table_size")
	}
	if _, err := params.Coerce(spec, int64(math.MaxInt32)); err != nil {
		t.Errorf("the largest INTEGER id refused: %v", err)
	}
	if _, err := params.Coerce(spec, int64(math.MaxInt32)+1); err == nil || !strings.Contains(err.Error(), "table_size must be at most 2147483647") {
		t.Errorf("2^31 rows: %v; want it refused, naming table_size", err)
	}
}

// TestDecodeFillsDefaults: options read from partial values carry the
// specs' defaults.
func TestDecodeFillsDefaults(t *testing.T) {
	o := Decode(params.Values{Tables: int64(4)})
	if o.Tables != 4 || o.Mode != ReadWrite || o.TableSize != 10000 || o.QueryMode != "prepared" || !o.RangeSelects {
		t.Errorf("Decode = %+v; want tables 4 and sysbench's defaults", o)
	}
}
