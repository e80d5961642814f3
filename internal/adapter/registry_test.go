package adapter

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/kvparams"
)

// TestDetectionOrderIsUnchanged keeps the order import tries the tools'
// detectors in: it was the tools slice's before each tool declared its
// DetectOrder, and a detector claims the first match (strict formats first).
func TestDetectionOrderIsUnchanged(t *testing.T) {
	want := []string{"pgbench", "sysbench", "fio", "redis-benchmark", "ycsb", "mysqlslap",
		"memtier_benchmark", "go-tpc", "hammerdb", "opensearch-benchmark"}
	var got []string
	for _, tl := range Tools() {
		got = append(got, tl.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("detection order %v, want %v", got, want)
	}
}

// TestOutputsAreClaimedByTheirToolAlone runs every tool's detector on every
// output in testdata/<tool>/: an output some detector claims is claimed by
// its own tool's only, so detection order decides no real output, and every
// tool has outputs there.
func TestOutputsAreClaimedByTheirToolAlone(t *testing.T) {
	claimed := map[string]int{}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		if logOf(path, text) != nil {
			return nil
		}
		var by []string
		for _, tl := range Tools() {
			if tl.Detect(head(text, detectPrefix)) {
				by = append(by, tl.Name)
			}
		}
		own := strings.Split(filepath.ToSlash(path), "/")[1]
		if len(by) > 0 && (len(by) > 1 || by[0] != own) {
			t.Errorf("%s, an output of %s, is claimed by %v", path, own, by)
		}
		if len(by) > 0 {
			claimed[own]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range Tools() {
		if claimed[tl.Name] == 0 {
			t.Errorf("no output in testdata/%s/ is claimed by %s's detector", tl.Name, tl.Name)
		}
	}
}

// TestRegisterRefuses checks that Register refuses, by panicking at
// start-up, a tool that would be ambiguous beside the registered ones or
// that import could not list.
func TestRegisterRefuses(t *testing.T) {
	KeepTools(t)
	valid := func() Tool {
		return Tool{Name: "refused-tool", Kind: "refused-kind", DetectOrder: 1 << 20, Formats: "refused-tool output",
			Detect: func(string) bool { return false }, Parse: parseMysqlslap}
	}
	for _, c := range []struct {
		what   string
		change func(*Tool)
		want   string
	}{
		{"no name", func(t *Tool) { t.Name = "" }, "without a Name"},
		{"no detector", func(t *Tool) { t.Detect = nil }, "has no Detect"},
		{"no formats", func(t *Tool) { t.Formats = "" }, "lacks Parse or Formats"},
		{"a name registered", func(t *Tool) { t.Name = "pgbench" }, "pgbench registered twice"},
		{"a place in detection order taken", func(t *Tool) { t.DetectOrder = pgbenchTool.DetectOrder }, "same DetectOrder"},
		{"a kind's parameters declared twice", func(t *Tool) { t.Kind, t.KindParams = "kv", kvparams.Specs() }, "both declare the parameters of kind kv"},
		{"another kind's information", func(t *Tool) { t.KindInfo = &kinds.Info{Kind: "fio"} }, `declares kind information for "fio"`},
	} {
		tool := valid()
		c.change(&tool)
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, c.want) {
					t.Errorf("%s: Register panicked with %v, want %q", c.what, r, c.want)
				}
			}()
			Register(tool)
		}()
	}
	if _, ok := Lookup("refused-tool"); ok {
		t.Error("a refused tool was registered")
	}
}

// TestRegisterPassesKindsOn checks that the kinds only tools produce are
// registered with internal/kinds from their tools' KindInfo, under the
// tools' kind, which reports read them from.
func TestRegisterPassesKindsOn(t *testing.T) {
	n := 0
	for _, tl := range Tools() {
		if tl.KindInfo == nil {
			continue
		}
		n++
		info, ok := kinds.Lookup(tl.Kind)
		if !ok || info.Kind != tl.Kind || info.Headline.Name != tl.KindInfo.Headline.Name || (info.Sections == nil) != (tl.KindInfo.Sections == nil) {
			t.Errorf("%s: kind %s registered as %+v, declared %+v", tl.Name, tl.Kind, info, *tl.KindInfo)
		}
	}
	if n < 2 {
		t.Errorf("%d tools declare their kind's information, want fio and mysqlslap at least", n)
	}
}
