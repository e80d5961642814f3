package params

import (
	"reflect"
	"testing"
)

// Recorded values read back in their specs' types: whole numbers as the
// spec's number type, lists as []string, beyond today's bounds too; a value
// of another type is left out, a value no spec names is kept as it is.
func TestTypedReadsRecordedValuesInTheirSpecsTypes(t *testing.T) {
	specs := []Spec{
		{Name: "scale", Kind: Int, Min: MinOf(1), Max: MaxOf(10)},
		{Name: "factor", Kind: Float},
		{Name: "files", Kind: StringList},
		{Name: "mode", Kind: String, Choices: []string{"a"}},
		{Name: "fast", Kind: Bool},
	}
	recorded := Values{
		"scale":  float64(100), // whole, and above today's maximum
		"factor": int64(2),     // a whole float as JSON reads it back
		"files":  []any{"x.ndjson"},
		"mode":   "b", // not among today's choices
		"fast":   "maybe",
		"other":  int64(7),
	}
	want := Values{"scale": int64(100), "factor": 2.0, "files": []string{"x.ndjson"}, "mode": "b", "other": int64(7)}
	if got := Typed(specs, recorded); !reflect.DeepEqual(got, want) {
		t.Errorf("Typed = %#v, want %#v", got, want)
	}
	if got := Typed(specs, Values{"scale": 0.5}); len(got) != 0 {
		t.Errorf("a fractional Int was kept: %#v", got)
	}
}
