package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 36 item 4: a run that served a burst rate for 5 s and then a steady
// rate 87 % lower shows both levels as rows of their own, with the second
// it changed, and says that the run's headline blends them: in the
// terminal report, in Markdown and in HTML.
func TestReportsShowBothLevelsOfABurstRun(t *testing.T) {
	runs := fixture(t)
	r := runs[0] // vm, 1 client, rep 1
	r.Series = nil
	for i := 0; i < 30; i++ {
		rate := 1000.0
		if i < 5 {
			rate = 7500
		}
		r.Series = append(r.Series, result.SeriesPoint{Second: i + 1, Ops: int64(rate), Rate: rate})
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Level shifts", "burst, until s 5", "7,500.0 ops/s", "steady, from s 6", "1,000.0 ops/s", "whole run (blends both)"}
	var text, md, html bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s report does not show %q", name, w)
			}
		}
	}
	if !strings.Contains(html.String(), "(blends two levels: burst 7,500.0 ops/s until s 5, then steady 1,000.0 ops/s)") {
		t.Errorf("the HTML run's label does not say it blends two levels")
	}
	if rows := tableAfter(t, md.String(), "Level shifts"); len(rows) != 5 { // header, separator, 3 rows
		t.Errorf("level-shift table has %d lines, want 5: %q", len(rows), rows)
	}
}
