package adapter

import (
	"strings"
	"testing"
)

// A flag a tool declares reaches the run's parameters, checked against the
// parameter's domain; a flag of another tool is refused, naming its tools and
// the flags this tool takes.
func TestImportParams(t *testing.T) {
	p, err := ImportParams(pgbenchTool, map[string]string{"scale": "10", "protocol": "prepared"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "scale", p["scale"], any(int64(10)))
	eq(t, "query_mode", p["query_mode"], any("prepared"))
	p, err = ImportParams(memtierTool, map[string]string{"pipeline": "16", "data-size": "64"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pipeline", p["pipeline"], any(int64(16)))
	eq(t, "data_size", p["data_size"], any(int64(64)))

	for _, bad := range []struct {
		tool  *Tool
		given map[string]string
		want  []string
	}{
		{memtierTool, map[string]string{"scale": "10"},
			[]string{"--scale is not a flag of memtier_benchmark outputs", "(it is for pgbench outputs)", "memtier_benchmark outputs take -P/--pipeline, -d/--data-size"}},
		{pgbenchTool, map[string]string{"pipeline": "2"}, []string{"--pipeline is not a flag of pgbench outputs (it is for redis-benchmark and memtier_benchmark outputs)"}},
		{fioTool, map[string]string{"mode": "read_write"}, []string{"--mode is not a flag of fio outputs", "fio outputs take no import flag", "--set"}},
		{sysbenchTool, map[string]string{"mode": "read_writ"}, []string{"--mode: mode = \"read_writ\" is not one of"}},
		{pgbenchTool, map[string]string{"scale": "0"}, []string{"-s/--scale: scale must be at least 1"}},
	} {
		_, err := ImportParams(bad.tool, bad.given)
		for _, w := range bad.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: err = %v, want %q", bad.tool.Name, bad.given, err, w)
			}
		}
	}
}

// Tools that declare one flag name declare it alike, and no two names share
// a shorthand: import defines each once.
func TestImportFlagsAgree(t *testing.T) {
	byName := map[string]ImportFlag{}
	byShort := map[string]string{}
	for _, tool := range Tools() {
		for _, f := range tool.ImportFlags {
			if g, ok := byName[f.Name]; ok && g.Shorthand != f.Shorthand {
				t.Errorf("--%s: shorthand %q in one tool, %q in %s", f.Name, g.Shorthand, f.Shorthand, tool.Name)
			}
			byName[f.Name] = f
			if f.Shorthand == "" {
				continue
			}
			if n, ok := byShort[f.Shorthand]; ok && n != f.Name {
				t.Errorf("-%s is both --%s and --%s (%s)", f.Shorthand, n, f.Name, tool.Name)
			}
			byShort[f.Shorthand] = f.Name
		}
	}
	flags := ImportFlags()
	if len(flags) != len(byName) {
		t.Fatalf("ImportFlags: %d flags, the tools declare %d names", len(flags), len(byName))
	}
	for _, f := range flags {
		if f.Name == "mode" && (!strings.Contains(f.Usage, "pgbench: ") || !strings.Contains(f.Usage, "sysbench: ")) {
			t.Errorf("--mode's help does not name both its tools: %s", f.Usage)
		}
	}
}
