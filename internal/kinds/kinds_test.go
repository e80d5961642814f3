package kinds

import (
	"bytes"
	"io"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// TestOneRegistrationCarriesTheKind: what a kind declares — its parameters,
// its summary printer — comes from its one Info, and a kind registers once.
func TestOneRegistrationCarriesTheKind(t *testing.T) {
	if _, ok := Params("kinds-test-none"); ok {
		t.Fatal("an unknown kind declares parameters")
	}
	if _, ok := Summary("kinds-test-none"); ok {
		t.Fatal("an unknown kind has a summary printer")
	}
	Register(Info{Kind: "kinds-test-bare"})
	if _, ok := Params("kinds-test-bare"); ok {
		t.Error("a kind registered without parameters declares some")
	}
	if _, ok := Summary("kinds-test-bare"); ok {
		t.Error("a kind registered without a printer has one")
	}
	Register(Info{Kind: "kinds-test-a",
		Params:  func() []params.Spec { return []params.Spec{{Name: "scale", Default: 1}} },
		Summary: func(w io.Writer, r *result.Run) { io.WriteString(w, "info") }})
	specs, ok := Params("kinds-test-a")
	if !ok || len(specs) != 1 || specs[0].Name != "scale" {
		t.Errorf("Params = %v, %v; want the declared scale", specs, ok)
	}
	f, ok := Summary("kinds-test-a")
	if !ok {
		t.Fatal("the registered printer is missing")
	}
	var b bytes.Buffer
	f(&b, &result.Run{})
	if b.String() != "info" {
		t.Errorf("printed %q, want %q", b.String(), "info")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of a kind did not panic")
		}
	}()
	Register(Info{Kind: "kinds-test-a"})
}
