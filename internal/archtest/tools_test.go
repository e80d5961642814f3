package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/adapter"
)

// TestOneRegistrationPerTool keeps a tool's registration in one place, as
// workload.Register keeps a workload's: each tool is registered by one
// adapter.Register(Tool{Name: "…", …}), declaring all the tool can do, in an
// init function of internal/adapter that registers nothing else; no other
// package registers a tool, and internal/adapter registers a tool's kind
// with internal/kinds only inside Register, from what the Tool declares.
func TestOneRegistrationPerTool(t *testing.T) {
	const adapterPath = module + "/internal/adapter"
	pkgs := list(t, module+"/...")
	var paths []string
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	fset := token.NewFileSet()
	registered := map[string]int{}
	for _, path := range paths {
		p := pkgs[path]
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			where := func(n ast.Node) string {
				return strings.TrimPrefix(path, module+"/") + "/" + name + ":" + strconv.Itoa(fset.Position(n.Pos()).Line)
			}
			if path != adapterPath {
				if local := importedAs(f, adapterPath); local != "" {
					for _, call := range calls(f, local, "Register") {
						t.Errorf("%s: calls adapter.Register: a tool registers from its own file in internal/adapter", where(call))
					}
				}
				continue
			}
			kindsLocal := importedAs(f, module+"/internal/kinds")
			for _, d := range f.Decls {
				fd, isFunc := d.(*ast.FuncDecl)
				inInit := isFunc && fd.Recv == nil && fd.Name.Name == "init"
				inRegister := isFunc && fd.Recv == nil && fd.Name.Name == "Register"
				regs := calls(d, "", "Register")
				if len(regs) > 0 && !inInit {
					t.Errorf("%s: calls Register outside an init function: register each tool from its file's init", where(regs[0]))
				}
				if len(regs) > 1 {
					t.Errorf("%s: one function registers %d tools: one init per tool", where(regs[1]), len(regs))
				}
				for _, call := range regs {
					name, ok := registeredName(call)
					if !ok {
						t.Errorf("%s: Register's argument is not a Tool{Name: \"…\", …} literal with its name a string: this check cannot tell which tool it registers", where(call))
						continue
					}
					registered[name]++
				}
				if kindsLocal != "" && !inRegister {
					for _, call := range calls(d, kindsLocal, "Register") {
						t.Errorf("%s: calls kinds.Register: declare a tool's kind in its Tool's KindInfo, which adapter.Register registers", where(call))
					}
				}
			}
		}
	}
	tools := adapter.Tools()
	if len(tools) < 10 {
		t.Fatalf("only %d tools registered", len(tools))
	}
	known := map[string]bool{}
	for _, tl := range tools {
		known[tl.Name] = true
		if n := registered[tl.Name]; n != 1 {
			t.Errorf("tool %s: %d calls of Register with its name, want 1", tl.Name, n)
		}
	}
	for name := range registered {
		if !known[name] {
			t.Errorf("Register(Tool{Name: %q, …}) in internal/adapter, but no such tool is registered", name)
		}
	}
}

// importedAs is the name file f imports the package path as; "" when it does
// not import it.
func importedAs(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if imp.Path.Value == strconv.Quote(path) {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

// calls are the calls of fn in n: of pkg.fn, or of the package's own fn when
// pkg is "".
func calls(n ast.Node, pkg, fn string) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch f := call.Fun.(type) {
		case *ast.Ident:
			if pkg == "" && f.Name == fn {
				out = append(out, call)
			}
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && pkg != "" && x.Name == pkg && f.Sel.Name == fn {
				out = append(out, call)
			}
		}
		return true
	})
	return out
}

// registeredName is the Name of the Tool literal a Register call passes.
func registeredName(call *ast.CallExpr) (string, bool) {
	if len(call.Args) != 1 {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	if typ, ok := lit.Type.(*ast.Ident); !ok || typ.Name != "Tool" {
		return "", false
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if key, ok := kv.Key.(*ast.Ident); !ok || key.Name != "Name" {
			continue
		}
		if s, ok := kv.Value.(*ast.BasicLit); ok && s.Kind == token.STRING {
			name, err := strconv.Unquote(s.Value)
			return name, err == nil
		}
	}
	return "", false
}
