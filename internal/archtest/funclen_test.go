package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a production function or method of the module
// may be, in lines from func to its closing brace. A parser once held every
// section of a tool's output in one 229-line body, and the runner's execute
// ran to 291 lines and a cyclomatic complexity of 55: past this length a
// function does several things, and each of them deserves a name.
const maxFuncLines = 120

// longFuncExceptions are the functions still allowed over maxFuncLines, each
// with why it waits. The list may only shrink: TestFunctionsAreShort fails on
// an entry that is no longer over the cap, or no longer exists, so a function
// brought under it leaves the list in the same change. A key is the
// package's path in the module, a dot and the function's name (Type.Method
// for a method); an init function adds @ and its file.
var longFuncExceptions = map[string]string{}

// noExceptionPackages may have no entry in longFuncExceptions: a cell's
// execution is split into phases and one way of driving clients per file.
var noExceptionPackages = []string{"internal/runner"}

// funcLength is one function declaration of a production file.
type funcLength struct {
	key   string // as in longFuncExceptions
	where string // file:line, relative to the module root
	lines int
}

// TestFunctionsAreShort fails on a production function or method of any
// package of the module longer than maxFuncLines lines that is not in
// longFuncExceptions, and on an exception that is no longer needed; run it
// with -v to see the longest.
func TestFunctionsAreShort(t *testing.T) {
	lengths := moduleFuncLengths(t)
	sort.Slice(lengths, func(i, j int) bool { return lengths[i].lines > lengths[j].lines })
	seen := map[string]bool{}
	for i, l := range lengths {
		seen[l.key] = true
		_, excepted := longFuncExceptions[l.key]
		switch {
		case l.lines > maxFuncLines && !excepted:
			t.Errorf("%s: %s is %d lines, over the cap of %d: give each thing it does its own function (a parser: a table of line matchers per section of the output)", l.where, l.key, l.lines, maxFuncLines)
		case l.lines <= maxFuncLines && excepted:
			t.Errorf("%s: %s is %d lines, within the cap of %d: remove it from longFuncExceptions in internal/archtest/funclen_test.go (the list may only shrink)", l.where, l.key, l.lines, maxFuncLines)
		case i < 5:
			t.Logf("%s: %s: %d lines", l.where, l.key, l.lines)
		}
	}
	for key := range longFuncExceptions {
		if !seen[key] {
			t.Errorf("%s is in longFuncExceptions but no production function has that name: remove it from internal/archtest/funclen_test.go (the list may only shrink)", key)
		}
		for _, p := range noExceptionPackages {
			if strings.HasPrefix(key, p+".") {
				t.Errorf("%s is in longFuncExceptions, but %s may have no function over %d lines: split it into phases, each in the file of its concern", key, p, maxFuncLines)
			}
		}
	}
}

// moduleFuncLengths parses every production file of every package of the
// module, those of other platforms included, and measures each function
// declaration.
func moduleFuncLengths(t *testing.T) []funcLength {
	t.Helper()
	root := moduleRoot(t)
	var lengths []funcLength
	fset := token.NewFileSet()
	for _, p := range list(t, module+"/...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "" {
			rel = "."
		}
		files := append([]string(nil), p.GoFiles...)
		for _, name := range p.IgnoredGoFiles {
			if !strings.HasSuffix(name, "_test.go") {
				files = append(files, name)
			}
		}
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			shown, err := filepath.Rel(root, path)
			if err != nil {
				shown = path
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				start := fset.Position(fd.Pos())
				lengths = append(lengths, funcLength{
					key:   rel + "." + funcName(fd, name),
					where: fmt.Sprintf("%s:%d", filepath.ToSlash(shown), start.Line),
					lines: fset.Position(fd.End()).Line - start.Line + 1,
				})
			}
		}
	}
	return lengths
}

// funcName is Name for a function, Type.Name for a method (pointer receiver
// or not, type parameters dropped), and init@file.go for an init function, of
// which a package may have several.
func funcName(fd *ast.FuncDecl, file string) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		if fd.Name.Name == "init" {
			return "init@" + file
		}
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// moduleRoot is the directory of the module's go.mod, for file names in
// messages relative to it.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env GOMOD: %v (%q)", err, out)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
