package study

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
)

type fakeCatalog map[string][]params.Spec

func (c fakeCatalog) Params(kind string) ([]params.Spec, bool) {
	s, ok := c[kind]
	return s, ok
}

func (c fakeCatalog) Kinds() []string {
	var out []string
	for k := range c {
		out = append(out, k)
	}
	return out
}

// fakeCatalog runs one tool, "bench-tool", whose runs are of kind tpcb.
func (fakeCatalog) Tool(name string) (string, bool) {
	if name == "bench-tool" {
		return "tpcb", true
	}
	return "", false
}

func (fakeCatalog) Tools() []string { return []string{"bench-tool"} }

func (fakeCatalog) Fits(kind, url string) error { return nil }

var cat = fakeCatalog{
	"tpcb": {
		{Name: "mode", Kind: params.String, Choices: []string{"select-only", "tpcb-like", "simple-update"}, Default: "tpcb-like"},
		{Name: "scale", Kind: params.Int, Min: params.MinOf(1), Default: int64(1)},
		{Name: "query_mode", Kind: params.String, Choices: []string{"simple", "extended", "prepared"}, Default: "simple"},
	},
	"kv": {
		{Name: "ratio", Kind: params.String, Default: "1:10"},
	},
}

const fullStudy = `# a comment
[study]
name = "sqlite-journal-modes"
repetitions = 2
warmup = "1s"
duration = 5
cooldown = "0s"
order = "sequential"
seed = 42

[[target]]
name = "wal"
url = "sqlite:demo-wal.db?journal_mode=WAL&synchronous=NORMAL"
cores = 8
cpu = "Graviton3"
price_per_hour = 0.5
notes = "laptop"

[[target]]
name = "delete"
url = "sqlite:demo-delete.db?journal_mode=DELETE"

[[workload]]
name = "select-only"
kind = "tpcb"
mode = ["select-only", "tpcb-like"]
scale = 1
clients = [1, 2, "20%", "40%", "99%"]
clients_per_thread = 2
targets = ["wal"]
warmup = "2s"
rate = 1000
latency_limit = "10ms"
max_tries = 3
threads = 4

[[workload]]
kind = "kv"
`

// lineOf finds the 1-based line of the first line of doc containing s, so that
// the tests do not depend on hand-counted line numbers.
func lineOf(t *testing.T, doc, s string) int {
	t.Helper()
	for i, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not in document", s)
	return 0
}

func mustParse(t *testing.T, doc string) *Study {
	t.Helper()
	s, err := Parse("study.toml", []byte(doc), cat)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func mustPlan(t *testing.T, s *Study) []Cell {
	t.Helper()
	cells, err := s.Plan(cat)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return cells
}

func TestParseFullFile(t *testing.T) {
	s := mustParse(t, fullStudy)
	sum := sha256.Sum256([]byte(fullStudy))
	if s.File != "study.toml" || s.Hash != hex.EncodeToString(sum[:]) || string(s.Source) != fullStudy {
		t.Errorf("file/hash/source: %q %q", s.File, s.Hash)
	}
	if s.Name != "sqlite-journal-modes" || s.Repetitions != 2 || s.Warmup != time.Second ||
		s.Duration != 5*time.Second || s.Cooldown != 0 || s.Order != "sequential" || s.Seed != 42 {
		t.Errorf("study fields: %+v", s)
	}
	if len(s.Targets) != 2 {
		t.Fatalf("targets: %d", len(s.Targets))
	}
	wal := s.Targets[0]
	want := Target{Name: "wal", URL: "sqlite:demo-wal.db?journal_mode=WAL&synchronous=NORMAL", Cores: 8,
		CPU: "Graviton3", PricePerHour: 0.5, Notes: "laptop", Line: lineOf(t, fullStudy, "[[target]]")}
	if *wal != want {
		t.Errorf("target = %+v, want %+v", *wal, want)
	}
	if s.Targets[1].Name != "delete" || s.Targets[1].Cores != 0 || s.Targets[1].Line != lineOf(t, fullStudy, `name = "delete"`)-1 {
		t.Errorf("second target = %+v", *s.Targets[1])
	}
	if len(s.Workloads) != 2 {
		t.Fatalf("workloads: %d", len(s.Workloads))
	}
	w := s.Workloads[0]
	if w.Name != "select-only" || w.Kind != "tpcb" || w.ClientsPerThread != 2 || w.Rate != 1000 ||
		w.LatencyLimit != 10*time.Millisecond || w.MaxTries != 3 || w.Threads != 4 || w.Line != lineOf(t, fullStudy, "[[workload]]") {
		t.Errorf("workload fields: %+v", w)
	}
	if !slices.Equal(w.Targets, []string{"wal"}) {
		t.Errorf("workload targets = %v", w.Targets)
	}
	if w.Warmup == nil || *w.Warmup != 2*time.Second || w.Duration != nil || w.Cooldown != nil {
		t.Errorf("overrides: %v %v %v", w.Warmup, w.Duration, w.Cooldown)
	}
	wantClients := []ClientLevel{{N: 1}, {N: 2}, {Percent: 20}, {Percent: 40}, {Percent: 99}}
	if !slices.Equal(w.Clients, wantClients) {
		t.Errorf("clients = %v, want %v", w.Clients, wantClients)
	}
	if len(w.Params) != 2 || !slices.Equal(w.Params["mode"], []any{"select-only", "tpcb-like"}) ||
		!slices.Equal(w.Params["scale"], []any{int64(1)}) {
		t.Errorf("params = %#v", w.Params)
	}
	kv := s.Workloads[1]
	if kv.Name != "kv" || len(kv.Params) != 0 || !slices.Equal(kv.Clients, []ClientLevel{{N: 1}}) ||
		kv.ClientsPerThread != 1 || kv.MaxTries != 1 || len(kv.Targets) != 0 {
		t.Errorf("defaulted workload = %+v", kv)
	}
}

func TestParseDefaults(t *testing.T) {
	doc := "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"
	s, err := Parse("dir/my-study.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-study" || s.Repetitions != 1 || s.Warmup != 5*time.Second || s.Duration != 60*time.Second ||
		s.Cooldown != 0 || s.Order != "interleaved" || s.Seed != 1 {
		t.Errorf("defaults: %+v", s)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(path, []byte(fullStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, cat)
	if err != nil {
		t.Fatal(err)
	}
	if s.File != path || s.Name != "sqlite-journal-modes" || len(s.Hash) != 64 {
		t.Errorf("loaded %q %q %q", s.File, s.Name, s.Hash)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml"), cat); err == nil {
		t.Error("missing file: no error")
	}
}

// sweepStudy has two targets with cores, a workload sweeping scale and mode
// (written in the opposite order to the kind's specs) and two client levels.
func sweepStudy(order string) string {
	return fmt.Sprintf(`[study]
repetitions = 2
order = %q
seed = 7
warmup = 0
duration = "2s"
[[target]]
name = "A"
url = "postgres://a.example/db"
cores = 4
[[target]]
name = "B"
url = "postgres://b.example/db"
cores = 4
[[workload]]
kind = "tpcb"
scale = [10, 1]
mode = ["select-only", "simple-update"]
clients = [1, 4]
`, order)
}

func summary(c Cell) string {
	return fmt.Sprintf("%s %s/%d c%d r%d", c.Target.Name, c.Params.String("mode"), c.Params.Int("scale"), c.Clients, c.Repetition)
}

func TestPlanInterleaved(t *testing.T) {
	cells := mustPlan(t, mustParse(t, sweepStudy("interleaved")))
	// 2 reps × 2 modes × 2 scales × 2 clients × 2 targets
	if len(cells) != 32 {
		t.Fatalf("%d cells, want 32", len(cells))
	}
	want := []string{
		"A select-only/10 c1 r1", "B select-only/10 c1 r1",
		"A select-only/10 c4 r1", "B select-only/10 c4 r1",
		"A select-only/1 c1 r1", "B select-only/1 c1 r1",
		"A select-only/1 c4 r1", "B select-only/1 c4 r1",
		"A simple-update/10 c1 r1", "B simple-update/10 c1 r1",
	}
	for i, w := range want {
		if got := summary(cells[i]); got != w {
			t.Errorf("cell %d = %s, want %s", i, got, w)
		}
	}
	if got := summary(cells[16]); got != "A select-only/10 c1 r2" {
		t.Errorf("cell 16 = %s: the second repetition must start after the whole first one", got)
	}
	for i, c := range cells {
		if c.Index != i {
			t.Errorf("cell %d has Index %d", i, c.Index)
		}
		if c.Target.Name != []string{"A", "B"}[i%2] {
			t.Errorf("cell %d on %s: targets must alternate", i, c.Target.Name)
		}
		if c.Params.String("query_mode") != "simple" {
			t.Errorf("cell %d: default query_mode not filled in: %v", i, c.Params)
		}
		if c.Warmup != 0 || c.Duration != 2*time.Second || c.Cooldown != 0 {
			t.Errorf("cell %d timing %v %v %v", i, c.Warmup, c.Duration, c.Cooldown)
		}
	}
}

func TestPlanSequential(t *testing.T) {
	cells := mustPlan(t, mustParse(t, sweepStudy("sequential")))
	if len(cells) != 32 {
		t.Fatalf("%d cells, want 32", len(cells))
	}
	want := []string{
		"A select-only/10 c1 r1", "A select-only/10 c1 r2",
		"A select-only/10 c4 r1", "A select-only/10 c4 r2",
		"A select-only/1 c1 r1",
	}
	for i, w := range want {
		if got := summary(cells[i]); got != w {
			t.Errorf("cell %d = %s, want %s", i, got, w)
		}
	}
	for i, c := range cells {
		if want := []string{"A", "B"}[i/16]; c.Target.Name != want {
			t.Errorf("cell %d on %s, want %s: sequential runs one target after the other", i, c.Target.Name, want)
		}
	}
}

func keys(cells []Cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.Key()
	}
	return out
}

func TestPlanRandom(t *testing.T) {
	random := keys(mustPlan(t, mustParse(t, sweepStudy("random"))))
	again := keys(mustPlan(t, mustParse(t, sweepStudy("random"))))
	inter := keys(mustPlan(t, mustParse(t, sweepStudy("interleaved"))))
	if !slices.Equal(random, again) {
		t.Error("random order differs between two plans with the same seed")
	}
	if slices.Equal(random, inter) {
		t.Error("random order equals interleaved order")
	}
	a, b := slices.Clone(random), slices.Clone(inter)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Error("random order is not a permutation of interleaved")
	}
	other := mustParse(t, sweepStudy("random"))
	other.Seed = 8
	if slices.Equal(keys(mustPlan(t, other)), random) {
		t.Error("different seeds gave the same order")
	}
	cells := mustPlan(t, mustParse(t, sweepStudy("random")))
	for i, c := range cells {
		if c.Index != i {
			t.Errorf("cell %d has Index %d", i, c.Index)
		}
	}
}

func TestClientsPercentages(t *testing.T) {
	doc := `[[target]]
name = "big"
url = "postgres://db.example/x"
cores = 8
[[workload]]
kind = "tpcb"
clients = [1, 2, "20%", "40%", "60%", "80%", "99%"]
clients_per_thread = 2
`
	// 20% of 8 = 1.6 → 1 → ×2 = 2 (a duplicate of the literal 2, dropped),
	// 40% → 3 → 6, 60% → 4 → 8, 80% → 6 → 12, 99% → 7 → 14.
	want := []int{1, 2, 6, 8, 12, 14}
	// Both orders, because interleaved walks a union of levels that would hide
	// duplicates in one target's list.
	for _, order := range []string{"interleaved", "sequential"} {
		s := mustParse(t, "[study]\norder = \""+order+"\"\n"+doc)
		var got []int
		for _, c := range mustPlan(t, s) {
			got = append(got, c.Clients)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: clients = %v, want %v", order, got, want)
		}
	}
}

func TestClientsPercentageFloorsToOne(t *testing.T) {
	s := &Study{
		Targets:   []*Target{{Name: "t", URL: "postgres://h.example/db", Cores: 2}},
		Workloads: []*Workload{{Kind: "tpcb", Clients: []ClientLevel{{Percent: 10}, {Percent: 70}, {Percent: 100}}}},
	}
	var got []int
	for _, c := range mustPlan(t, s) {
		got = append(got, c.Clients)
	}
	if want := []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("clients = %v, want %v (10%% of 2 floors to 0, raised to 1)", got, want)
	}
}

func TestClientsPercentageNeedsCores(t *testing.T) {
	doc := `[[target]]
name = "remote"
url = "postgres://db.example.com/bench"
[[workload]]
name = "sel"
kind = "tpcb"
clients = [1, "50%"]
`
	s := mustParse(t, doc)
	_, err := s.Plan(cat)
	if err == nil {
		t.Fatal("no error for a percentage on a target without cores")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not *Error", err)
	}
	msg := err.Error()
	line := lineOf(t, doc, "clients =")
	for _, want := range []string{
		fmt.Sprintf("study.toml:%d:", line),
		`workload "sel"`,
		`target "remote" has no cores`,
		fmt.Sprintf("(line %d)", lineOf(t, doc, "[[target]]")),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if e.Line != line {
		t.Errorf("Line = %d, want %d", e.Line, line)
	}
}

func TestClientsPercentageLocalUsesNumCPU(t *testing.T) {
	s := &Study{
		Targets:   []*Target{{Name: "lite", URL: "sqlite:x.db"}},
		Workloads: []*Workload{{Kind: "tpcb", Clients: []ClientLevel{{Percent: 100}}}},
	}
	cells := mustPlan(t, s)
	if len(cells) != 1 || cells[0].Clients != runtime.NumCPU() {
		t.Errorf("cells = %+v, want one with %d clients", cells, runtime.NumCPU())
	}
}

func TestInterleavedDifferentLevelsPerTarget(t *testing.T) {
	s := &Study{
		Targets: []*Target{
			{Name: "small", URL: "postgres://s.example/db", Cores: 2},
			{Name: "large", URL: "postgres://l.example/db", Cores: 8},
		},
		Workloads: []*Workload{{Kind: "tpcb", Clients: []ClientLevel{{N: 1}, {Percent: 50}, {Percent: 100}}}},
	}
	var got []string
	for _, c := range mustPlan(t, s) {
		got = append(got, fmt.Sprintf("%s:%d", c.Target.Name, c.Clients))
	}
	// small: [1, 1, 2] → [1, 2]; large: [1, 4, 8]. The targets run each
	// level of the sweep together: 1, then 50 % (small's is its 1 client,
	// already run), then 100 %.
	want := []string{"small:1", "large:1", "large:4", "small:2", "large:8"}
	if !slices.Equal(got, want) {
		t.Errorf("plan = %v, want %v", got, want)
	}
}

func TestWorkloadTargetSubset(t *testing.T) {
	s := mustParse(t, fullStudy)
	cells := mustPlan(t, s)
	for _, c := range cells {
		if c.Workload.Name == "select-only" && c.Target.Name != "wal" {
			t.Errorf("select-only ran on %s", c.Target.Name)
		}
	}
	// wal runs select-only (2 modes × 4 levels × 2 reps) and kv (2 reps); delete runs kv only.
	// The levels on 8 cores with 2 clients per thread are 1, 2, 2 (20%), 6 (40%), 14 (99%),
	// the second 2 dropped.
	var onDelete, onWal int
	for _, c := range cells {
		if c.Target.Name == "delete" {
			onDelete++
		} else {
			onWal++
		}
	}
	if onWal != 2*4*2+2 || onDelete != 2 {
		t.Errorf("wal %d cells, delete %d cells", onWal, onDelete)
	}
	for _, c := range cells {
		if c.Workload.Name == "select-only" && (c.Warmup != 2*time.Second || c.Duration != 5*time.Second) {
			t.Errorf("override not applied: %+v", c)
		}
		if c.Workload.Name == "kv" && c.Warmup != time.Second {
			t.Errorf("study warmup not applied: %+v", c)
		}
	}
}

func TestKeyStableAndDistinct(t *testing.T) {
	cells := mustPlan(t, mustParse(t, sweepStudy("interleaved")))
	seen := map[string]int{}
	for i, c := range cells {
		if j, dup := seen[c.Key()]; dup {
			t.Errorf("cells %d and %d share key %q", j, i, c.Key())
		}
		seen[c.Key()] = i
	}
	if got, want := cells[0].Key(), "A|tpcb|mode=select-only query_mode=simple scale=10|c=1|r=1"; got != want {
		t.Errorf("key = %q, want %q", got, want)
	}
	// The same cell must keep its key whatever the order, or --resume would
	// not recognise it.
	again := mustPlan(t, mustParse(t, sweepStudy("sequential")))
	a, b := keys(cells), keys(again)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Error("keys differ between orders")
	}
}

func TestStructBuiltDefaults(t *testing.T) {
	s := &Study{
		Targets:   []*Target{{Name: "t", URL: "postgres://h.example/db"}},
		Workloads: []*Workload{{Kind: "tpcb", Params: map[string][]any{"scale": {8}, "mode": {"select-only"}}}},
	}
	cells := mustPlan(t, s)
	if len(cells) != 1 {
		t.Fatalf("%d cells, want 1", len(cells))
	}
	c := cells[0]
	w := s.Workloads[0]
	if s.Repetitions != 1 || s.Order != "interleaved" || s.Duration != 60*time.Second {
		t.Errorf("study defaults: %+v", s)
	}
	if w.Name != "tpcb" || w.ClientsPerThread != 1 || w.MaxTries != 1 || !slices.Equal(w.Clients, []ClientLevel{{N: 1}}) {
		t.Errorf("workload defaults: %+v", w)
	}
	if c.Clients != 1 || c.Repetition != 1 || c.Duration != 60*time.Second || c.Warmup != 0 {
		t.Errorf("cell: %+v", c)
	}
	// The int given in code is normalised like a file value would be.
	want := params.Values{"mode": "select-only", "scale": int64(8), "query_mode": "simple"}
	if c.Params.Canonical() != want.Canonical() || c.Params.Int("scale") != 8 {
		t.Errorf("params = %#v", c.Params)
	}
}

func TestStructBuiltErrors(t *testing.T) {
	s := &Study{
		Targets: []*Target{{Name: "t", URL: "postgres://h.example/db"}, {Name: "t", URL: "x"}},
		Workloads: []*Workload{
			{Kind: "nope"},
			{Kind: "tpcb", Name: "w", Targets: []string{"missing"}, Params: map[string][]any{"bogus": {1}}},
		},
	}
	_, err := s.Plan(cat)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`name "t" is used by another target`, `unknown kind "nope"`, `no target is named "missing"`, `"bogus" is not a parameter`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if _, err := (&Study{}).Plan(cat); err == nil || !strings.Contains(err.Error(), "no targets") {
		t.Errorf("empty study: %v", err)
	}
}

// parseErr parses doc, expects a failure and checks that the message names the
// file and the line of the first line containing marker, and contains every want.
func parseErr(t *testing.T, doc, marker string, wants ...string) {
	t.Helper()
	_, err := Parse("study.toml", []byte(doc), cat)
	if err == nil {
		t.Fatalf("no error for:\n%s", doc)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %q is not an *Error", err, err)
	}
	msg := err.Error()
	if marker != "" {
		want := fmt.Sprintf("study.toml:%d:", lineOf(t, doc, marker))
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}

const header = `[study]
name = "s"
[[target]]
name = "a"
url = "sqlite:a.db"
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc, marker string
		wants             []string
		line              int // checked instead of marker when the marker line is not unique
	}{
		{"unknown workload key", header + "[[workload]]\nkind = \"tpcb\"\nclient = 4\n",
			"client = 4", []string{`"client"`, "mode, scale, query_mode"}, 0},
		{"unknown study key", "[study]\nname = \"x\"\nrepetition = 3\n[[target]]\nname = \"a\"\nurl = \"sqlite:a\"\n[[workload]]\nkind = \"tpcb\"\n",
			"repetition", []string{`study: unknown key "repetition"`}, 0},
		{"unknown target key", header + "core = 4\n[[workload]]\nkind = \"tpcb\"\n",
			"core = 4", []string{`target "a": unknown key "core"`}, 0},
		{"unknown table", header + "[[workload]]\nkind = \"tpcb\"\n[[targets]]\nname = \"b\"\n",
			"[[targets]]", []string{`"targets"`}, 0},
		{"wrong type", header + "[[workload]]\nkind = \"tpcb\"\nscale = \"ten\"\n",
			"scale =", []string{"scale must be an integer", `"ten"`}, 0},
		{"bad choice in sweep", header + "[[workload]]\nkind = \"tpcb\"\nmode = [\"select-only\",\n  \"nope\"]\n",
			`"nope"]`, []string{`mode = "nope" is not one of`}, 0},
		{"wrong study type", "[study]\nrepetitions = \"two\"\n" + header[len("[study]\nname = \"s\"\n"):] + "[[workload]]\nkind = \"tpcb\"\n",
			"repetitions", []string{"repetitions must be an integer"}, 0},
		{"unknown kind", header + "[[workload]]\nname = \"w\"\nkind = \"tpcc\"\n",
			"kind = \"tpcc\"", []string{`unknown kind "tpcc"`, "known kinds: kv, tpcb"}, 0},
		{"missing kind", header + "[[workload]]\nname = \"w\"\n",
			"[[workload]]", []string{"kind is required"}, 0},
		{"missing target reference", header + "[[workload]]\nkind = \"tpcb\"\ntargets = [\"a\", \"b\"]\n",
			"targets =", []string{`no target is named "b"`}, 0},
		{"syntax error", header + "[[workload]]\nkind = \"tpcb\nscale = 1\n",
			"kind = \"tpcb", nil, 0},
		{"clients zero", header + "[[workload]]\nkind = \"tpcb\"\nclients = [1,\n 0]\n",
			" 0]", []string{"clients entry 2", "positive integer"}, 0},
		{"clients percent too large", header + "[[workload]]\nkind = \"tpcb\"\nclients = \"120%\"\n",
			"clients =", []string{`"120%"`, "at most 100%"}, 0},
		{"clients not a percentage", header + "[[workload]]\nkind = \"tpcb\"\nclients = [\"forty\"]\n",
			"clients =", []string{`"forty"`}, 0},
		{"clients float", header + "[[workload]]\nkind = \"tpcb\"\nclients = [2.5]\n",
			"clients =", []string{"a number must be a positive integer"}, 0},
		{"bad duration", "[study]\nduration = \"5 minutes\"\n" + header[len("[study]\nname = \"s\"\n"):] + "[[workload]]\nkind = \"tpcb\"\n",
			"duration =", []string{`"5 minutes" is not a duration`}, 0},
		{"zero duration", header + "[[workload]]\nkind = \"tpcb\"\nduration = 0\n",
			"duration = 0", []string{"duration must be more than zero"}, 0},
		{"bad order", "[study]\norder = \"alphabetical\"\n" + header[len("[study]\nname = \"s\"\n"):] + "[[workload]]\nkind = \"tpcb\"\n",
			"order =", []string{"interleaved, sequential, random"}, 0},
		{"no targets", "[study]\nname = \"s\"\n[[workload]]\nkind = \"tpcb\"\n", "", []string{"study.toml: no [[target]]"}, 0},
		{"no workloads", header, "", []string{"study.toml: no [[workload]]"}, 0},
		{"target without url", "[[target]]\nname = \"a\"\n[[workload]]\nkind = \"tpcb\"\n", "[[target]]", []string{"url is required"}, 0},
		{"target without name", "[[target]]\nurl = \"sqlite:a\"\n[[workload]]\nkind = \"tpcb\"\n", "[[target]]", []string{"target #1", "name is required"}, 0},
		{"duplicate target", header + "[[target]]\nname = \"a\"\nurl = \"sqlite:b\"\n[[workload]]\nkind = \"tpcb\"\n",
			"", []string{`name "a" is already used by the target on line 3`}, 7},
		{"duplicate workload", header + "[[workload]]\nkind = \"tpcb\"\n[[workload]]\nkind = \"tpcb\"\nscale = 2\n",
			"", []string{`name "tpcb" is already used by the workload on line 6`, "give it a name"}, 8},
		{"workload as a table", header + "[workload]\nkind = \"tpcb\"\n", "[workload]", []string{"write [[workload]]"}, 0},
		{"repeated sweep value", header + "[[workload]]\nkind = \"tpcb\"\nscale = [1, 1]\n", "scale =", []string{"scale lists 1 twice"}, 0},
		{"empty sweep", header + "[[workload]]\nkind = \"tpcb\"\nscale = []\n", "scale =", []string{"empty list"}, 0},
		{"negative rate", header + "[[workload]]\nkind = \"tpcb\"\nrate = -1\n", "rate =", []string{"rate must not be negative"}, 0},
		{"max_tries zero", header + "[[workload]]\nkind = \"tpcb\"\nmax_tries = 0\n", "max_tries", []string{"max_tries must be at least 1"}, 0},
		{"threads zero", header + "[[workload]]\nkind = \"tpcb\"\nthreads = 0\n", "threads", []string{"threads must be at least 1"}, 0},
		{"rate nan", header + "[[workload]]\nkind = \"tpcb\"\nrate = nan\n", "rate =", []string{"rate must be a finite number"}, 0},
		{"rate inf", header + "[[workload]]\nkind = \"tpcb\"\nrate = inf\n", "rate =", []string{"rate must be a finite number"}, 0},
		{"scale nan", header + "[[workload]]\nkind = \"tpcb\"\nscale = nan\n", "scale =", []string{"scale must be an integer"}, 0},
		{"10^12 clients", header + "[[workload]]\nkind = \"tpcb\"\nclients = 1000000000000\n", "clients =", []string{"more than 1000000"}, 0},
		{"10^12 threads", header + "[[workload]]\nkind = \"tpcb\"\nthreads = 1000000000000\n", "threads =", []string{"threads must be at most 10000"}, 0},
		{"10^12 repetitions", "[study]\nrepetitions = 1000000000000\n" + header[len("[study]\nname = \"s\"\n"):] + "[[workload]]\nkind = \"tpcb\"\n",
			"repetitions =", []string{"repetitions must be at most 1000"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.line > 0 {
				_, err := Parse("study.toml", []byte(tc.doc), cat)
				if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("study.toml:%d:", tc.line)) {
					t.Errorf("error %v is not on line %d", err, tc.line)
				}
			}
			parseErr(t, tc.doc, tc.marker, tc.wants...)
		})
	}
}

func TestUnknownWorkloadKeyPosition(t *testing.T) {
	doc := header + "[[workload]]\nname = \"sel\"\nkind = \"tpcb\"\n  sclae = 3\n"
	_, err := Parse("study.toml", []byte(doc), cat)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	want := fmt.Sprintf(`study.toml:%d:3: workload "sel": unknown key "sclae"`, lineOf(t, doc, "sclae"))
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if e.Line != lineOf(t, doc, "sclae") || e.Col != 3 || e.Key != `workload "sel"` {
		t.Errorf("error fields %+v", e)
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	doc := "[study]\nname = \"x\"\nrepetitions = = 2\n"
	_, err := Parse("study.toml", []byte(doc), cat)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	if e.Line != 3 || e.Col == 0 || !strings.HasPrefix(err.Error(), "study.toml:3:") {
		t.Errorf("syntax error %q at %d:%d, want line 3", err, e.Line, e.Col)
	}
}

func TestSeveralErrorsInFileOrder(t *testing.T) {
	doc := header + "[[workload]]\nkind = \"tpcb\"\nscale = \"ten\"\nbogus = 1\nclients = [0]\n"
	_, err := Parse("study.toml", []byte(doc), cat)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []int{lineOf(t, doc, "scale"), lineOf(t, doc, "bogus"), lineOf(t, doc, "clients")}
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d: %q", len(lines), len(want), err)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, fmt.Sprintf("study.toml:%d:", want[i])) {
			t.Errorf("error %d = %q, want line %d", i, l, want[i])
		}
	}
}

func TestInlineTables(t *testing.T) {
	doc := `target = [
  { name = "a", url = "sqlite:a.db" },
  { name = "b", url = "sqlite:b.db", color = "red" },
]
[[workload]]
kind = "tpcb"
`
	parseErr(t, doc, `name = "b"`, `target "b": unknown key "color"`)
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "s.toml", Line: 12, Col: 3, Key: `workload "sel"`, Msg: "clients: bad"}, `s.toml:12:3: workload "sel": clients: bad`},
		{Error{File: "s.toml", Line: 12, Msg: "bad"}, "s.toml:12: bad"},
		{Error{File: "s.toml", Msg: "bad"}, "s.toml: bad"},
		{Error{Line: 4, Key: "study", Msg: "bad"}, "line 4: study: bad"},
		{Error{Key: "study", Msg: "bad"}, "study: bad"},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestEstimate(t *testing.T) {
	s := mustParse(t, sweepStudy("interleaved"))
	cells := mustPlan(t, s)
	if got, want := s.estimate(cells, nil), 32*2*time.Second; got.Exact != want || got.Bounded != 0 {
		t.Errorf("estimate = %v, want %v", got, want)
	}
}

func TestWritePlan(t *testing.T) {
	doc := `[study]
name = "demo"
duration = "10s"
warmup = 0
[[target]]
name = "pg"
url = "postgres://bench:s3cret@db.example/bench"
cores = 4
[[workload]]
name = "sel"
kind = "tpcb"
mode = ["select-only", "tpcb-like"]
clients = [1, "100%"]
`
	s := mustParse(t, doc)
	cells := mustPlan(t, s)
	var buf bytes.Buffer
	WritePlan(&buf, s, cells, nil)
	out := buf.String()
	for _, want := range []string{"demo", "1 target", "1 workload", "4 cells", "interleaved", "40s", "db.example"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan does not contain %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("plan shows the password:\n%s", out)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "sel") && strings.Contains(l, "tpcb") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{
		"1 pg sel tpcb mode=select-only 1 1",
		"2 pg sel tpcb mode=select-only 4 (100% of threads) 1",
		"3 pg sel tpcb mode=tpcb-like 1 1",
		"4 pg sel tpcb mode=tpcb-like 4 (100% of threads) 1",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("plan rows = %q, want %q\n%s", rows, want, out)
	}
}

// generators = N is read per workload; a clients level below N, or a tool
// cell with generators, is an error at the line that set it.
func TestGenerators(t *testing.T) {
	doc := `[[target]]
name = "db"
url = "postgres://db.example.com/bench"
[[workload]]
name = "sel"
kind = "tpcb"
clients = [4, 8]
generators = 4
`
	cells := mustPlan(t, mustParse(t, doc))
	if len(cells) != 2 || cells[0].Workload.Generators != 4 {
		t.Fatalf("cells %v: want 2 cells on 4 generators", cells)
	}
	var plan strings.Builder
	WritePlan(&plan, mustParse(t, doc), cells, nil)
	if !strings.Contains(plan.String(), "8 on 4 generators") {
		t.Errorf("the plan does not say the cells run on 4 generators:\n%s", plan.String())
	}
	bad := strings.Replace(doc, "[4, 8]", "[2, 8]", 1)
	_, err := mustParse(t, bad).Plan(cat)
	want := fmt.Sprintf("study.toml:%d:", lineOf(t, bad, "clients ="))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "clients: 2 on target \"db\" cannot be split over generators = 4") {
		t.Errorf("clients below generators: %v (want %s…)", err, want)
	}
	if _, err := Parse("study.toml", []byte(strings.Replace(doc, "generators = 4", "generators = 0", 1)), cat); err == nil {
		t.Errorf("generators = 0 accepted")
	}
}

// A sweep whose product passes maxCells is refused by Plan with the count
// and the axes, before its cells are built (a 350 KB study of 90 million
// cells ran validate out of memory).
func TestPlanRefusesTooManyCellsBeforeBuildingThem(t *testing.T) {
	var scales, clients []string
	for i := 1; i <= 400; i++ {
		scales = append(scales, strconv.Itoa(i))
	}
	for i := 1; i <= 100; i++ {
		clients = append(clients, strconv.Itoa(i))
	}
	doc := header + "[[workload]]\nkind = \"tpcb\"\nmode = [\"select-only\", \"tpcb-like\", \"simple-update\"]\nscale = [" +
		strings.Join(scales, ", ") + "]\nclients = [" + strings.Join(clients, ", ") + "]\n"
	st, err := Parse("study.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(cat)
	if err == nil {
		t.Fatalf("planned %d cells, want a refusal over %d", len(cells), maxCells)
	}
	for _, want := range []string{"study.toml:", "120000 cells", "mode 3 values × scale 400 values × 100 client levels over 1 target × 1 repetition", "more than 100000", "split the study"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
}

// A percentage of a large target's threads times clients_per_thread can
// make more clients than a cell runs: Plan refuses it as it refuses a count.
func TestPlanRefusesPercentClientsPastTheLimit(t *testing.T) {
	doc := header + "[[target]]\nname = \"big\"\nurl = \"sqlite:big.db\"\ncores = 1000\n" +
		"[[workload]]\nkind = \"tpcb\"\ntargets = [\"big\"]\nclients = \"100%\"\nclients_per_thread = 10000\n"
	st, err := Parse("study.toml", []byte(doc), cat)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Plan(cat); err == nil || !strings.Contains(err.Error(), "10000000 clients, more than 1000000") {
		t.Fatalf("Plan: %v, want a refusal of 10000000 clients", err)
	}
}

// TestToolsComeFromThePassedCatalog: the tools a cell may name are the
// catalog's the caller passes in, as the workload kinds are: a cell of one
// of them takes its kind and that kind's parameters, any other tool is
// refused naming the catalog's tools.
func TestToolsComeFromThePassedCatalog(t *testing.T) {
	const head = "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\n"
	s := mustParse(t, head+"tool = \"bench-tool\"\nscale = 3\n")
	if w := s.Workloads[0]; w.Tool != "bench-tool" || w.Kind != "tpcb" {
		t.Errorf("tool cell: tool %q kind %q, want bench-tool of kind tpcb", w.Tool, w.Kind)
	}
	_, err := Parse("study.toml", []byte(head+"tool = \"other-tool\"\n"), cat)
	if err == nil || !strings.Contains(err.Error(), `tool = "other-tool": fairbench can run bench-tool`) {
		t.Errorf("unknown tool: %v; want it refused, naming bench-tool", err)
	}
}

// repetitions = "auto": the keys that size it, their domains, and what it
// needs, refused with the file and line of the key.
func TestAutoRepetitionsKeys(t *testing.T) {
	doc := func(study string) string {
		return "[study]\nname = \"s\"\n" + study + "[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"
	}
	s := mustParse(t, doc("repetitions = \"auto\"\nmax_repetitions = 7\n"))
	if !s.AutoRepetitions || s.MaxRepetitions != 7 || s.Repetitions != 7 || s.Interval != defaultInterval {
		t.Errorf("auto with max 7: auto %v, max %d, repetitions %d, interval %v; want true, 7, 7 (the plan's worst case), %v",
			s.AutoRepetitions, s.MaxRepetitions, s.Repetitions, s.Interval, defaultInterval)
	}
	if s := mustParse(t, doc("repetitions = \"auto\"\nmax_repetitions = 1000\ninterval = 100\norder = \"interleaved\"\n")); s.Interval != 100 || s.MaxRepetitions != 1000 {
		t.Errorf("interval 100, max 1000: got %v, %d", s.Interval, s.MaxRepetitions)
	}
	if s := mustParse(t, doc("repetitions = \"auto\"\nmax_repetitions = 3\ninterval = 0.01\n")); s.Interval != 0.01 {
		t.Errorf("interval 0.01: got %v", s.Interval)
	}
	auto := "repetitions = \"auto\"\n"
	for _, tc := range []struct{ name, study, marker, want string }{
		{"auto without max", auto, "repetitions", `needs max_repetitions = N`},
		{"auto sequential", auto + "max_repetitions = 4\norder = \"sequential\"\n", "order", `repetitions = "auto" needs order = "interleaved"`},
		{"auto random", auto + "max_repetitions = 4\norder = \"random\"\n", "order", `needs order = "interleaved"`},
		{"max 2", auto + "max_repetitions = 2\n", "max_repetitions", "max_repetitions must be at least 3, got 2"},
		{"max negative", auto + "max_repetitions = -5\n", "max_repetitions", "max_repetitions must be at least 3"},
		{"max 10^12", auto + "max_repetitions = 1000000000000\n", "max_repetitions", "max_repetitions must be at most 1000"},
		{"max a string", auto + "max_repetitions = \"ten\"\n", "max_repetitions", "max_repetitions must be an integer"},
		{"max a float", auto + "max_repetitions = 4.5\n", "max_repetitions", "max_repetitions must be an integer"},
		{"interval NaN", auto + "max_repetitions = 4\ninterval = nan\n", "interval", "interval must be a finite number"},
		{"interval Inf", auto + "max_repetitions = 4\ninterval = inf\n", "interval", "interval must be a finite number"},
		{"interval 0", auto + "max_repetitions = 4\ninterval = 0\n", "interval", "more than 0 and at most 100, got 0"},
		{"interval negative", auto + "max_repetitions = 4\ninterval = -3\n", "interval", "interval must not be negative"},
		{"interval 10^12", auto + "max_repetitions = 4\ninterval = 1e12\n", "interval", "at most 100, got 1e+12"},
		{"interval a string", auto + "max_repetitions = 4\ninterval = \"5%\"\n", "interval", "interval must be a number"},
		{"repetitions another string", "repetitions = \"many\"\n", "repetitions", `repetitions must be an integer or "auto"`},
		{"max without auto", "repetitions = 3\nmax_repetitions = 4\n", "max_repetitions", `max_repetitions sizes repetitions = "auto"`},
		{"interval without auto", "interval = 5\n", "interval", `interval sizes repetitions = "auto"`},
	} {
		t.Run(tc.name, func(t *testing.T) { parseErr(t, doc(tc.study), tc.marker, tc.want) })
	}
}

// server_view takes "off" or a duration in its domain; anything else is an
// error naming the line.
func TestServerViewKey(t *testing.T) {
	wl := "[[workload]]\nkind = \"tpcb\"\n"
	for _, tc := range []struct {
		value string
		want  time.Duration
	}{{`"off"`, 0}, {`"250ms"`, 250 * time.Millisecond}, {`2`, 2 * time.Second}} {
		s := mustParse(t, header+"server_view = "+tc.value+"\n"+wl)
		if got := s.Targets[0].ServerViewInterval(time.Second); got != tc.want {
			t.Errorf("server_view = %s: interval %v, want %v", tc.value, got, tc.want)
		}
	}
	if got := mustParse(t, header+wl).Targets[0].ServerViewInterval(time.Second); got != time.Second {
		t.Errorf("no server_view: interval %v, want the default", got)
	}
	for _, bad := range []string{`"on"`, `0`, `-1`, `"10ms"`, `1e12`, `nan`, `inf`, `"2h"`} {
		parseErr(t, header+"server_view = "+bad+"\n"+wl, "server_view", "server_view")
	}
}
