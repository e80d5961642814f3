package archtest

import (
	"sort"
	"strings"
	"testing"
)

// testHelpers is where every test-only package lives (testenv, cellrun,
// faultproxy, kvtest, querycheck): one place to look for a helper and one
// prefix for the rules below. A helper beside what it tests (the standard
// library's httptest) would leave it to a name to say a package is test-only;
// under testHelpers the path says it.
const testHelpers = module + "/internal/testenv"

// TestOnlyTestHelpersImportTesting keeps package testing out of the code
// fairbench ships: a non-test file imports it only under internal/testenv,
// and no non-test file outside internal/testenv imports a package under it,
// so test helpers reach test binaries only. The fairbench command then
// depends on no testing package at all, third-party ones included.
func TestOnlyTestHelpersImportTesting(t *testing.T) {
	pkgs := list(t, module+"/...")
	var paths []string
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if under(path, testHelpers) {
			continue
		}
		for _, imp := range pkgs[path].Imports { // its non-test files only
			switch {
			case imp == "testing" || strings.HasPrefix(imp, "testing/"):
				t.Errorf("%s imports %s in a non-test file: a test helper belongs under internal/testenv, the rest in _test.go files",
					strings.TrimPrefix(path, module+"/"), imp)
			case under(imp, testHelpers):
				t.Errorf("%s imports %s in a non-test file: test helpers are for _test.go files only",
					strings.TrimPrefix(path, module+"/"), strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
	cmd := module + "/cmd/fairbench"
	for _, dep := range list(t, cmd)[cmd].Deps {
		if dep == "testing" || strings.HasPrefix(dep, "testing/") {
			t.Errorf("cmd/fairbench depends on %s: find the package that imports it with go list -deps", dep)
		}
	}
}
