package kvparams

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

// TestDecode: a cell's values come out as typed options, defaults filled in,
// and the parameters that go together are checked once, here.
func TestDecode(t *testing.T) {
	o, err := Decode(params.Values{Pipeline: int64(16), DataSizeRange: "32-1024"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Pipeline != 16 || o.DataSizeMin != 32 || o.DataSizeMax != 1024 || o.KeyPrefix != "memtier-" || !o.DistinctClientSeed || o.KeyMaximum != 10000000 {
		t.Errorf("Decode = %+v; want pipeline 16, sizes 32-1024 and the defaults", o)
	}
	if o, _ := Decode(params.Values{DataSize: int64(100)}); o.DataSizeMin != 100 || o.DataSizeMax != 100 {
		t.Errorf("without a range the sizes are data_size: %d-%d", o.DataSizeMin, o.DataSizeMax)
	}
	for _, c := range []struct {
		v    params.Values
		want string
	}{
		{params.Values{DataSizeRange: "10-5"}, "data_size_range \"10-5\""},
		{params.Values{DataSizeRange: "1-999999999999"}, "data_size_range"},
		{params.Values{KeyMinimum: int64(50), KeyMaximum: int64(10)}, "key_maximum 10 is below key_minimum 50"},
		{params.Values{Profile: "get-only", Command: []string{"INCR __key__"}}, "both set"},
		{params.Values{CommandRatio: []string{"1"}}, "which is not set"},
		{params.Values{Command: []string{"GET __key__"}, CommandKeyPattern: []string{"R", "S"}}, "command_key_pattern has 2 entries for 1 commands"},
	} {
		if _, err := Decode(c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%v) = %v; want an error with %q", c.v, err, c.want)
		}
	}
}
