package clickbench

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// A run names ClickBench's hot rule exactly when a query's hot time comes
// from one hot try while another failed: ClickBench would give it none.
func TestHotTimeFromOneTryIsNamed(t *testing.T) {
	s := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name  string
		tries []*float64
		named bool
	}{
		{"every try succeeded", []*float64{s(3), s(1), s(2)}, false},
		{"the cold try failed", []*float64{nil, s(1), s(2)}, false},
		{"one hot try failed", []*float64{s(3), nil, s(2)}, true},
		{"the last hot try failed", []*float64{s(3), s(1), nil}, true},
		{"both hot tries failed: no hot time either way", []*float64{s(3), nil, nil}, false},
		{"a single try", []*float64{s(3)}, false},
	} {
		in := &instance{}
		sum := &result.Summary{Queries: []result.QueryResult{{Name: "Q0", Tries: []*float64{s(1), s(1), s(1)}}, {Name: "Q1", Tries: c.tries}}}
		got := in.Deviations(sum)
		if (len(got) == 1 && got[0] == hotFromOneTry) != c.named || len(got) > 1 {
			t.Errorf("%s: deviations %q, named = %v wanted", c.name, got, c.named)
		}
	}
}
