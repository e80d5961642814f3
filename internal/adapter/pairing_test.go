package adapter

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/report"
)

// mysqlslap with --engine (as a study cell runs it) prints "Running for
// engine innodb" without a colon; the parser read only the colon form.
func TestParseMysqlslapWithEngine(t *testing.T) {
	text, err := os.ReadFile("testdata/mysqlslap/mysqlslap-engine.txt")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := parseMysqlslap("mysqlslap-engine.txt", string(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Params["engine"] != "innodb" || runs[0].Clients != 2 || runs[0].Summary.Transactions != 200 {
		t.Fatalf("runs %+v", runs)
	}
	if m := toolFacts(runs[0], "mysqlslap"); m["avg_seconds"] != 0.499 {
		t.Errorf("avg seconds %v, want 0.499 as printed", m["avg_seconds"])
	}
}

// fio's disk_util (the device's busy share) is shown per cell and device, as
// disk studies print it beside IOPS and latency.
func TestFioReportShowsDeviceUtilisation(t *testing.T) {
	f := &fioRuns{t: t}
	f.add("A", "randrw.json", fioFixture(t, "fio333-randrw-8k-json.txt"))
	f.add("B", "seqread.json", fioFixture(t, "fio333-seqread-1m-jsonplus.txt"))
	var b bytes.Buffer
	if err := report.Markdown(&b, f.groups(), f.runs, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// disk_util: vda 91.424667 in the randrw output, 92.643752 in the seqread one.
	for section, want := range map[string]string{"rw=randrw": "A,4,vda,91.4", "rw=read": "B,1,vda,92.6"} {
		sec := sectionOf(t, md, section)
		if got := strings.Join(rowOf(t, sec, "Device utilisation", want[:1]), ","); got != want {
			t.Errorf("%s utilisation row %s, want %s", section, got, want)
		}
	}
}
