package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env --study shows a declared price as written: 0.0151 an hour is not 0.02.
func TestEnvStudyKeepsASmallPrice(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(file, []byte(`[study]
name = "price"
[[target]]
name = "small"
url = "postgres://bench@10.0.0.1/bench"
price_per_hour = 0.0151
[[workload]]
kind = "tpcb"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "env", "--study", file)
	if o.code != 0 {
		t.Fatalf("env --study: exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "price_per_hour: 0.0151") {
		t.Errorf("price not shown as declared:\n%s", o.stdout)
	}
}
