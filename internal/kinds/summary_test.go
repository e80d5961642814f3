package kinds

import (
	"bytes"
	"io"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

func TestSummaryPrefersInfoThenRegistered(t *testing.T) {
	if _, ok := Summary("summary-test-none"); ok {
		t.Fatal("a kind without a printer has one")
	}
	RegisterSummary("summary-test-a", func(w io.Writer, r *result.Run) { io.WriteString(w, "registered") })
	Register(Info{Kind: "summary-test-b", Summary: func(w io.Writer, r *result.Run) { io.WriteString(w, "info") }})
	for kind, want := range map[string]string{"summary-test-a": "registered", "summary-test-b": "info"} {
		f, ok := Summary(kind)
		if !ok {
			t.Fatalf("%s: no printer", kind)
		}
		var b bytes.Buffer
		f(&b, &result.Run{})
		if b.String() != want {
			t.Errorf("%s printed %q, want %q", kind, b.String(), want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a second printer for a kind did not panic")
		}
	}()
	RegisterSummary("summary-test-a", func(io.Writer, *result.Run) {})
}
