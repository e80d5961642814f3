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

// validate accepts the README's fio target, file:///dir, which run accepts:
// no driver speaks it, the tool does. A bad URL for the tool is still refused.
func TestValidateAcceptsFioFileTarget(t *testing.T) {
	dir := t.TempDir()
	study := func(url string) string {
		file := filepath.Join(dir, "fio.toml")
		if err := os.WriteFile(file, []byte(`[study]
name = "fio"
[[target]]
name = "ssd"
url = "`+url+`" # fio targets are directories

[[workload]]
tool = "fio"
preset = ["randrw", "seqread", "seqwrite"]
size = "4G"
clients = [4]
targets = ["ssd"]
`), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	o := fairbench(t, dir, "validate", study("file://"+dir))
	if o.code != 0 || !strings.Contains(o.stdout, "3 cells") {
		t.Errorf("validate refused the fio file:// target: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "validate", study("postgres://bench@127.0.0.1/bench"))
	if o.code == 0 {
		t.Errorf("validate accepted a postgres:// target for fio:\n%s", o.stdout)
	}
}

// Every fairbench command an example's header tells users to run is one the
// binary knows, with flags it knows (the valkey example once said
// `report --html`). run is left out: it would run the study.
func TestExampleHeaderCommandsParse(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	dir := t.TempDir()
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			for _, part := range strings.Split(strings.TrimLeft(line, "# "), "&&") {
				args := strings.Fields(part)
				if len(args) < 2 || args[0] != "fairbench" || args[1] == "run" {
					continue
				}
				for i, a := range args {
					if strings.HasPrefix(a, "examples/") {
						if args[i], err = filepath.Abs(filepath.Join("../..", a)); err != nil {
							t.Fatal(err)
						}
					}
				}
				checked++
				o := fairbench(t, dir, args[1:]...)
				for _, bad := range []string{"unknown flag", "unknown command", "unknown shorthand"} {
					if strings.Contains(o.stderr, bad) {
						t.Errorf("%s: %q: %s", filepath.Base(f), strings.Join(args, " "), o.stderr)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no command found in the examples' headers")
	}
}
