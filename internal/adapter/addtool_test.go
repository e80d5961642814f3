package adapter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// tallyOutput is what the made-up tool tallybench prints.
const tallyOutput = "tallybench 1.0\nclients: 4\nops: 5000 in 10.0 s\n"

// tallybench is a made-up tool as its file would register it, with a kind of
// its own (no native workload runs it) and one parameter.
var tallybench = adapter.Tool{
	Name:        "tallybench",
	Kind:        "tally",
	DetectOrder: 1000,
	Formats:     "tallybench 1.0 summary",
	Detect:      func(text string) bool { return strings.HasPrefix(text, "tallybench 1.") },
	Parse:       parseTally,
	Build: func(inv adapter.Invocation) (adapter.Command, error) {
		dir, ok := strings.CutPrefix(inv.URL, "file://")
		if !ok {
			return adapter.Command{}, fmt.Errorf("tallybench counts in a directory (file:///dir), not at %s", inv.URL)
		}
		return adapter.Command{Argv: []string{"tallybench", "--dir=" + dir,
			fmt.Sprintf("--clients=%d", inv.Clients), fmt.Sprintf("--ops=%d", inv.Params.Int("ops"))}}, nil
	},
	Install: "tallybench is made up: there is nothing to install",
	KindParams: []params.Spec{{Name: "ops", Kind: params.Int, Default: int64(1000),
		Min: params.MinOf(1), Max: params.MaxOf(1e9), Help: "operations per client"}},
}

// parseTally reads tallyOutput's lines, refusing one it cannot read.
func parseTally(name, text string) ([]*result.Run, error) {
	r := &result.Run{Workload: "tallybench"}
	var ops int64
	var seconds float64
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 3 {
		return nil, &adapter.ParseError{File: name, Msg: fmt.Sprintf("%d lines, want 3", len(lines))}
	}
	if _, err := fmt.Sscanf(lines[1], "clients: %d", &r.Clients); err != nil {
		return nil, &adapter.ParseError{File: name, Line: 2, Msg: err.Error()}
	}
	if _, err := fmt.Sscanf(lines[2], "ops: %d in %g s", &ops, &seconds); err != nil || seconds <= 0 {
		return nil, &adapter.ParseError{File: name, Line: 3, Msg: fmt.Sprintf("not ops: N in S s (%v)", err)}
	}
	r.Duration = time.Duration(seconds * float64(time.Second))
	r.Summary.Transactions, r.Summary.Throughput = ops, float64(ops)/seconds
	return []*result.Run{r}, nil
}

// TestAddingATool walks through docs/architecture.md's "Adding a tool
// adapter" with tallybench: one adapter.Register (a tool's file calls it
// from init) makes import read the tool's outputs, lists them among the
// supported formats and lets a study run the tool in a cell, with its
// kind's parameters; nothing outside the tool's file names it.
func TestAddingATool(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tally.txt")
	if err := os.WriteFile(out, []byte(tallyOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := importFile(t, out); err == nil || !strings.Contains(err.Error(), "not an output fairbench can read") {
		t.Fatalf("before tallybench is registered, import reads its output: %v", err)
	}

	adapter.KeepTools(t)
	adapter.Register(tallybench)

	// Import: the output is detected as tallybench's and parsed.
	tool, runs, err := importFile(t, out)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "tallybench" || len(runs) != 1 || runs[0].Source != "tallybench" || runs[0].Kind != "tally" ||
		runs[0].Clients != 4 || runs[0].Summary.Transactions != 5000 || runs[0].Status != result.StatusOK {
		t.Fatalf("imported by %s: %+v", tool.Name, runs)
	}

	// The formats import reads, in its help and errors.
	if !slices.Contains(adapter.Readable(), "tallybench") || !strings.HasSuffix(adapter.Supported(), ", tallybench 1.0 summary") {
		t.Errorf("not listed last (DetectOrder 1000): %v; %s", adapter.Readable(), adapter.Supported())
	}

	// A study cell of the tool, with its kind's parameter.
	src := `[study]
name = "tally"
duration = "10s"

[[target]]
name = "disk"
url = "file:///srv/tally"

[[workload]]
tool = "tallybench"
ops = 500
clients = [4]
`
	st, err := study.Parse("tally.toml", []byte(src), runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil || len(cells) != 1 {
		t.Fatalf("%d cells: %v", len(cells), err)
	}
	if err := runner.CheckToolCell(cells[0]); err != nil {
		t.Fatal(err)
	}
	c := cells[0]
	cmd, err := tool.Build(adapter.Invocation{URL: c.Target.URL, Clients: c.Clients, Duration: c.Duration, Params: c.Params})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tallybench", "--dir=/srv/tally", "--clients=4", "--ops=500"}; !slices.Equal(cmd.Argv, want) {
		t.Errorf("the cell's command is %q, want %q", cmd.Argv, want)
	}
	if !slices.Contains(runner.Catalog{}.Tools(), "tallybench") {
		t.Errorf("a study cannot name tallybench: %v", runner.Catalog{}.Tools())
	}
}

// importFile reads and parses the output at path as fairbench import does.
func importFile(t *testing.T, path string) (*adapter.Tool, []*result.Run, error) {
	t.Helper()
	f, err := adapter.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := adapter.Group([]adapter.File{f})
	if err != nil || len(inputs) != 1 {
		t.Fatalf("grouped into %d inputs: %v", len(inputs), err)
	}
	return adapter.ParseInput(inputs[0])
}
