// Package archtest enforces the project's architecture rules as tests, so a
// change that breaks one fails go test with the file and the rule it broke:
//   - the import graph: internal/driver has no fast path, study is passed
//     its catalog of workloads and tools and imports neither, runner knows
//     no workload package (not even sqlwork's data-set markers), report
//     reaches the workloads only through internal/kinds, adapter does not
//     depend on analysis;
//   - one registration per kind: kinds.Register is called by
//     workload.Register (a native workload's one registration) and by the
//     adapters (a kind only a tool produces), nowhere else;
//   - knowledge where it belongs: analysis, report and cmd/fairbench spell no
//     workload kind and no tool name (the workload and adapter packages own
//     them, internal/kinds carries what generic code needs), and
//     cmd/fairbench imports no kind's parameters (params/<kind>params): the
//     workloads and adapters declare the flags that set them;
//   - internal/adhocline, which reads the ad-hoc command line, spells no
//     kind either and knows no cobra, and the runner does not import it;
//   - analysis, report, runner, study, store and result spell no engine, no
//     engine's cache setting and no installation-only setting (each driver
//     registers them with result.RegisterEngine; the store's own SQLite and
//     PostgreSQL backends excepted);
//   - no production function is over maxFuncLines lines outside a list of
//     exceptions that may only shrink, and internal/runner has none
//     (funclen_test.go);
//   - the repository holds no file over 1 MiB outside a testdata/ directory
//     (scripts/test.sh also refuses any tracked ELF binary).
//
// It has test files only.
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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	_ "github.com/fairbench/fairbench/internal/driver/clickhouse"
	_ "github.com/fairbench/fairbench/internal/driver/mongodb"
	_ "github.com/fairbench/fairbench/internal/driver/mysql"
	_ "github.com/fairbench/fairbench/internal/driver/opensearch"
	_ "github.com/fairbench/fairbench/internal/driver/pebble"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
	"github.com/fairbench/fairbench/internal/kinds"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

const module = "github.com/fairbench/fairbench"

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string

	// IgnoredGoFiles holds the files of other platforms (and build tags).
	IgnoredGoFiles []string
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

// forbidDeps fails for every package rel (internal/study) depends on,
// directly or not, that banned names, saying why it may not.
func forbidDeps(t *testing.T, rel string, banned func(dep string) bool, why string) {
	t.Helper()
	p := list(t, module+"/"+rel)[module+"/"+rel]
	for _, dep := range p.Deps {
		if banned(dep) {
			t.Errorf("%s depends on %s: %s", rel, strings.TrimPrefix(dep, module+"/"), why)
		}
	}
}

// TestCommandsImportNoKindParams keeps a kind's parameters out of the
// commands: a flag that sets one is declared by its workload (run, load) or
// its tool's adapter (import), and the command defines it from there.
func TestCommandsImportNoKindParams(t *testing.T) {
	p := list(t, module+"/cmd/fairbench")[module+"/cmd/fairbench"]
	for _, imp := range p.Imports { // its own files, not what it reaches through workload and adapter
		if strings.HasPrefix(imp, module+"/internal/params/") {
			t.Errorf("cmd/fairbench imports %s: a kind's parameters belong to its workload's flags (workload.Flag) or its tool's import flags (adapter.ImportFlag)", strings.TrimPrefix(imp, module+"/"))
		}
	}
}

func TestStudyDoesNotImportAdapter(t *testing.T) {
	forbidDeps(t, "internal/study", func(dep string) bool { return under(dep, module+"/internal/adapter") },
		"it is passed the tools with the workloads (study.Catalog, runner.Catalog)")
}

// TestRunnerImportsNoWorkloadPackage keeps the runner generic: it reaches
// workloads through internal/workload's interface, and a tool's load reaches
// the SQL data-set markers through adapter.DataLoad (Prepare, Loaded).
func TestRunnerImportsNoWorkloadPackage(t *testing.T) {
	forbidDeps(t, "internal/runner", func(dep string) bool {
		return strings.HasPrefix(dep, module+"/internal/workload/")
	}, "it may know internal/workload only (a tool load's SQL markers are adapter.DataLoad's)")
}

func TestStudyImportsNoWorkload(t *testing.T) {
	forbidDeps(t, "internal/study", func(dep string) bool { return under(dep, module+"/internal/workload") },
		"it is passed the workloads it may name (study.Catalog, runner.Catalog)")
}

// TestAdhocLineBetweenCommandAndRunner keeps the ad-hoc command line's
// reading between the commands and the runner: it knows no command
// framework (its tests parse flag lists without one), and the runner takes
// the study it builds without importing it.
func TestAdhocLineBetweenCommandAndRunner(t *testing.T) {
	forbidDeps(t, "internal/adhocline", func(dep string) bool { return under(dep, "github.com/spf13/cobra") },
		"the commands wire it into cobra; it reads a pflag set")
	forbidDeps(t, "internal/runner", func(dep string) bool { return under(dep, module+"/internal/adhocline") },
		"the runner takes the study an ad-hoc command line makes, not the command line")
}

// TestOneRegistrationPerKind keeps a kind's registration in one place: a
// native workload registers everything its kind declares with one
// workload.Register, which alone passes it on to internal/kinds; only the
// adapters register the kinds no workload has (fio).
func TestOneRegistrationPerKind(t *testing.T) {
	allowed := func(path string) bool {
		return path == module+"/internal/workload" || under(path, module+"/internal/adapter")
	}
	pkgs := list(t, module+"/...")
	var paths []string
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	fset := token.NewFileSet()
	for _, path := range paths {
		if allowed(path) {
			continue
		}
		p := pkgs[path]
		for _, name := range p.GoFiles {
			file := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			local := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == strconv.Quote(module+"/internal/kinds") {
					local = "kinds"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Register" {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					t.Errorf("%s/%s:%d: calls kinds.Register: a workload registers its kind with workload.Register(workload.Plugin{..., Kind: kinds.Info{...}}); only internal/adapter registers a tool's kind",
						strings.TrimPrefix(path, module+"/"), name, fset.Position(sel.Pos()).Line)
				}
				return true
			})
		}
	}
}

// TestReportReachesWorkloadsThroughKinds keeps internal/report off the
// workload registry, the workload packages and the drivers: what a report
// needs of a kind (its headline, its declared parameters, its sections) is
// in internal/kinds.
func TestReportReachesWorkloadsThroughKinds(t *testing.T) {
	forbidDeps(t, "internal/report", func(dep string) bool {
		return under(dep, module+"/internal/workload") || under(dep, module+"/internal/driver")
	}, "it learns about kinds through internal/kinds")
}

// TestAdapterDoesNotImportAnalysis keeps the tool adapters below the
// analysis: a statistic they need (a median) lives in internal/hist, which
// both use.
func TestAdapterDoesNotImportAnalysis(t *testing.T) {
	forbidDeps(t, "internal/adapter", func(dep string) bool { return under(dep, module+"/internal/analysis") },
		"the statistics an adapter needs live in internal/hist (hist.Median)")
}

// maxTrackedSize is the largest file git may hold outside a testdata/
// directory: a build output committed by mistake (a 14 MB study.test once)
// would grow every clone for good.
const maxTrackedSize = 1 << 20

// TestNoLargeFileInGit fails on a tracked file over 1 MiB that is not under a
// testdata/ directory. It skips where git or the repository is not at hand (a
// module copy, a source archive).
func TestNoLargeFileInGit(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("no git work tree here (git rev-parse: %v): nothing to check", err)
	}
	root := strings.TrimSpace(string(top))
	cmd := exec.Command("git", "-C", root, "ls-files", "-z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v\n%s", err, stderr.String())
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" || inTestdata(name) {
			continue
		}
		st, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !st.Mode().IsRegular() { // deleted in the work tree, or a link
			continue
		}
		if st.Size() > maxTrackedSize {
			t.Errorf("%s: %d bytes in git, over 1 MiB outside a testdata/ directory: git rm --cached it (a build output belongs in .gitignore), or move a test input under testdata/", name, st.Size())
		}
	}
}

// inTestdata reports whether the slash-separated path lies under a testdata/
// directory.
func inTestdata(name string) bool {
	return strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/")
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

// engineNames are the engines and their settings generic code must not
// spell: every driver's scheme, every registered engine, its cache setting
// and its installation-only settings (the drivers own them; code that reads
// an environment asks result.Database for the cache and the settings to
// ignore).
func engineNames() map[string]bool {
	n := map[string]bool{}
	for _, s := range driver.Schemes() {
		n[strings.TrimSuffix(strings.TrimSuffix(s, "://"), ":")] = true
	}
	for _, f := range result.RegisteredEngines() {
		n[f.Engine] = true
		if f.CacheSetting != "" {
			n[f.CacheSetting] = true
		}
		for _, s := range f.InstallationSettings {
			n[s] = true
		}
	}
	return n
}

// TestGenericCodeNamesNoEngineOrSetting fails on a string literal equal to
// an engine or one of its settings in the non-test files of the packages
// that read results generically.
func TestGenericCodeNamesNoEngineOrSetting(t *testing.T) {
	banned := engineNames()
	if len(banned) < 10 {
		t.Fatalf("only %d engine names found: the drivers did not register", len(banned))
	}
	var paths []string
	for _, p := range []string{"analysis", "report", "runner", "study", "store", "result"} {
		paths = append(paths, module+"/internal/"+p)
	}
	// The results store keeps its own data in SQLite (a results file) or
	// PostgreSQL (a results server): its backends, not an engine under test.
	storeBackend := map[string]map[string]bool{
		"internal/store/store.go":    {"sqlite": true},
		"internal/store/postgres.go": {"postgres": true, "postgresql": true, "application_name": true},
	}
	for _, f := range stringLiterals(t, paths) {
		file, _, _ := strings.Cut(f.pos, ":")
		if banned[f.value] && !storeBackend[file][f.value] {
			t.Errorf("%s: string literal %q names an engine or an engine's setting (it belongs in the driver)", f.pos, f.value)
		}
	}
}

type literal struct{ pos, value string }

// stringLiterals lists the string literals of the non-test files of paths.
func stringLiterals(t *testing.T, paths []string) []literal {
	t.Helper()
	pkgs := list(t, paths...)
	fset := token.NewFileSet()
	var out []literal
	for _, path := range paths {
		p, ok := pkgs[path]
		if !ok {
			t.Fatalf("go list did not return %s", path)
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(path, module+"/") + "/" + name
			ast.Inspect(f, func(n ast.Node) bool {
				if x, ok := n.(*ast.BasicLit); ok && x.Kind == token.STRING {
					if s, err := strconv.Unquote(x.Value); err == nil {
						out = append(out, literal{fmt.Sprintf("%s:%d", rel, fset.Position(x.Pos()).Line), s})
					}
				}
				return true
			})
		}
	}
	return out
}

// TestGenericCodeNamesNoKindOrTool fails on a string literal equal to a kind
// or tool name, and on any comparison of a .Kind with a non-empty string
// literal, in the
// non-test files of analysis, report, cmd/fairbench and internal/adhocline.
func TestGenericCodeNamesNoKindOrTool(t *testing.T) {
	banned := names()
	paths := []string{module + "/internal/analysis", module + "/internal/report", module + "/cmd/fairbench", module + "/internal/adhocline"}
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
