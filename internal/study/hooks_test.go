package study

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const hooksDoc = `[study]
before_study = "echo study"
before_cell = "echo cell"
before_run = "psql postgres://bench:Pw-8812x@db/bench -c checkpoint"
after_run = "PGPASSWORD=Pw-8812x pg_dump -s bench > /dev/null"
hook_timeout = "90s"
[[target]]
name = "pg"
url = "sqlite:a"
restart = "systemctl restart postgresql"
drop_caches = true
[[workload]]
kind = "tpcb"
`

// The hook keys parse, validate lists them in their order with their
// secrets removed, and the stored study holds none of those secrets.
func TestHookKeysParseAndValidateListsThem(t *testing.T) {
	s, err := Parse("s.toml", []byte(hooksDoc), cat)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hooks
	if h.BeforeStudy != "echo study" || h.BeforeCell != "echo cell" || !strings.HasPrefix(h.BeforeRun, "psql") ||
		!strings.HasPrefix(h.AfterRun, "PGPASSWORD") || h.Timeout != 90*time.Second {
		t.Errorf("hooks %+v", h)
	}
	if tg := s.Targets[0]; tg.Restart != "systemctl restart postgresql" || !tg.DropCaches || !tg.MakesCold() {
		t.Errorf("target %+v", tg)
	}
	if strings.Contains(string(s.Source), "Pw-8812x") {
		t.Errorf("the stored study holds a hook's password:\n%s", s.Source)
	}
	cells, err := s.Plan(cat)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WritePlan(&b, s, cells, nil)
	out := b.String()
	if strings.Contains(out, "Pw-8812x") {
		t.Errorf("validate shows a hook's password:\n%s", out)
	}
	last := -1
	for _, want := range []string{"commands around runs (sh -c on this host, each at most 1m30s)", "before_study", "before_cell", "before_run",
		"psql postgres://bench:xxxxx@db/bench", "after_run", "PGPASSWORD=xxxxx", "target pg restart", "systemctl restart postgresql",
		"target pg drop_caches", DropCachesCommand} {
		i := strings.Index(out, want)
		if i < 0 || i < last {
			t.Fatalf("validate's plan lacks %q or lists it out of order:\n%s", want, out)
		}
		last = i
	}
}

// Hostile values of the hook keys are refused with the key named.
func TestHookKeysRefuseHostileValues(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`hook_timeout = "0s"`, "hook_timeout must be more than zero"},
		{`hook_timeout = -5`, "hook_timeout"},
		{`hook_timeout = nan`, "hook_timeout"},
		{`hook_timeout = inf`, "hook_timeout"},
		{`hook_timeout = 1e12`, "hook_timeout"},
		{`hook_timeout = "100000h"`, "hook_timeout must be at most 24h0m0s"},
		{`hook_timeout = "soon"`, "hook_timeout"},
		{`before_run = ""`, "before_run is empty"},
		{`before_run = "   "`, "before_run is empty"},
		{`after_run = 3`, "after_run must be a string"},
		{`before_cell = "a\u0000b"`, "NUL"},
	} {
		doc := "[study]\n" + tc.line + "\n[[target]]\nname = \"a\"\nurl = \"sqlite:a\"\n[[workload]]\nkind = \"tpcb\"\n"
		_, err := Parse("s.toml", []byte(doc), cat)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.toml:2") {
			t.Errorf("%s: error %v, want one at s.toml:2 saying %q", tc.line, err, tc.want)
		}
	}
	for _, tc := range []struct{ lines, want string }{
		{"url = \"postgres://db.example:5432/x\"\ndrop_caches = true", "not on this host"},
		{"url = \"sqlite:a\"\ndrop_caches = \"yes\"", "drop_caches must be true or false"},
		{"url = \"sqlite:a\"\nrestart = \"\"", "restart is empty"},
	} {
		doc := "[[target]]\nname = \"a\"\n" + tc.lines + "\n[[workload]]\nkind = \"tpcb\"\n"
		_, err := Parse("s.toml", []byte(doc), cat)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.lines, err, tc.want)
		}
	}
	s := &Study{Targets: []*Target{{Name: "a", URL: "sqlite:a"}}, Workloads: []*Workload{{Kind: "tpcb"}}, Hooks: Hooks{Timeout: -time.Second}}
	if _, err := s.Plan(cat); err == nil || !strings.Contains(err.Error(), "hook_timeout") {
		t.Errorf("a study built in code with a negative hook timeout: %v", err)
	}
}
