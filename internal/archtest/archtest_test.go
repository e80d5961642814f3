// Package archtest checks the import graph and the "knowledge where it
// belongs" rule of DESIGN.md: generic packages name no workload kind and no
// tool. It has test files only.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/workload"
	_ "github.com/fairbench/fairbench/internal/workload/all"
)

const module = "github.com/fairbench/fairbench"

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// list runs `go list -json` on packages of the module (Deps holds every
// package they depend on, directly or not).
func list(t *testing.T, paths ...string) map[string]pkg {
	t.Helper()
	args := append([]string{"list", "-json"}, paths...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", paths, err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

func TestDriverHasNoFastPath(t *testing.T) {
	p := list(t, module+"/internal/driver")[module+"/internal/driver"]
	for _, imp := range p.Imports { // the package itself, not its sub-packages
		for _, banned := range []string{module + "/internal/driver/sockets", module + "/internal/fastpath"} {
			if under(imp, banned) {
				t.Errorf("package internal/driver imports %s: the hand-written fast path is an optional capability in its own package", strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
}

func TestStudyDoesNotImportAdapter(t *testing.T) {
	p := list(t, module+"/internal/study")[module+"/internal/study"]
	for _, dep := range p.Deps {
		if under(dep, module+"/internal/adapter") {
			t.Errorf("internal/study depends on %s: it learns tools through internal/toolcat", strings.TrimPrefix(dep, module+"/"))
		}
	}
}

func TestRunnerImportsNoWorkloadPackage(t *testing.T) {
	p := list(t, module+"/internal/runner")[module+"/internal/runner"]
	for _, dep := range p.Deps {
		if strings.HasPrefix(dep, module+"/internal/workload/") {
			t.Errorf("internal/runner depends on %s: it may know internal/workload only", strings.TrimPrefix(dep, module+"/"))
		}
	}
}

// names are the workload kinds and tool names generic code must not spell.
func names() map[string]bool {
	n := map[string]bool{}
	for _, s := range []string{"pgbench", "sysbench", "fio", "mysqlslap", "ycsb", "redis-benchmark", "memtier_benchmark"} {
		n[s] = true
	}
	for _, k := range workload.Kinds() {
		n[k] = true
	}
	for _, t := range adapter.Tools() {
		n[t.Name] = true
		if t.Kind != "" {
			n[t.Kind] = true
		}
	}
	for _, i := range kinds.All() {
		n[i.Kind] = true
	}
	return n
}

// TestGenericCodeNamesNoKindOrTool fails on a string literal equal to a kind
// or tool name, and on any comparison of a .Kind with a non-empty string
// literal, in the
// non-test files of analysis, report and cmd/fairbench.
func TestGenericCodeNamesNoKindOrTool(t *testing.T) {
	banned := names()
	paths := []string{module + "/internal/analysis", module + "/internal/report", module + "/cmd/fairbench"}
	pkgs := list(t, paths...)
	var found []string
	fset := token.NewFileSet()
	for _, path := range paths {
		p, ok := pkgs[path]
		if !ok {
			t.Fatalf("go list did not return %s", path)
		}
		for _, name := range p.GoFiles {
			file := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(path, module+"/") + "/" + name
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BinaryExpr:
					if x.Op != token.EQL && x.Op != token.NEQ {
						return true
					}
					for _, pair := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
						sel, ok := pair[0].(*ast.SelectorExpr)
						lit, isLit := pair[1].(*ast.BasicLit)
						// Comparing with "" asks whether a kind is set, naming none.
						if ok && sel.Sel.Name == "Kind" && isLit && lit.Kind == token.STRING && lit.Value != `""` {
							found = append(found, fmt.Sprintf("%s:%d: compares .Kind %s %s", rel, fset.Position(x.Pos()).Line, x.Op, lit.Value))
						}
					}
				case *ast.BasicLit:
					if x.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(x.Value)
					if err == nil && banned[s] {
						found = append(found, fmt.Sprintf("%s:%d: string literal %q names a workload kind or tool", rel, fset.Position(x.Pos()).Line, s))
					}
				}
				return true
			})
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
}
