package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// The text and Markdown reports say how each target was set up: the engine
// and version, TLS as recorded (with its version and cipher where the
// driver gives them, ClickHouse's bare bool, or not recorded), and the
// engine's own cache under its own name.
func TestReportsShowEachTargetsTLSAndCache(t *testing.T) {
	run := func(id int64, target string, db map[string]any) *result.Run {
		return setupRun(id, target, map[string]any{"database": db})
	}
	runs := []*result.Run{
		run(1, "tls", map[string]any{"engine": "postgresql", "server_version": "17.2", "cache_bytes": int64(128 << 20), "cache_setting": "shared_buffers",
			"tls": map[string]any{"enabled": true, "version": "TLS 1.3", "cipher": "TLS_AES_128_GCM_SHA256"}}),
		run(2, "plain", map[string]any{"engine": "postgresql", "server_version": "17.2", "tls": map[string]any{"enabled": false}}),
		run(3, "bare", map[string]any{"engine": "clickhouse", "version": "18.16.1", "tls": true}),
		run(4, "unknown", map[string]any{"engine": "postgresql", "server_version": "17.2"}),
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var txt, md bytes.Buffer
	if err := Terminal(&txt, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{
		{"tls", "postgresql", "17.2", "TLS 1.3 TLS_AES_128_GCM_SHA256", "shared_buffers 128 MiB"},
		{"plain", "postgresql", "17.2", "off"},
		{"bare", "clickhouse", "18.16.1", "on"},
		{"unknown", "postgresql", "17.2", "not recorded"},
	} {
		if !strings.Contains(md.String(), "| "+strings.Join(want, " | ")+" |") {
			t.Errorf("Markdown lacks the row %q:\n%s", want, md.String())
		}
		line := ""
		for _, l := range strings.Split(txt.String(), "\n") {
			if strings.HasPrefix(l, want[0]+" ") && strings.Contains(l, want[1]) {
				line = l
			}
		}
		if strings.Join(strings.Fields(line), " ") != strings.Join(strings.Fields(strings.Join(want, " ")), " ") {
			t.Errorf("text row of %s: %q, want %q", want[0], line, want)
		}
	}
}

// Where one target's connections went through a connection pooler, the
// table gains a column naming it, and every other target reads "none found".
func TestReportsShowAConnectionPooler(t *testing.T) {
	run := func(id int64, target string, db map[string]any) *result.Run {
		return setupRun(id, target, map[string]any{"database": db})
	}
	runs := []*result.Run{
		run(1, "direct", map[string]any{"engine": "postgresql", "server_version": "15.18", "tls": map[string]any{"enabled": false}}),
		run(2, "bounced", map[string]any{"engine": "postgresql", "server_version": "15.18", "tls": map[string]any{"enabled": false},
			"pooler": map[string]any{"name": "PgBouncer", "version": "1.18.0", "evidence": "SHOW VERSION on the console"}}),
		run(3, "unnamed", map[string]any{"engine": "postgresql", "server_version": "15.18", "tls": map[string]any{"enabled": false},
			"pooler": map[string]any{"evidence": "pids differ"}}),
		run(4, "unknown", nil),
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var txt, md bytes.Buffer
	if err := Terminal(&txt, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| target | engine | version | TLS | cache | pooler |",
		"| direct | postgresql | 15.18 | off |  | none found |",
		"| bounced | postgresql | 15.18 | off |  | PgBouncer 1.18.0 |",
		"| unnamed | postgresql | 15.18 | off |  | unidentified pooler or proxy |",
		"| unknown | not recorded |  |  |  |  |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(txt.String(), "PgBouncer 1.18.0") || !strings.Contains(txt.String(), "the connection pooler the client went through") {
		t.Errorf("text report does not name the pooler:\n%s", txt.String())
	}
}

// The client host's OS settings that shape a measurement (issue 38: the
// articles print them beside kernel and virtualisation) are listed per
// target; a swappiness of 0 is a value, not a blank.
func TestReportsShowEachClientHostsTuning(t *testing.T) {
	run := func(id int64, target string, host map[string]any) *result.Run {
		return setupRun(id, target, map[string]any{"host": host})
	}
	runs := []*result.Run{
		run(1, "vm", map[string]any{"kernel": "6.8.0", "virtualisation": "kvm", "cpu_governor": "performance",
			"transparent_hugepages": "madvise", "swappiness": int64(60), "numa_nodes": int64(2)}),
		run(2, "k8s", map[string]any{"kernel": "6.1.0", "virtualisation": "container (containerd)", "transparent_hugepages": "always", "swappiness": int64(0)}),
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| vm | 6.8.0 | kvm | performance | madvise | 60 | 2 |",
		"| k8s | 6.1.0 | container (containerd) |  | always | 0 |  |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// setupRun is a completed run of one target whose environment is env.
func setupRun(id int64, target string, env map[string]any) *result.Run {
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "w", Kind: "w", Clients: 1, Repetition: 1,
		Status: result.StatusOK, Summary: result.Summary{Transactions: 10, Throughput: 10},
		Env: result.EnvironmentFromMap(env)}
}
