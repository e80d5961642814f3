package kinds

import (
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

func TestParamsDeclaredOnce(t *testing.T) {
	if _, ok := Params("params-test-none"); ok {
		t.Fatal("a kind that declares no parameters has some")
	}
	RegisterParams("params-test-a", func() []params.Spec { return []params.Spec{{Name: "scale", Default: 1}} })
	specs, ok := Params("params-test-a")
	if !ok || len(specs) != 1 || specs[0].Name != "scale" {
		t.Fatalf("Params = %v, %v; want the declared scale", specs, ok)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second declaration for a kind did not panic")
		}
	}()
	RegisterParams("params-test-a", func() []params.Spec { return nil })
}
