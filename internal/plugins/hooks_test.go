package plugins_test

import (
	"reflect"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// Every method of a registered workload's instance that has the name and
// type of a workload.Hooks or workload.Shape field is declared in that field:
// a Check or a Split the instance has but leaves out of its Hooks or Shape
// would never be called, since the runner reads only those.
func TestEveryHookMethodIsDeclared(t *testing.T) {
	for _, kind := range workload.Kinds() {
		w, err := workload.Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := w.New(params.WithDefaults(w.Params(), params.Values{}))
		if err != nil {
			t.Fatalf("%s with its defaults: %v", kind, err)
		}
		var hooks workload.Hooks
		var shape workload.Shape
		if h, ok := inst.(workload.Hooker); ok {
			hooks = h.Hooks()
		}
		if s, ok := inst.(workload.Shaper); ok {
			shape = s.Shape()
		}
		for _, declared := range []any{&hooks, &shape} {
			v := reflect.ValueOf(declared).Elem()
			for i := range v.NumField() {
				f := v.Type().Field(i)
				m := reflect.ValueOf(inst).MethodByName(f.Name)
				if f.Type.Kind() != reflect.Func || !m.IsValid() || m.Type() != f.Type {
					continue
				}
				if v.Field(i).IsNil() {
					t.Errorf("%s: the instance has a %s method, but its %s leaves %s unset: the runner would never call it", kind, f.Name, v.Type().Name(), f.Name)
				}
			}
		}
	}
}
