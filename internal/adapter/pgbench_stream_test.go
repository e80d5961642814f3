package adapter

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// pgbenchProgressReader yields n pgbench progress lines, one a second at
// tps(i) transactions per second, made as they are read: the output is never
// whole in memory.
type pgbenchProgressReader struct {
	i, n int
	tps  func(i int) int
	line []byte
}

func (g *pgbenchProgressReader) Read(b []byte) (int, error) {
	if len(g.line) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		g.i++
		g.line = fmt.Appendf(nil, "progress: %d.0 s, %d.0 tps, lat 0.719 ms stddev 1.033, %d failed\n", g.i, g.tps(g.i), g.i%3)
	}
	n := copy(b, g.line)
	g.line = g.line[n:]
	return n, nil
}

// A long pgbench output (a progress line per second of a multi-day run) is
// read line by line from a reader: every progress line becomes a point of
// the series, and the summary's totals are read after them.
func TestPgbenchStreamsLongOutput(t *testing.T) {
	const seconds = 300_000 // 3.5 days at -P 1; some 21 MB of output
	tps := func(i int) int { return 4000 + i%1000 }
	var total, failures int64
	for i := 1; i <= seconds; i++ {
		total += int64(tps(i))
		failures += int64(i % 3)
	}
	head := "pgbench (15.18 (Debian 15.18-0+deb12u1))\nstarting vacuum...end.\n"
	tail := fmt.Sprintf(`transaction type: <builtin: select only>
scaling factor: 2
query mode: prepared
number of clients: 4
number of threads: 2
maximum number of tries: 1
duration: %d s
number of transactions actually processed: %d
number of failed transactions: 0 (0.000%%)
latency average = 0.631 ms
latency stddev = 0.901 ms
initial connection time = 143.232 ms
tps = %f (without initial connection time)
`, seconds, total, float64(total)/seconds)
	out := io.MultiReader(strings.NewReader(head), &pgbenchProgressReader{n: seconds, tps: tps}, strings.NewReader(tail))
	runs, err := parsePgbenchReader("long.txt", out)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	eq(t, "series points", len(r.Series), seconds)
	// Issue 41: the series is built once at its length from compact points,
	// not grown by appending whole points (which held about twice its size:
	// 1.7 GB to import 3.3 million progress lines).
	eq(t, "series capacity", cap(r.Series), seconds)
	var ops, failed int64
	for _, p := range r.Series {
		ops += p.Ops
		failed += p.Errors
	}
	eq(t, "operations over the series", ops, total)
	eq(t, "failed over the series", failed, failures)
	last := r.Series[seconds-1]
	eq(t, "last second", last.Second, seconds)
	eq(t, "last rate", last.Rate, float64(tps(seconds)))
	eq(t, "transactions", r.Summary.Transactions, total)
	eq(t, "clients", r.Clients, 4)
	eq(t, "mode", r.Params["mode"], any("select-only"))
}

// A line longer than any pgbench prints is refused at its line number, not
// read into memory without bound.
func TestPgbenchStreamRefusesEndlessLine(t *testing.T) {
	out := io.MultiReader(strings.NewReader("pgbench (15.18)\nstarting vacuum...end.\nprogress: 1.0 s, "),
		io.LimitReader(zeros{}, 2*maxLine))
	_, err := parsePgbenchReader("endless.txt", out)
	if err == nil || !strings.Contains(err.Error(), "endless.txt:3: unreadable") {
		t.Fatalf("err = %v, want line 3 refused", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = '0'
	}
	return len(b), nil
}
