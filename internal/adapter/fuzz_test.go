package adapter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTool seeds f with every real output of a tool under testdata/dir and
// checks that any text gives runs or an error, never a panic, and that
// accepted runs hold no value outside its domain.
func fuzzTool(f *testing.F, dir string, tool *Tool) {
	err := filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".cmd") || strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(string(b))
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if _, runs, err := parse("fuzz.txt", text); err == nil {
			for _, r := range runs {
				if err := validRun("fuzz.txt", r); err != nil {
					t.Fatalf("accepted a run out of its domain: %v", err)
				}
			}
		}
		// The tool's own parser, whatever Detect says, and its log reader.
		_, _ = tool.Parse("fuzz.txt", text)
		if tool.IsLog != nil {
			_ = tool.IsLog("fuzz.1.log", text)
		}
	})
}

func FuzzPgbench(f *testing.F)        { fuzzTool(f, "pgbench", pgbenchTool) }
func FuzzSysbench(f *testing.F)       { fuzzTool(f, "sysbench", sysbenchTool) }
func FuzzFio(f *testing.F)            { fuzzTool(f, "fio", fioTool) }
func FuzzRedisBenchmark(f *testing.F) { fuzzTool(f, "redis-benchmark", redisBenchmarkTool) }
func FuzzYCSB(f *testing.F)           { fuzzTool(f, "ycsb", ycsbTool) }
func FuzzMysqlslap(f *testing.F)      { fuzzTool(f, "mysqlslap", mysqlslapTool) }
func FuzzMemtier(f *testing.F)        { fuzzTool(f, "memtier_benchmark", memtierTool) }

// fuzzLogs seeds f with the side logs of a real output (dir/main) and
// attaches any text, as one of those logs, to the runs parsed from it.
func fuzzLogs(f *testing.F, dir, main string) {
	files, err := os.ReadDir(filepath.Join("testdata", dir))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range files {
		if e.Name() == main || strings.HasSuffix(e.Name(), ".cmd") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e.Name(), string(b))
	}
	b, err := os.ReadFile(filepath.Join("testdata", dir, main))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		in, err := Group([]File{{Name: filepath.Join(dir, main), Text: string(b)}, {Name: filepath.Join(dir, filepath.Base(name)), Text: text}})
		if err != nil {
			return
		}
		for _, i := range in {
			_, _, _ = ParseInput(i)
		}
	})
}

func FuzzPgbenchLogs(f *testing.F) { fuzzLogs(f, "pgbench/pg15-log", "summary.txt") }
func FuzzFioLogs(f *testing.F)     { fuzzLogs(f, "fio/fio333-seqwrite-logs", "output.txt") }

func FuzzGoTPC(f *testing.F) { fuzzTool(f, "go-tpc", goTPCTool) }

func FuzzHammerDB(f *testing.F)     { fuzzTool(f, "hammerdb", hammerdbTool) }
func FuzzOSB(f *testing.F)          { fuzzTool(f, "opensearch-benchmark", osbTool) }
func FuzzHammerDBLogs(f *testing.F) { fuzzLogs(f, "hammerdb/pg15-3vu", "pg_run.out") }

// FuzzReadAndIdentity: Read gives any text back whole or refuses it, and a
// run parsed from it is the same run as itself (and SameRun is symmetric
// between it and the seeds' runs), never an error or a panic.
func FuzzReadAndIdentity(f *testing.F) {
	var seeds []*RunIdentity
	for _, dir := range []string{"memtier_benchmark", "opensearch-benchmark"} {
		err := filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".cmd") || strings.HasSuffix(p, "README.md") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.Add(string(b))
			if t, runs, err := parse(p, string(b)); err == nil {
				for _, r := range runs {
					seeds = append(seeds, t.Identity(r))
				}
			}
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, err := Read("fuzz.txt", strings.NewReader(text)); err == nil && got.Text != text {
			t.Fatalf("Read changed the text: %d bytes of %d", len(got.Text), len(text))
		}
		tool, runs, err := parse("fuzz.txt", text)
		if err != nil || tool.Identity == nil {
			return
		}
		for _, r := range runs {
			id := tool.Identity(r)
			if ok, why := SameRun(id, id); !ok && why != "nothing to compare" {
				t.Fatalf("a run is not the same run as itself: %s", why)
			}
			for _, s := range seeds {
				a, _ := SameRun(id, s)
				b, _ := SameRun(s, id)
				if a != b {
					t.Fatalf("SameRun is not symmetric")
				}
			}
		}
	})
}
