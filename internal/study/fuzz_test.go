package study

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Any bytes given as a study file give a study or an error, never a panic;
// a study that parses also plans (bounded: the fuzzer's numbers could ask for
// billions of cells, which Plan refuses or the test skips).
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../../examples/*.toml")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("[[target]]\nname = \"a\"\nurl = \"sqlite:///tmp/x.db\"\n\n[[workload]]\nkind = \"tpcb\"\nclients = [1, 4]\nduration = \"10s\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		s, err := Parse("fuzz.toml", data, cat)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		cells, err := s.Plan(cat)
		if err != nil || len(cells) > 10000 {
			return
		}
		WritePlan(io.Discard, s, cells, nil)
		_ = s.estimate(cells, nil)
	})
}
