package fromcommands_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/fromcommands"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// convert writes the study of shell text and loads it as 'fairbench run'
// and 'validate' do, planning its cells.
func convert(t *testing.T, text string) (*study.Study, []study.Cell, string, []string) {
	t.Helper()
	r, err := fromcommands.Convert("bench.sh", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "study.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := study.Load(path, runner.Catalog{})
	if err != nil {
		t.Fatalf("the study does not load: %v\n%s", err, b.String())
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatalf("the study does not plan: %v\n%s", err, b.String())
	}
	return st, cells, b.String(), r.Unmapped()
}

func levels(w *study.Workload) []int {
	var out []int
	for _, c := range w.Clients {
		out = append(out, c.N)
	}
	return out
}

// TestSeedArticleLinesBecomeAStudy: the ARM-vs-x86 article's lines
// (pgbench -T, -S and -N at four thread counts in for-loops of each form,
// sysbench's three tests, mysqlslap at four concurrencies) become a study
// that loads and plans: one workload per shape with the four levels, the
// load step's scale on the runs, targets from the connection flags, no
// password, and mysqlslap, which no native kind runs, a cell of the tool
// itself on the MySQL target; only `set -e` is listed as not mapped.
func TestSeedArticleLinesBecomeAStudy(t *testing.T) {
	text, err := os.ReadFile("testdata/arm-vs-x86.sh")
	if err != nil {
		t.Fatal(err)
	}
	st, cells, out, unmapped := convert(t, string(text))
	if len(st.Workloads) != 7 || len(cells) != 28 || len(st.Targets) != 2 {
		t.Fatalf("%d workloads, %d cells, %d targets; want 7, 28 and 2\n%s", len(st.Workloads), len(cells), len(st.Targets), out)
	}
	wantModes := []string{"", "select-only", "simple-update", "read_write", "read_only", "write_only", ""}
	for i, w := range st.Workloads {
		if got := levels(w); !slices.Equal(got, []int{1, 2, 4, 8}) {
			t.Errorf("workload %s: clients %v, want 1 2 4 8", w.Name, got)
		}
		mode := ""
		if m := w.Params["mode"]; len(m) == 1 {
			mode = m[0].(string)
		}
		if mode != wantModes[i] {
			t.Errorf("workload %s: mode %q, want %q", w.Name, mode, wantModes[i])
		}
		if w.Tool != "" {
			continue // mysqlslap runs its queries, not for a time
		}
		if *w.Duration != 60e9 {
			t.Errorf("workload %s: duration %s, want 60s", w.Name, *w.Duration)
		}
	}
	if got := st.Workloads[0].Params["scale"]; len(got) != 1 || got[0] != int64(100) {
		t.Errorf("pgbench's runs: scale %v, want the load step's 100", got)
	}
	urls := []string{st.Targets[0].URL, st.Targets[1].URL}
	if !slices.Equal(urls, []string{"postgres://bench@127.0.0.1:5432/bench", "mysql://bench@127.0.0.1:3306/bench"}) {
		t.Errorf("targets %v", urls)
	}
	if strings.Contains(out, "fbvar") {
		t.Errorf("the study holds the password's placeholder:\n%s", out)
	}
	slap := st.Workloads[6]
	if slap.Tool != "mysqlslap" || slap.Targets[0] != st.Targets[1].Name || slap.Params["queries"][0] != int64(10000) || slap.Params["iterations"][0] != int64(3) {
		t.Errorf("mysqlslap's cell: tool %q on %v, params %v\n%s", slap.Tool, slap.Targets, slap.Params, out)
	}
	if len(unmapped) != 1 || !strings.Contains(unmapped[0], "set -e") {
		t.Errorf("unmapped %q, want set -e's line alone", unmapped)
	}
}

// TestPlaceholdersStayForTheUser: a variable that is not a loop's stays
// ${VAR} in the study, which says to fill it in; one where a number goes
// leaves its line unmapped, naming it.
func TestPlaceholdersStayForTheUser(t *testing.T) {
	r, err := fromcommands.Convert("x.sh", []byte("pgbench -c 4 -T 10 -h $PGHOST -U ${PGUSER} bench\npgbench -c $CLIENTS -T 10 -h db bench\n"+
		"sysbench oltp_read_only --db-driver=pgsql --pgsql-host=db --pgsql-password=hunter22 --threads=2 run\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "hunter22") {
		t.Errorf("the study holds the password a line gave:\n%s", out)
	}
	if !strings.Contains(out, "postgres://${PGUSER}@${PGHOST}/bench") || !strings.Contains(out, "${PGHOST} is left as the file wrote it") {
		t.Errorf("the placeholders are not kept and explained:\n%s", out)
	}
	u := r.Unmapped()
	if len(u) != 1 || !strings.Contains(u[0], "line 2") || !strings.Contains(u[0], "$CLIENTS") {
		t.Errorf("unmapped %q, want line 2 naming $CLIENTS", u)
	}
}

// TestShapesAndLevels: lines of one shape are one workload whatever their
// order; a different duration is another workload; memtier's -c per thread
// makes the level threads × connections; an unknown loop form is listed.
func TestShapesAndLevels(t *testing.T) {
	st, _, out, unmapped := convert(t, `
memtier_benchmark -s 127.0.0.1 -p 6379 --protocol=redis -t 2 -c 5 --test-time=30 --ratio=1:10 --hide-histogram
memtier_benchmark -s 127.0.0.1 -p 6379 -t 2 -c 10 --test-time=30 --ratio=1:10
memtier_benchmark -s 127.0.0.1 -p 6379 -t 2 -c 10 --test-time=60 --ratio=1:10
for ((i=0; i<3; i++)); do pgbench -c $i bench; done
`)
	if len(st.Workloads) != 2 {
		t.Fatalf("%d workloads, want 2\n%s", len(st.Workloads), out)
	}
	if got := levels(st.Workloads[0]); !slices.Equal(got, []int{10, 20}) || st.Workloads[0].Threads != 2 {
		t.Errorf("clients %v threads %d, want 10 20 on 2 threads\n%s", got, st.Workloads[0].Threads, out)
	}
	if !strings.Contains(out, "--hide-histogram: accepted, no effect") {
		t.Errorf("the note on --hide-histogram is not in the study:\n%s", out)
	}
	if len(unmapped) == 0 || !strings.Contains(unmapped[0], "for-loop") {
		t.Errorf("unmapped %q, want the C-style loop", unmapped)
	}
}

// TestHostileShellText: control characters in a line reach the study's
// comments escaped (the study still loads), an unclosed quote is an error
// naming its line, and a loop of too many values is listed, not expanded.
func TestHostileShellText(t *testing.T) {
	_, _, out, unmapped := convert(t, "pgbench -c 2 -T 10 -h db --log-prefix \"a\x1b[31m\rb\" bench\n"+
		"for t in "+strings.Repeat("1 ", 1001)+"; do pgbench -c $t -h db bench; done\n")
	if strings.ContainsAny(out, "\x1b\r") {
		t.Errorf("a control character reached the study:\n%q", out)
	}
	if len(unmapped) != 1 || !strings.Contains(unmapped[0], "more than 1000 values") {
		t.Errorf("unmapped %q, want the loop of 1001 values", unmapped)
	}
	if _, err := fromcommands.Convert("q.sh", []byte("pgbench -c 2\npgbench 'open\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("an unclosed quote: %v, want an error naming line 2", err)
	}
}
