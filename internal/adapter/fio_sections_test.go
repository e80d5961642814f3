package adapter

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// fioFixture reads one of the adapter's real fio outputs.
func fioFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fio", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fioClones splits the seqwrite fixture (numjobs=2 without group_reporting,
// so fio printed each clone's numbers) into one output per clone: two real
// measurements with the same parameters, which stand for two disks here.
// Clone 1: write 814.79014 IOPS, 854369385 B/s; clone 2: 911.19947 IOPS,
// 955461895 B/s.
func fioClones(t *testing.T) []string {
	t.Helper()
	clones := testenv.FioJobs(t, fioFixture(t, "fio333-seqwrite-logs/output.txt"))
	if len(clones) != 2 {
		t.Fatalf("%d jobs in the seqwrite fixture, want its 2 clones", len(clones))
	}
	return clones
}

// fioRuns parses fio outputs as imports do, numbering the runs in order.
type fioRuns struct {
	t    *testing.T
	runs []*result.Run
}

func (f *fioRuns) add(target, name, text string) {
	f.t.Helper()
	_, runs, err := parse(name, text)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range runs {
		rep := 1
		for _, o := range f.runs {
			if o.Target == target && o.Params["rw"] == r.Params["rw"] && o.Params["bs"] == r.Params["bs"] {
				rep++
			}
		}
		r.ID, r.StudyName, r.Target, r.Repetition = int64(len(f.runs)+1), "disks", target, rep
		f.runs = append(f.runs, r)
	}
}

func (f *fioRuns) groups() []*analysis.Group {
	f.t.Helper()
	g, err := analysis.GroupRuns(f.runs)
	if err != nil {
		f.t.Fatal(err)
	}
	return g
}

// sectionOf returns the Markdown section whose heading contains name.
func sectionOf(t *testing.T, md, name string) string {
	t.Helper()
	for _, s := range strings.Split(md, "\n## ")[1:] {
		if head, _, _ := strings.Cut(s, "\n"); strings.Contains(head, name) {
			return s
		}
	}
	t.Fatalf("no section %q in:\n%s", name, md)
	return ""
}

// tableAfter returns the Markdown table rows after the first line containing caption.
func tableAfter(t *testing.T, md, caption string) []string {
	t.Helper()
	i := strings.Index(md, caption)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", caption, md)
	}
	var rows []string
	started := false
	for _, line := range strings.Split(md[i:], "\n")[1:] {
		if strings.HasPrefix(line, "|") {
			started = true
			rows = append(rows, line)
		} else if started {
			break
		}
	}
	return rows
}

// cells splits a Markdown table row at its unescaped pipes.
func cells(row string) []string {
	row = strings.ReplaceAll(row, `\|`, "\x00")
	parts := strings.Split(strings.Trim(row, "|"), "|")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.TrimSpace(p), "\x00", `\|`)
	}
	return parts
}

// rowOf returns the cells of the row of target in the table after caption.
func rowOf(t *testing.T, md, caption, target string) []string {
	t.Helper()
	rows := tableAfter(t, md, caption)
	for _, r := range rows[2:] {
		if c := cells(r); c[0] == target {
			return c
		}
	}
	t.Fatalf("no row %s in the table after %q:\n%s", target, caption, strings.Join(rows, "\n"))
	return nil
}

func headerOf(t *testing.T, md, caption string) string {
	t.Helper()
	return strings.Join(cells(tableAfter(t, md, caption)[0]), ",")
}

// Disk A ran the three fixtures' jobs (randrw 8k, seqread 1M, seqwrite 1M
// clone 1), disk B the seqwrite clone 2. The tables show what fio printed.
func TestFioMarkdownTables(t *testing.T) {
	f := &fioRuns{t: t}
	clones := fioClones(t)
	f.add("A", "randrw.json", fioFixture(t, "fio333-randrw-8k-json.txt"))
	f.add("A", "seqread.json", fioFixture(t, "fio333-seqread-1m-jsonplus.txt"))
	f.add("A", "clone1.json", clones[0])
	f.add("B", "clone2.json", clones[1])
	var b bytes.Buffer
	if err := report.Markdown(&b, f.groups(), f.runs, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()

	// randrw: read iops 28728.029294, bw_bytes 235340015 (224.44 MiB/s), clat
	// mean 3466144.232332 ns, p95 6782976 ns, p99 15794176 ns, p99.9 28180480
	// ns; write iops 7296.271638, bw_bytes 59771057 (57.00 MiB/s), clat mean
	// 3748567.607218 ns, p95 7372800 ns, p99 17956864 ns, p99.9 28442624 ns.
	rr := sectionOf(t, md, "rw=randrw")
	rates, lat := "IOPS and bandwidth", "Completion latency"
	if h := headerOf(t, rr, rates); h != "target,clients,n,read IOPS,write IOPS,read MiB/s,write MiB/s" {
		t.Errorf("randrw rates header %s", h)
	}
	if got := strings.Join(rowOf(t, rr, rates, "A"), ","); got != "A,4,1,28,728,7,296,224.4,57.0" {
		t.Errorf("randrw rates row %s", got)
	}
	if h := headerOf(t, rr, lat); h != "target,clients,read mean,read p95,read p99,read p99.9,write mean,write p95,write p99,write p99.9" {
		t.Errorf("randrw latency header %s", h)
	}
	if got := strings.Join(rowOf(t, rr, lat, "A"), ","); got != "A,4,3.466,6.783,15.794,28.180,3.749,7.373,17.957,28.443" {
		t.Errorf("randrw latency row %s", got)
	}
	if strings.Contains(rr, "Ratio") {
		t.Errorf("one target, yet a ratio table:\n%s", rr)
	}

	// seqread (json+): only read columns; iops 494.8828, bw_bytes 518922226,
	// clat mean 31697116.685123 ns, p99 86507520 ns, p99.9 96993280 ns (fio's
	// own: its bins' p99 by HdrHistogram's rank would be 85.503 ms).
	sr := sectionOf(t, md, "rw=read")
	if h := headerOf(t, sr, rates); h != "target,clients,n,read IOPS,read MiB/s" {
		t.Errorf("seqread rates header %s", h)
	}
	if got := strings.Join(rowOf(t, sr, rates, "A"), ","); got != "A,1,1,495,494.9" {
		t.Errorf("seqread rates row %s", got)
	}
	if got := strings.Join(rowOf(t, sr, lat, "A"), ","); got != "A,1,31.697,50.070,86.508,96.993" {
		t.Errorf("seqread latency row %s", got)
	}

	// seqwrite on two disks: 911.19947 / 814.79014 = 1.118 and
	// 955461895 / 854369385 = 1.118. Clat mean, p99, p99.9: clone 1
	// 19165024.273508, 123207680, 346030080 ns; clone 2 17188758.557818,
	// 61603840, 354418688 ns.
	sw := sectionOf(t, md, "rw=write")
	for target, want := range map[string]string{"A": "A,2,1,815,814.8", "B": "B,2,1,911,911.2"} {
		if got := strings.Join(rowOf(t, sw, rates, target), ","); got != want {
			t.Errorf("seqwrite rates row %s, want %s", got, want)
		}
	}
	for target, want := range map[string]string{"A": "A,2,19.165,43.254,123.208,346.030", "B": "B,2,17.189,36.438,61.604,354.419"} {
		if got := strings.Join(rowOf(t, sw, lat, target), ","); got != want {
			t.Errorf("seqwrite latency row %s, want %s", got, want)
		}
	}
	if h := headerOf(t, sw, "Ratio to A"); h != "target,clients,write IOPS,write MiB/s" {
		t.Errorf("ratio header %s", h)
	}
	if got := strings.Join(rowOf(t, sw, "Ratio to A", "B"), ","); got != "B,2,1.12×,1.12×" {
		t.Errorf("ratio row %s", got)
	}

	// --baseline B: A is the one divided.
	b.Reset()
	if err := report.Markdown(&b, f.groups(), f.runs, report.Options{Baseline: "B"}); err != nil {
		t.Fatal(err)
	}
	sw = sectionOf(t, b.String(), "rw=write")
	if got := strings.Join(rowOf(t, sw, "Ratio to B", "A"), ","); got != "A,2,0.89×,0.89×" {
		t.Errorf("ratio row against B %s", got)
	}
	// randrw has no run on B: no ratios, and the report says why.
	if rr := sectionOf(t, b.String(), "rw=randrw"); strings.Contains(rr, "Ratio") || strings.Contains(rr, "No ratios") {
		t.Errorf("randrw ran on A only, yet:\n%s", rr)
	}
}

// Repetitions: every number is the median of the repetitions' (of two, their mean).
func TestFioRepetitions(t *testing.T) {
	f := &fioRuns{t: t}
	clones := fioClones(t)
	f.add("A", "clone1.json", clones[0])
	f.add("A", "clone2.json", clones[1])
	cells := fioCells(f.runs, "")
	if len(cells) != 1 {
		t.Fatalf("%d fio cells, want 1", len(cells))
	}
	w := cells[0].IO["write"]
	if w == nil || w.N != 2 || cells[0].IO["read"] != nil {
		t.Fatalf("directions %+v", cells[0].IO)
	}
	// (814.79014 + 911.19947) / 2; (854369385 + 955461895) / 2.
	if w.IOPS != (814.79014+911.19947)/2 || w.Bandwidth != (854369385.0+955461895.0)/2 {
		t.Errorf("medians %v IOPS %v B/s", w.IOPS, w.Bandwidth)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"clat mean", w.ClatMean, (19165024.273508 + 17188758.557818) / 2 / 1000},
		{"p99", w.P99, (123207680.0 + 61603840.0) / 2 / 1000},
		{"p99.9", w.P999, (346030080.0 + 354418688.0) / 2 / 1000},
	} {
		if d := c.got - c.want; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s %v µs, want %v", c.name, c.got, c.want)
		}
	}
	var term bytes.Buffer
	if err := report.Terminal(&term, f.groups(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "write IOPS") || !strings.Contains(term.String(), "863") {
		t.Errorf("terminal:\n%s", term.String())
	}
}

// Ratio tables: with no baseline named, a cell the first target lacks is
// compared against the next target that has it, and the table says which;
// a named baseline without a run in a section leaves a sentence instead.
// (Clients are set by hand here to make a cell the first target lacks.)
func TestFioRatioBasesAndHTML(t *testing.T) {
	f := &fioRuns{t: t}
	clones := fioClones(t)
	randrw := fioFixture(t, "fio333-randrw-8k-json.txt")
	f.add("A", "clone1.json", clones[0])
	f.add("B", "clone2.json", clones[1])
	f.add("B", "clone1.json", clones[0])
	f.add("C", "clone2.json", clones[1])
	f.runs[2].Clients, f.runs[3].Clients = 4, 4
	f.add("A", "randrw.json", randrw)
	f.add("B", "randrw.json", randrw)

	var b bytes.Buffer
	if err := report.Markdown(&b, f.groups(), f.runs, report.Options{}); err != nil {
		t.Fatal(err)
	}
	sw := sectionOf(t, b.String(), "rw=write")
	if h := headerOf(t, sw, "Ratio to the first target"); h != "target,relative to,clients,write IOPS,write MiB/s" {
		t.Errorf("ratio header %s", h)
	}
	if got := strings.Join(rowOf(t, sw, "Ratio to the first target", "C"), ","); got != "C,B,4,1.12×,1.12×" {
		t.Errorf("C row %s", got)
	}
	// The same output on two targets: 1.00×.
	if got := strings.Join(rowOf(t, sectionOf(t, b.String(), "rw=randrw"), "Ratio to A", "B"), ","); got != "B,4,1.00×,1.00×,1.00×,1.00×" {
		t.Errorf("randrw B row %s", got)
	}

	b.Reset()
	if err := report.HTML(&b, f.groups(), f.runs, report.HTMLOptions{Options: report.Options{Baseline: "C"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<th>write IOPS</th>", `<td class="num">28,728</td>`, `<td class="num">15.794</td>`,
		"Ratio to C", `<td>B</td><td class="num">4</td><td class="num">0.89×</td>`,
		"No ratios: C has no completed run with these parameters.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}
}

// fioEnvRun is a completed fio run whose environment holds what the fio adapter
// keeps per direction.
func fioEnvRun(id int64, target string, clients int, dirs map[string]float64) *result.Run {
	fe := map[string]any{}
	for d, iops := range dirs {
		fe[d] = map[string]any{"iops": iops, "bw_bytes": iops * 4096, "total_ios": int64(iops * 10),
			"clat_mean_us": 1e6 / iops, "clat_p99_us": 2e6 / iops, "clat_p99.9_us": 3e6 / iops}
	}
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "fio", Kind: "fio",
		Params: map[string]any{"rw": "randrw"}, Clients: clients, Repetition: 1, Status: result.StatusOK,
		Summary: result.Summary{Throughput: 1}, Env: result.EnvironmentFromMap(map[string]any{"fio": fe})}
}

func TestFioRatiosPairCellsWithTheBaseline(t *testing.T) {
	runs := []*result.Run{
		fioEnvRun(1, "a", 1, map[string]float64{"read": 100, "write": 50}),
		fioEnvRun(2, "b", 1, map[string]float64{"read": 300, "write": 25}),
		fioEnvRun(3, "b", 4, map[string]float64{"read": 800}), // a has no 4-client cell
		fioEnvRun(4, "c", 4, map[string]float64{"read": 400, "write": 10}),
	}
	type key struct {
		target  string
		clients int
	}
	index := func(cells []*fioCell) map[key]*fioCell {
		m := map[key]*fioCell{}
		for _, c := range cells {
			m[key{c.Target, c.Clients}] = c
		}
		return m
	}

	// No baseline: each cell against the first target that has it.
	cells := index(fioCells(runs, ""))
	if len(cells) != 4 {
		t.Fatalf("%d fio cells, want 4", len(cells))
	}
	b1, c4 := cells[key{"b", 1}], cells[key{"c", 4}]
	if b1.Base != cells[key{"a", 1}] || b1.IOPSRatio["read"] != 3 || b1.IOPSRatio["write"] != 0.5 || b1.BandwidthRatio["read"] != 3 {
		t.Errorf("b at 1 client: base %v, ratios %v %v", b1.Base.Target, b1.IOPSRatio, b1.BandwidthRatio)
	}
	if c4.Base != cells[key{"b", 4}] || c4.IOPSRatio["read"] != 0.5 || !math.IsNaN(c4.IOPSRatio["write"]) {
		t.Errorf("c at 4 clients: base %v, ratios %v", c4.Base.Target, c4.IOPSRatio)
	}
	if a1 := cells[key{"a", 1}]; a1.Base != a1 {
		t.Errorf("the first target is its own base")
	}
	if io := b1.IO["read"]; io.IOPS != 300 || io.Bandwidth != 300*4096 || io.P99 != 2e6/300 || !io.HasPercentiles {
		t.Errorf("b read %+v", io)
	}

	// Baseline c: only the 4-client cells have one.
	cells = index(fioCells(runs, "c"))
	if cells[key{"a", 1}].Base != nil || cells[key{"b", 1}].Base != nil {
		t.Errorf("1-client cells have no c run, yet a base")
	}
	if b4 := cells[key{"b", 4}]; b4.Base != cells[key{"c", 4}] || b4.IOPSRatio["read"] != 2 {
		t.Errorf("b at 4 clients against c: %v", b4.IOPSRatio)
	}
}

// docs/workloads/fio.md shows the terminal report of the seqwrite fixture's two clones
// imported as disks A and B; the report must still print those bytes.
func TestFioTerminalAsInTheDocs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "workloads", "fio.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```\n-- fio --\n")
	if !ok {
		t.Fatal("docs/workloads/fio.md has no fio report block")
	}
	block, _, _ = strings.Cut(block, "```")
	block = "-- fio --\n" + block

	f := &fioRuns{t: t}
	clones := fioClones(t)
	f.add("A", "clone1.json", clones[0])
	f.add("B", "clone2.json", clones[1])
	var b bytes.Buffer
	if err := report.Terminal(&b, f.groups(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), block) {
		t.Errorf("the terminal report lacks the block of docs/workloads/fio.md:\n%s\ngot:\n%s", block, b.String())
	}
}
