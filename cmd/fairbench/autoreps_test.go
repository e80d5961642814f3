package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// autoStudy runs a study with repetitions = "auto", at most 4 rounds and an
// interval of ±interval %, of two embedded SQLite targets at 1 and 2
// clients, and returns its stored runs and run's stderr.
func autoStudy(t *testing.T, interval string) (string, []*result.Run, string) {
	t.Helper()
	dir := t.TempDir()
	o := fairbench(t, dir, "run", writeAutoStudy(t, dir, interval))
	if o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	return dir, storedRuns(t, dir), o.stderr
}

// writeAutoStudy writes the study autoStudy runs into dir, checks what
// validate says of it, and returns its path.
func writeAutoStudy(t *testing.T, dir, interval string) string {
	t.Helper()
	file := filepath.Join(dir, "auto.toml")
	doc := `[study]
name = "auto"
repetitions = "auto"
max_repetitions = 4
interval = ` + interval + `
warmup = "0s"
duration = "1s"
[[target]]
name = "a"
url = "sqlite:a.db"
[[target]]
name = "b"
url = "sqlite:b.db"
[[workload]]
kind = "tpcb"
mode = "select-only"
scale = 1
clients = [1, 2]
`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	v := fairbench(t, dir, "validate", file)
	if want := fmt.Sprintf("repetitions auto: 2 pilot rounds, then as many as the widest scenario needs for ±%s %%, at most 4 (the estimate above is that worst case)", interval); v.code != 0 || !strings.Contains(v.stdout, want) {
		t.Fatalf("validate: exit %d, or it lacks %q:\n%s%s", v.code, want, v.stdout, v.stderr)
	}
	return file
}

// roundsOf is the highest repetition among runs, and the rounds the pilot
// of their first two rounds asks for, as the run's hook computes them.
func roundsOf(t *testing.T, runs []*result.Run, interval float64) (ran, asked int) {
	t.Helper()
	var pilot []*result.Run
	for _, r := range runs {
		ran = max(ran, r.Repetition)
		if r.Summary.PilotRounds != analysis.AutoPilotRounds {
			t.Errorf("run of repetition %d records %d pilot rounds, want %d", r.Repetition, r.Summary.PilotRounds, analysis.AutoPilotRounds)
		}
		if r.Repetition <= analysis.AutoPilotRounds {
			pilot = append(pilot, r)
		}
	}
	groups, err := analysis.GroupRuns(pilot)
	if err != nil {
		t.Fatal(err)
	}
	asked, err = analysis.AutoRounds(groups, "", interval, 4, analysis.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	return ran, asked
}

// A pilot whose scatter bounds ±100 % (a block ratio of 2 either way)
// stops the study after the rounds it asks for: the rest are skipped with
// one line, and the report's finding says it tested the rounds with Stein's
// two stages. On a quiet host the pilot's two rounds suffice; a host busy
// enough to scatter 1 s runs by half their value asks for a third round,
// which the study then runs and no more (the decision is recomputed from the
// stored runs, so the test checks the rule, not the host).
func TestAutoRepetitionsStopAfterThePilot(t *testing.T) {
	dir, runs, stderr := autoStudy(t, "100")
	ran, asked := roundsOf(t, runs, 100)
	if asked == 4 {
		t.Skipf("the host scattered the pilot's runs so much that even ±100 %% needs every round (stored %d runs); the stop after the pilot is not exercised:\n%s", len(runs), stderr)
	}
	if ran != asked || len(runs) != asked*2*2 {
		t.Fatalf("stored %d runs up to repetition %d, the pilot asks for %d rounds; want %d runs of %d rounds:\n%s", len(runs), ran, asked, asked*4, asked, stderr)
	}
	skipped := fmt.Sprintf("rounds %d–4", asked+1)
	if asked == 3 {
		skipped = "round 4"
	}
	want := fmt.Sprintf("repetitions auto: the pilot's scatter asks for %d rounds of 4; skipping %s\n", asked, skipped)
	if strings.Count(stderr, want) != 1 {
		t.Errorf("run's progress lacks, once, %q:\n%s", want, stderr)
	}
	// --resume asks the hook again, from the same pilot: the same rounds.
	again := fairbench(t, dir, "run", "--resume", filepath.Join(dir, "auto.toml"))
	if again.code != 0 || strings.Count(again.stderr, want) != 1 || len(storedRuns(t, dir)) != len(runs) {
		t.Errorf("run --resume: exit %d, or it asks for other rounds or adds runs:\n%s", again.code, again.stderr)
	}
	o := fairbench(t, dir, "report") // the text report wraps its lines
	if words := strings.Join(strings.Fields(o.stdout), " "); o.code != 0 || !strings.Contains(words, fmt.Sprintf("paired over 2 cells × %d rounds, Stein's two stages, p=", asked)) {
		t.Errorf("report: exit %d, or its finding does not say it used Stein's two stages:\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// A pilot cannot bound ±0.01 %: the study runs to its maximum.
func TestAutoRepetitionsRunToTheMaximum(t *testing.T) {
	_, runs, stderr := autoStudy(t, "0.01")
	ran, asked := roundsOf(t, runs, 0.01)
	if ran != 4 || asked != 4 || len(runs) != 4*2*2 {
		t.Fatalf("stored %d runs up to repetition %d, the pilot asks for %d rounds; want 16 runs of 4 rounds:\n%s", len(runs), ran, asked, stderr)
	}
	if want := "repetitions auto: the pilot's scatter asks for all 4 rounds\n"; !strings.Contains(stderr, want) {
		t.Errorf("run's progress lacks %q:\n%s", want, stderr)
	}
}
