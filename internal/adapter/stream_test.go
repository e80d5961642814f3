package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// longPgbenchOutput is a pgbench output with a progress line per second
// for seconds seconds: larger than detectPrefix from a few thousand on.
func longPgbenchOutput(seconds int) string {
	var b strings.Builder
	b.WriteString("pgbench (15.18 (Debian 15.18-0+deb12u1))\nstarting vacuum...end.\n")
	var total int64
	for i := 1; i <= seconds; i++ {
		tps := 4000 + i%1000
		total += int64(tps)
		fmt.Fprintf(&b, "progress: %d.0 s, %d.0 tps, lat 0.719 ms stddev 1.033, 0 failed\n", i, tps)
	}
	fmt.Fprintf(&b, `transaction type: <builtin: select only>
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
`, seconds, total, float64(total)/float64(seconds))
	return b.String()
}

// A pgbench output larger than detectPrefix is streamed from its file,
// past maxOutput too: its File holds only the prefix, and parsing it gives
// what parsing its whole text gives, runs or error (cut, concatenated,
// damaged), and the same content hash.
func TestImportStreamsPgbenchOutput(t *testing.T) {
	long := longPgbenchOutput(20_000) // some 1.3 MB
	defer func(m int64) { maxOutput = m }(maxOutput)
	maxOutput = 1 << 20
	dir := t.TempDir()
	for _, c := range []struct{ name, text, err string }{
		{"whole", long, ""},
		{"cut", long[:len(long)-20], "ends without a line break: the output is truncated"},
		{"two outputs", long + long, "20016: unexpected line in pgbench output"},
		{"two summaries", long + long[strings.Index(long, "transaction type:"):], "20016: a second pgbench output starts here (the first at line 20003)"},
		{"damaged", strings.Replace(long, "progress: 7000.0 s, 4000.0 tps", "progress: 7000.0 s, x tps", 1), "unreadable pgbench progress line"},
		{"no summary", long[:strings.Index(long, "transaction type:")], "no \"transaction type\" line"},
	} {
		path := filepath.Join(dir, c.name+".txt")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !f.streamed() || len(f.Text) != detectPrefix {
			t.Fatalf("%s: streamed %v, %d bytes in memory; want streamed with the prefix only", c.name, f.streamed(), len(f.Text))
		}
		in := Input{Main: f}
		_, runs, err := ParseInput(in)
		_, want, wantErr := parse(path, c.text)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: streamed err = %v\nwhole-text err = %v", c.name, err, wantErr)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(runs, want) {
			t.Errorf("%s: the streamed run differs from the run of the whole text", c.name)
		}
		eq(t, "series", len(runs[0].Series), 20_000)
		got, err := in.Hash()
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := Input{Main: File{Name: path, Text: c.text}}.Hash()
		eq(t, "hash", got, whole)
	}
}

// Lines streamed from a reader are the lines of the text split whole: the
// same parts (carriage returns split lines too), the same line numbers, and
// the same line named when something is missing at the end.
func TestStreamLinesAsSplit(t *testing.T) {
	for _, text := range []string{"", "\n", "a", "a\n", "a\n\n\n", "a\r\nb\r\n", "a\rb\r", "\n\nx\n \n\t\n", "x\r\n\r\n", "a\n\rb"} {
		whole, streamed := newLines("f", text), streamLines("f", strings.NewReader(text))
		for {
			w, wok := whole.next()
			s, sok := streamed.next()
			if w != s || wok != sok || whole.line() != streamed.line() {
				t.Fatalf("%q: whole %q %v line %d, streamed %q %v line %d", text, w, wok, whole.line(), s, sok, streamed.line())
			}
			if !wok {
				break
			}
		}
		eq(t, fmt.Sprintf("%q: missing", text), streamed.missing("x").Error(), whole.missing("x").Error())
	}
}

// Every tool whose parser reads its output line by line streams it: its
// ParseReader reads each sample output as Parse reads the whole text, runs
// or error, damaged and cut copies too.
func TestLineParsersStreamAsTheyParseWholeTexts(t *testing.T) {
	samples := map[string][]string{
		"pgbench":         nil,
		"sysbench":        {"sysbench/*.txt"},
		"mysqlslap":       {"mysqlslap/*.txt"},
		"redis-benchmark": {"redis-benchmark/*.txt"},
		"hammerdb":        {"hammerdb/*/*.out"},
	}
	for _, tool := range Tools() {
		if tool.ParseReader == nil {
			continue
		}
		patterns, ok := samples[tool.Name]
		if !ok {
			t.Errorf("%s streams its output but has no samples here", tool.Name)
		}
		for _, pattern := range patterns {
			files, _ := filepath.Glob(filepath.Join("testdata", pattern))
			if len(files) == 0 {
				t.Fatalf("%s: no sample %s", tool.Name, pattern)
			}
			for _, file := range files {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				text := string(b)
				for what, variant := range map[string]string{
					"whole":   text,
					"cut":     text[:len(text)*2/3],
					"damaged": strings.Replace(text, "\n", "\n#?!\n", 3),
				} {
					want, wantErr := tool.Parse(file, variant)
					got, err := tool.ParseReader(file, strings.NewReader(variant))
					if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
						t.Errorf("%s %s: streamed gives %d runs, %v; whole text %d runs, %v", file, what, len(got), err, len(want), wantErr)
					}
				}
			}
		}
	}
}

// A sysbench output with a report line per second, larger than maxOutput,
// is streamed from its file and read whole, not refused.
func TestImportStreamsLongSysbenchOutput(t *testing.T) {
	b, err := os.ReadFile("testdata/sysbench/sb1-oltp-read-write-interval.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	first := strings.Index(text, "[ 1s ]")
	summary := strings.Index(text, "SQL statistics:")
	var long strings.Builder
	long.WriteString(text[:first])
	const seconds = 20_000
	for i := 1; i <= seconds; i++ {
		fmt.Fprintf(&long, "[ %ds ] thds: 4 tps: %d.48 qps: 2426.44 (r/w/o: 1699.60/481.90/244.93) lat (ms,95%%): 45.79 err/s: 0.00 reconn/s: 0.00\n", i, 100+i%50)
	}
	long.WriteString(text[summary:])
	defer func(m int64) { maxOutput = m }(maxOutput)
	maxOutput = 1 << 20
	if long.Len() <= int(maxOutput) {
		t.Fatalf("test setup: %d bytes, not past maxOutput", long.Len())
	}
	path := filepath.Join(t.TempDir(), "sysbench.txt")
	if err := os.WriteFile(path, []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !f.streamed() || len(f.Text) != detectPrefix {
		t.Fatalf("streamed %v, %d bytes in memory; want streamed with the prefix only", f.streamed(), len(f.Text))
	}
	_, runs, err := ParseInput(Input{Main: f})
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := parse(path, long.String())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(runs, want) {
		t.Errorf("the streamed run differs from the run of the whole text")
	}
	eq(t, "series", len(runs[0].Series), seconds)
}
