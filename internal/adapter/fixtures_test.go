package adapter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readDir loads every fixture file of a directory (not the .cmd files).
func readDir(t *testing.T, dir string) []File {
	t.Helper()
	var files []File
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".cmd") || strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, File{Name: p, Text: string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Every captured fixture parses, with its tool detected from the text alone;
// those under a directory named refused (outputs of runs whose numbers are
// incomplete, such as pgbench runs in which clients aborted) are detected and
// refused with an error.
func TestEveryFixtureParses(t *testing.T) {
	files := readDir(t, "testdata")
	inputs, err := Group(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 15 {
		t.Fatalf("only %d fixtures found", len(inputs))
	}
	for _, in := range inputs {
		tool, runs, err := ParseInput(in)
		// testdata/<tool>/...: the directory names the tool that made it.
		dirs := strings.Split(filepath.ToSlash(in.Main.Name), "/")
		want := dirs[1]
		if slices.Contains(dirs, "refused") {
			if err == nil {
				t.Errorf("%s: accepted (%d runs), want it refused", in.Main.Name, len(runs))
			} else if tool == nil || tool.Name != want {
				t.Errorf("%s: refused, but not as %s output: %v", in.Main.Name, want, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if tool.Name != want {
			t.Errorf("%s: detected as %s", in.Main.Name, tool.Name)
		}
		if len(runs) == 0 {
			t.Errorf("%s: no runs", in.Main.Name)
		}
		if os.Getenv("FB_DUMP") != "" {
			for _, r := range runs {
				r.Ops = nil
				b, _ := json.MarshalIndent(r, "", " ")
				t.Logf("%s (%d logs): %s", in.Main.Name, len(in.Logs), b)
			}
		}
	}
}
