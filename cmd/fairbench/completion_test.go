package main

import (
	"slices"
	"strings"
	"testing"
)

// complete runs cobra's completion request as the shell scripts do and
// returns the words offered, descriptions cut, and the directive line.
func complete(t *testing.T, args ...string) (words []string, directive string) {
	t.Helper()
	o := fairbench(t, t.TempDir(), append([]string{"__complete"}, args...)...)
	if o.code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, o.code, o.stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		if strings.HasPrefix(l, ":") {
			directive = l
			continue
		}
		word, _, _ := strings.Cut(l, "\t")
		words = append(words, word)
	}
	return words, directive
}

// Completion offers the workload kinds for --workload, the flags of the
// workload the command line names (not the default one's), a parameter
// flag's values, and study files for run (issue 40 item 10).
func TestCompletionKnowsTheChosenWorkload(t *testing.T) {
	if o := fairbench(t, t.TempDir(), "completion", "bash"); o.code != 0 || !strings.Contains(o.stdout, "__complete") {
		t.Errorf("completion bash: exit %d: %s", o.code, o.stderr)
	}
	kinds, _ := complete(t, "run", "--workload", "")
	for _, k := range []string{"tpcb", "ycsb", "kv", "oltp"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("--workload completes to %q, without %s", kinds, k)
		}
	}
	if got, _ := complete(t, "load", "--workload=yc"); !slices.Equal(got, []string{"--workload=ycsb"}) {
		t.Errorf("--workload=yc completes to %q", got)
	}
	tpcb, _ := complete(t, "run", "--workload", "tpcb", "--")
	ycsb, _ := complete(t, "run", "--target", "sqlite:x.db", "--workload", "ycsb", "--")
	for _, c := range []struct {
		words      []string
		has, lacks string
	}{{tpcb, "--scale", "--property"}, {ycsb, "--property", "--scale"}, {ycsb, "--json", ""}} {
		if !slices.Contains(c.words, c.has) || (c.lacks != "" && slices.Contains(c.words, c.lacks)) {
			t.Errorf("flags offered %q: want %s and not %s", c.words, c.has, c.lacks)
		}
	}
	if oltp, _ := complete(t, "load", "--workload", "oltp", "--ta"); !slices.Contains(oltp, "--tables") || !slices.Contains(oltp, "--table-size") {
		t.Errorf("load --workload oltp --ta completes to %q", oltp)
	}
	if modes, _ := complete(t, "run", "--workload", "tpcb", "--mode", "s"); !slices.Equal(modes, []string{"select-only", "simple-update"}) {
		t.Errorf("tpcb --mode s completes to %q", modes)
	}
	if files, directive := complete(t, "run", ""); !slices.Equal(files, []string{"toml"}) || directive != ":8" {
		t.Errorf("run's argument completes to %q %s, want study files (.toml, filter directive :8)", files, directive)
	}
}
