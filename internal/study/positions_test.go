package study

import (
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyPositions computes line and column from a line table instead of the
// parser's Shape (which rescans the file for every node); both must agree,
// multi-byte characters and inline tables included.
func TestPositionsMatchTheParser(t *testing.T) {
	doc := []byte("# ünïcode comment\n[study]\nname = \"été\"  \n\n[[target]]\nname = \"a\" # ü\nurl = \"sqlite:a.db\"\n" +
		"[[workload]]\nkind = \"tpcb\"\nclients = [1, 2,\n  \"50%\"]\nx = { y = 1, z = [3] }\n")
	var p unstable.Parser
	p.Reset(doc)
	w := walker{lines: lineStarts(doc)}
	var check func(n *unstable.Node)
	checked := 0
	check = func(n *unstable.Node) {
		if n.Raw.Length > 0 {
			s := p.Shape(n.Raw)
			got, _ := w.position(n)
			if got != (pos{s.Start.Line, s.Start.Column}) {
				t.Fatalf("%q at offset %d: line table says %v, the parser %d:%d", n.Data, n.Raw.Offset, got, s.Start.Line, s.Start.Column)
			}
			checked++
		}
		for it := n.Children(); it.Next(); {
			check(it.Node())
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		for it := e.Key(); it.Next(); {
			check(it.Node())
		}
		if e.Kind == unstable.KeyValue {
			check(e.Value())
		}
	}
	if checked < 10 {
		t.Fatalf("only %d nodes checked", checked)
	}
}

func TestLoadRefusesHugeFiles(t *testing.T) {
	path := t.TempDir() + "/huge.toml"
	if err := os.WriteFile(path, make([]byte, maxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, cat)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("err %v: want the file named and the limit", err)
	}
}
