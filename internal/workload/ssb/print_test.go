package ssb_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// TestPrintFlatQueries checks that every query has a flat text in every
// dialect, one line each. With FAIRBENCH_PRINT_SSB=1 it also prints the
// ClickHouse 18.16 flat texts as "NAME<TAB>SQL" lines: bench/analytics.sh
// gives clickhouse-client the very texts fairbench runs that way.
func TestPrintFlatQueries(t *testing.T) {
	if len(ssb.Queries) != 13 {
		t.Fatalf("%d queries, want SSB's 13", len(ssb.Queries))
	}
	for _, q := range ssb.Queries {
		for _, d := range ssb.Dialects {
			text := q.Flat[d]
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s: no flat text in the %s dialect", q.Name, d)
			}
			if strings.ContainsAny(text, "\t\n;") {
				t.Errorf("%s %s: the flat text is not one statement on one line: %q", q.Name, d, text)
			}
		}
	}
	if os.Getenv("FAIRBENCH_PRINT_SSB") != "1" || t.Failed() {
		return
	}
	for _, q := range ssb.Queries {
		fmt.Printf("%s\t%s\n", q.Name, q.Flat[ssb.ClickHouse18])
	}
}
