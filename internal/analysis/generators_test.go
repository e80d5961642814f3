package analysis

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

func generatorsRun(shares ...map[string]any) *result.Run {
	list := make([]any, len(shares))
	for i, s := range shares {
		list[i] = s
	}
	return &result.Run{ID: 7, Env: result.EnvironmentFromMap(map[string]any{"load_generators": list})}
}

func gen(index int, host string, clients int, tput, cpu float64) map[string]any {
	return map[string]any{"index": int64(index), "host": host, "clients": int64(clients), "throughput": tput, "cpu_percent": cpu, "cpus": int64(4), "clock_offset_ms": 0.2}
}

func onNode(g map[string]any, node string) map[string]any {
	g["node"] = node
	return g
}

func TestGeneratorWarnings(t *testing.T) {
	for _, c := range []struct {
		name string
		run  *result.Run
		want []string // one substring per expected warning, in order
	}{
		{"even and idle", generatorsRun(gen(0, "a", 4, 1000, 30), gen(1, "b", 4, 1050, 31)), nil},
		{"one saturated", generatorsRun(gen(0, "a", 4, 1000, 30), gen(1, "b", 4, 1000, 85)),
			[]string{"generator 1 (b) 85 % of 4 CPUs"}},
		{"uneven per client", generatorsRun(gen(0, "a", 4, 1000, 30), gen(1, "b", 4, 800, 30)),
			[]string{"differ by 22 %"}},
		// 5 clients over 2 generators: 3 and 2 clients, equal per client.
		{"unequal shares, equal per client", generatorsRun(gen(0, "a", 3, 1500, 30), gen(1, "b", 2, 1000, 30)), nil},
		{"one process", &result.Run{ID: 7, Env: result.EnvironmentFromMap(map[string]any{})}, nil},
		{"a skewed clock", generatorsRun(gen(0, "a", 4, 1000, 30), func() map[string]any {
			g := gen(1, "b", 4, 1000, 30)
			g["clock_offset_ms"] = -12.5
			return g
		}()), []string{"generator 1 (b) -12.5 ms"}},
		// Pods have hostnames of their own; the node they ran on tells.
		{"two pods on one node", generatorsRun(onNode(gen(0, "pod-0", 4, 1000, 30), "node-a"), onNode(gen(1, "pod-1", 4, 1000, 30), "node-b"),
			onNode(gen(2, "pod-2", 4, 1000, 30), "node-a")), []string{"shared a node: node-a: generators 0, 2;"}},
		{"one node each", generatorsRun(onNode(gen(0, "pod-0", 4, 1000, 30), "node-a"), onNode(gen(1, "pod-1", 4, 1000, 30), "node-b")), nil},
	} {
		ws := generatorWarnings(c.run, "x")
		if len(ws) != len(c.want) {
			t.Errorf("%s: %d warnings %v, want %d", c.name, len(ws), ws, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(ws[i].Message, w) {
				t.Errorf("%s: warning %q lacks %q", c.name, ws[i].Message, w)
			}
		}
	}
	// An embedded engine's work is the generator's CPU: not a saturation.
	r := generatorsRun(gen(0, "a", 4, 1000, 95), gen(1, "b", 4, 1000, 95))
	inProcess := true
	r.Env.InProcess = &inProcess
	if ws := generatorWarnings(r, "x"); len(ws) != 0 {
		t.Errorf("embedded engine: %v", ws)
	}
}
