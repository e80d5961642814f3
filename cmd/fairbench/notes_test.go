package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// TestStudyNotesSayEachDeviationOnce: after a study's table, a deviation
// several runs share is printed once, naming the runs it concerns.
func TestStudyNotesSayEachDeviationOnce(t *testing.T) {
	runs := []*result.Run{
		{Target: "pg", Workload: "w", Kind: "nokind", Deviations: []string{"shared", "pg only"}},
		{Target: "my", Workload: "w", Kind: "nokind", Deviations: []string{"shared"}},
		{Target: "my", Workload: "w", Kind: "nokind", Deviations: []string{"shared"}}, // a repetition
	}
	var b bytes.Buffer
	printStudyNotes(&b, runs)
	want := "deviation: shared (w on pg; w on my)\ndeviation: pg only (w on pg)\n"
	if b.String() != want {
		t.Errorf("notes:\n%s\nwant:\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "shared") != 1 {
		t.Error("a shared deviation is printed more than once")
	}
}
