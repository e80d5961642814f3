package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/result"
)

// synthetic runs of one cell of target at the given throughputs.
func syntheticRuns(study, target string, start time.Time, tps ...float64) []*result.Run {
	var out []*result.Run
	for i, v := range tps {
		out = append(out, &result.Run{ID: int64(i + 1), Source: "fairbench", StudyName: study, StudyHash: study, Target: target, TargetURL: "sqlite:x.db",
			Workload: "w", Kind: "tpcb", Params: map[string]any{"mode": "tpcb-like"}, Clients: 1, Repetition: i + 1, Status: result.StatusOK,
			StartedAt: start.Add(time.Duration(i) * time.Minute), Duration: time.Second, Summary: result.Summary{Throughput: v, Transactions: 1000}})
	}
	return out
}

// A target name is user input: the gate's outputs escape it for the
// terminal and for a Markdown table.
func TestGateEscapesNames(t *testing.T) {
	name := "a|b<script>\x1b[31m"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := syntheticRuns("base", name, t0, 1000, 1010, 990, 1005)
	cur := syntheticRuns("cur", name, t0.Add(time.Hour), 500, 505, 495, 502)
	pairs, unpaired, err := pairTargets(base, cur, nil, "map")
	if err != nil || len(pairs) != 1 || len(unpaired) != 0 {
		t.Fatalf("pairs %v, unpaired %v, err %v", pairs, unpaired, err)
	}
	a, err := compareAcross(base, cur, pairs, "cur", "baseline", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := parseFailOn("tps:-5%")
	if err != nil {
		t.Fatal(err)
	}
	failures, err := evaluateGate(a, ts)
	if err != nil || len(failures) != 1 {
		t.Fatalf("failures %d, err %v: a halving beyond -5 %% must fail", len(failures), err)
	}
	g := &gateOutcome{title: "cur against base", spec: "tps:-5%", a: a, failures: failures, cellsTotal: len(a.cmp.Cells)}
	var md, text bytes.Buffer
	g.writeGitHub(&md)
	g.writeText(escape.NewWriter(&text, escape.TerminalText))
	if strings.Contains(md.String(), "<script>") || !strings.Contains(md.String(), `a\|b&lt;script>`) || strings.Contains(md.String(), "\x1b") {
		t.Fatalf("markdown does not escape the name:\n%s", md.String())
	}
	if strings.Contains(text.String(), "\x1b") || !strings.Contains(text.String(), `a|b<script>\x1b[31m · w (tpcb) · 1 client: tps`) {
		t.Fatalf("text does not escape the name:\n%s", text.String())
	}
}
