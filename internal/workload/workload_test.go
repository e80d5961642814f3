package workload

import (
	"context"
	"io"
	"testing"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

type testWorkload struct{ kind string }

func (w testWorkload) Kind() string      { return w.kind }
func (testWorkload) Description() string { return "test" }
func (testWorkload) Params() []params.Spec {
	return []params.Spec{{Name: "size", Kind: params.Int, Default: int64(3)}}
}
func (testWorkload) New(params.Values) (Instance, error) {
	return nil, context.Canceled
}

// TestRegisterCarriesTheKind: one Register makes the workload, its kind's
// information, its parameters and its place as default known everywhere.
func TestRegisterCarriesTheKind(t *testing.T) {
	printed := false
	Register(Plugin{Workload: testWorkload{"register-test-a"},
		Kind:    kinds.Info{Headline: result.Headline{Name: "things/s"}, Summary: func(io.Writer, *result.Run) { printed = true }},
		Default: true})
	if _, err := Get("register-test-a"); err != nil {
		t.Fatal(err)
	}
	if h := kinds.Headline("register-test-a"); h.Name != "things/s" {
		t.Errorf("headline %q, want the registered things/s", h.Name)
	}
	if specs, ok := kinds.Params("register-test-a"); !ok || len(specs) != 1 || specs[0].Name != "size" {
		t.Errorf("kinds.Params = %v, %v; want the workload's size", specs, ok)
	}
	if f, ok := kinds.Summary("register-test-a"); !ok {
		t.Error("the registered summary is missing")
	} else if f(io.Discard, &result.Run{}); !printed {
		t.Error("kinds.Summary is not the registered printer")
	}
	if Default() != "register-test-a" {
		t.Errorf("Default() = %q, want the workload registered as default", Default())
	}
	for name, p := range map[string]Plugin{
		"a second default":    {Workload: testWorkload{"register-test-b"}, Default: true},
		"a kind twice":        {Workload: testWorkload{"register-test-a"}},
		"another kind's info": {Workload: testWorkload{"register-test-c"}, Kind: kinds.Info{Kind: "register-test-d"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s did not panic", name)
				}
			}()
			Register(p)
		}()
	}
}
