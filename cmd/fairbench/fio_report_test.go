package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// mdRow returns the cells of the first Markdown table row starting with
// "| first |" after the line containing caption.
func mdRow(t *testing.T, md, caption, first string) string {
	t.Helper()
	i := strings.Index(md, caption)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", caption, md)
	}
	for _, l := range strings.Split(md[i:], "\n") {
		if strings.HasPrefix(l, "| "+first+" |") {
			return l
		}
		if strings.HasPrefix(l, "## ") {
			break
		}
	}
	t.Fatalf("no row %q after %q in:\n%s", first, caption, md[i:])
	return ""
}

// fio outputs imported as two disks: the report shows IOPS, bandwidth and
// latency per direction as fio printed them, and the ratios between the disks.
// Disk A: the randrw fixture and clone 1 of the seqwrite fixture; disk B:
// clone 2 (the seqwrite fixture reports its numjobs=2 clones apart: two real
// measurements with the same parameters).
func TestImportFioThenReportTables(t *testing.T) {
	dir := t.TempDir()
	seqwrite, err := os.ReadFile(fixtures(t, "fio", "fio333-seqwrite-logs", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	clones := testenv.FioJobs(t, string(seqwrite))
	for i, c := range clones {
		if err := os.WriteFile(filepath.Join(dir, []string{"clone1.json", "clone2.json"}[i]), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"--target", "A", fixtures(t, "fio", "fio333-randrw-8k-json.txt"), "clone1.json"},
		{"--target", "B", "clone2.json"},
	} {
		if o := fairbench(t, dir, append([]string{"import", "--study", "disks"}, args...)...); o.code != 0 {
			t.Fatalf("import %v: %s", args, o.stderr)
		}
	}

	o := fairbench(t, dir, "report", "--format", "md")
	if o.code != 0 {
		t.Fatalf("report: %s", o.stderr)
	}
	md := o.stdout
	randrw := md[strings.Index(md, "## fio bs=8k"):]
	// randrw read: iops 28728.029294, bw_bytes 235340015, clat mean
	// 3466144.232332 ns, p99 15794176 ns, p99.9 28180480 ns; write: iops
	// 7296.271638, bw_bytes 59771057, clat mean 3748567.607218 ns, p99
	// 17956864 ns, p99.9 28442624 ns.
	if got := mdRow(t, randrw, "IOPS and bandwidth", "A"); got != "| A | 4 | 1 | 28,728 | 7,296 | 224.4 | 57.0 |" {
		t.Errorf("randrw IOPS row %q", got)
	}
	if got := mdRow(t, randrw, "Completion latency", "A"); got != "| A | 4 | 3.466 | 6.783 | 15.794 | 28.180 | 3.749 | 7.373 | 17.957 | 28.443 |" {
		t.Errorf("randrw latency row %q", got)
	}
	// seqwrite: write iops 814.79014 and 911.19947, bw_bytes 854369385 and
	// 955461895; B / A = 1.118 for both.
	seq := md[strings.Index(md, "## fio bs=1M"):]
	if got := mdRow(t, seq, "IOPS and bandwidth", "B"); got != "| B | 2 | 1 | 911 | 911.2 |" {
		t.Errorf("seqwrite B row %q", got)
	}
	if got := mdRow(t, seq, "Ratio to A", "B"); got != "| B | 2 | 1.12× | 1.12× |" {
		t.Errorf("ratio row %q", got)
	}

	o = fairbench(t, dir, "report", "--baseline", "B")
	if o.code != 0 {
		t.Fatalf("report --baseline B: %s", o.stderr)
	}
	i := strings.Index(o.stdout, "Ratio to B")
	if i < 0 {
		t.Fatalf("no ratio table against B:\n%s", o.stdout)
	}
	if f := strings.Fields(strings.Split(o.stdout[i:], "\n")[2]); strings.Join(f, " ") != "A 2 0.89× 0.89×" {
		t.Errorf("text ratio row %q:\n%s", f, o.stdout[i:])
	}

	assertOneLineError(t, fairbench(t, dir, "report", "--baseline", "C"), `baseline "C" has no runs`)
	assertOneLineError(t, fairbench(t, dir, "report", "--baseline", "B", "--format", "csv"), "--baseline is for --format text, md, html or json")
}
