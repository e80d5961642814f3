package examples_test

import (
	"testing"

	"github.com/fairbench/fairbench/examples"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// parseExample reads and parses one of the shipped study files, as `fairbench
// run FILE` would.
func parseExample(t *testing.T, name string) *study.Study {
	t.Helper()
	data, err := examples.Files.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := study.Parse(name, data, runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
