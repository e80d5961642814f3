package plugins_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// endCases are, for every registered workload, the parameter sets that
// choose how its runs end, and the end each must declare (workload.End):
// a new workload lists its own here, and a new way for a run to end is a
// workload.EndKind that some case here declares.
var endCases = map[string][]struct {
	values params.Values
	want   workload.EndKind
}{
	"bulkindex": {
		{params.Values{}, workload.EndSelf},
		{params.Values{"time_limit": 90 * time.Second}, workload.EndSelf},
	},
	"search": {{params.Values{}, workload.EndAtDuration}},
	"clickbench": {
		{params.Values{"mode": "tries"}, workload.EndTries},
		{params.Values{"mode": "tries", "timeout": time.Duration(0)}, workload.EndTries},
		{params.Values{"mode": "concurrent"}, workload.EndAtDuration},
	},
	"ssb": {
		{params.Values{"mode": "tries", "tries": int64(5)}, workload.EndTries},
		{params.Values{"mode": "concurrent"}, workload.EndAtDuration},
	},
	"kv": {
		{params.Values{}, workload.EndAtDuration},
		{params.Values{"requests": int64(1000)}, workload.EndWhenDone},
	},
	"oltp": {
		{params.Values{}, workload.EndAtDuration},
		// sysbench's --events: the run ends once they are done.
		{params.Values{"events": int64(1000)}, workload.EndWhenDone},
	},
	"tpcb": {
		{params.Values{}, workload.EndAtDuration},
		{params.Values{"transactions": int64(100)}, workload.EndPerClient},
		{params.Values{"transactions": int64(100), "transaction_log": true}, workload.EndPerClient},
	},
	"tpcc": {
		{params.Values{}, workload.EndAtDuration},
		{params.Values{"keying_thinking": true}, workload.EndAtDuration},
	},
	"ycsb": {
		{params.Values{}, workload.EndAtDuration},
		{params.Values{"operationcount": int64(1000)}, workload.EndWhenDone},
		{params.Values{"workload": "e", "operationcount": int64(1000)}, workload.EndWhenDone},
	},
}

// shapeOf binds w to values over its defaults and returns its shape, as
// the runner reads it.
func shapeOf(w workload.Workload, values params.Values) (workload.Shape, error) {
	in, err := w.New(params.WithDefaults(w.Params(), values))
	if err != nil {
		return workload.Shape{}, err
	}
	if s, ok := in.(workload.Shaper); ok {
		return s.Shape(), nil
	}
	return workload.Shape{}, nil
}

// Every registered workload declares a valid shape (workload.Shape.Validate,
// which the runner refuses to run without) with the end its parameters
// choose: for each of its endCases, and for each choice of each of its
// parameters with choices and each flip of a boolean one. Together the
// cases declare every kind of end.
func TestEveryWorkloadDeclaresAValidShape(t *testing.T) {
	declared := map[workload.EndKind]bool{}
	for _, kind := range workload.Kinds() {
		w, err := workload.Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		cases, ok := endCases[kind]
		if !ok {
			t.Errorf("%s has no endCases: list the parameter sets that choose how its runs end", kind)
		}
		for _, c := range cases {
			shape, err := shapeOf(w, c.values)
			if err != nil {
				t.Errorf("%s %v: %v", kind, c.values, err)
				continue
			}
			if err := shape.Validate(); err != nil {
				t.Errorf("%s %v: %v", kind, c.values, err)
			}
			if got := shape.End.Kind(); got != c.want {
				t.Errorf("%s %v: ends %s, want %s", kind, c.values, got, c.want)
			}
			declared[shape.End.Kind()] = true
		}
		for _, values := range variants(w.Params()) {
			shape, err := shapeOf(w, values)
			if err != nil {
				continue // a value the workload refuses alone (bounds_test.go checks refusals)
			}
			if err := shape.Validate(); err != nil {
				t.Errorf("%s %v: %v", kind, values, err)
			}
		}
	}
	for _, k := range workload.EndKinds() {
		if !declared[k] {
			t.Errorf("no workload's endCases declares an end of kind %s: give it a case, or remove the kind", k)
		}
	}
}

// variants are a workload's parameter sets with one parameter changed from
// its default: each choice of a parameter with choices, each boolean flipped.
func variants(specs []params.Spec) []params.Values {
	var out []params.Values
	for _, s := range specs {
		switch {
		case len(s.Choices) > 0:
			for _, c := range s.Choices {
				if c != fmt.Sprint(s.Default) {
					out = append(out, params.Values{s.Name: c})
				}
			}
		case s.Kind == params.Bool:
			def, _ := s.Default.(bool)
			out = append(out, params.Values{s.Name: !def})
		}
	}
	return out
}
