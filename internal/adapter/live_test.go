package adapter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool's live reading of each progress line, as it comes, agrees with the
// series its parser reads from the whole output afterwards: the same
// seconds, rates and failures, on the real outputs of testdata (their
// commands are in testdata/README.md); every other line is not a reading.
func TestLiveLinesAgreeWithTheParsedSeries(t *testing.T) {
	for _, c := range []struct {
		tool *Tool
		file string
	}{
		{pgbenchTool, "pgbench/pg11-tpcb-P-r.txt"},
		{pgbenchTool, "pgbench/pg13-rate-latency-limit.txt"},
		{sysbenchTool, "sysbench/sb1-oltp-read-write-interval.txt"},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			runs, err := c.tool.Parse(c.file, string(b))
			if err != nil || len(runs) != 1 {
				t.Fatalf("parse: %d runs, %v", len(runs), err)
			}
			series := runs[0].Series
			var n int
			for _, line := range strings.Split(string(b), "\n") {
				at, pt, ok := c.tool.Live(line)
				if !ok {
					continue
				}
				if n >= len(series) {
					t.Fatalf("more live readings than the %d points of the parsed series: %q", len(series), line)
				}
				want := series[n]
				if pt.Second != want.Second || pt.Rate != want.Rate || pt.Errors != want.Errors || int(at.Seconds()+0.5) != want.Second {
					t.Errorf("line %q read live as %+v at %s, the parsed series has %+v", line, pt, at, want)
				}
				if want.Mean > 0 && pt.Mean != want.Mean || want.P95 > 0 && pt.P95 != want.P95 {
					t.Errorf("line %q: latency %v/%v live, %v/%v parsed", line, pt.Mean, pt.P95, want.Mean, want.P95)
				}
				n++
			}
			if n == 0 || n != len(series) {
				t.Errorf("%d live readings, the parsed series has %d points", n, len(series))
			}
		})
	}
	if _, _, ok := pgbenchTool.Live("progress: NaN s, 1 tps, lat 1 ms stddev 1"); ok {
		t.Error("a progress line without a finite time was read")
	}
}
