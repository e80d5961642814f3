// Package cellrun runs one-cell studies through the runner for tests of
// workloads. It is apart from testenv, which the runner's own tests import.
package cellrun

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// One runs a study of exactly one cell, given as TOML, through the runner
// as `fairbench run` does (with --replace when replace is set), and returns
// its run and the runner's error. The caller imports the workloads it names.
func One(t testing.TB, studyTOML string, replace bool) (*result.Run, error) {
	t.Helper()
	st, err := study.Parse("test.toml", []byte(studyTOML), runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &runner.MemorySink{}
	err = runner.New(st, runner.Options{Sink: sink, Replace: replace}).Run(context.Background(), cells)
	if len(sink.Runs) != 1 {
		t.Fatalf("%d runs from a study of one cell (%v)", len(sink.Runs), err)
	}
	return sink.Runs[0], err
}
