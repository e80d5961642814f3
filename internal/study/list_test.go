package study

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

// A list-valued parameter (an SSB query set) is one value; an array of arrays
// sweeps over several lists.
func TestListParameterIsNotASweep(t *testing.T) {
	lc := fakeCatalog{"ssb": {{Name: "queries", Kind: params.StringList, Choices: []string{"q1.1", "q1.2", "q2.1"},
		Default: []string{"q1.1"}}}}
	one := "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"ssb\"\nqueries = [\"q1.1\", \"q2.1\"]\n"
	s, err := Parse("s.toml", []byte(one), lc)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := s.Plan(lc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 || params.Format(cells[0].Params["queries"]) != "q1.1,q2.1" {
		t.Fatalf("%d cells, queries %v: want one cell with the list q1.1,q2.1", len(cells), cells[0].Params["queries"])
	}
	sweep := strings.Replace(one, `["q1.1", "q2.1"]`, `[["q1.1"], ["q1.2", "q2.1"]]`, 1)
	s, err = Parse("s.toml", []byte(sweep), lc)
	if err != nil {
		t.Fatal(err)
	}
	if cells, err = s.Plan(lc); err != nil || len(cells) != 2 {
		t.Fatalf("an array of lists: %d cells (err %v), want a sweep of 2", len(cells), err)
	}
	bad := strings.Replace(one, `["q1.1", "q2.1"]`, `["q1.1", "q9"]`, 1)
	if _, err := Parse("s.toml", []byte(bad), lc); err == nil || !strings.Contains(err.Error(), `"q9" is not one of`) ||
		!strings.Contains(err.Error(), "s.toml:6") {
		t.Fatalf("a bad element: err %v, want the file, line and the element named", err)
	}
}
