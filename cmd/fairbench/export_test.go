package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bundleStudy is one 1 s cell on embedded SQLite whose target names a
// node_exporter behind a URL password (nothing listens there: the run goes
// on without server samples), so that the password reaches the study file
// and the run's environment.
const bundleStudy = `[study]
name = "bundled"
repetitions = 1
warmup = "0s"
duration = "1s"

[[target]]
name = "one"
url = "sqlite:one.db"
node_exporter = "http://fb:` + bundlePassword + `@127.0.0.1:9/metrics"

[[workload]]
kind = "tpcb"
mode = "select-only"
clients = [1]
`

// bundlePassword is a string no other test uses.
const bundlePassword = "Bndl-pw-7f3e91c2"

// A study exported and read back gives the same report, byte for byte, as
// its results file, from the bundle and from the HTML report carrying it;
// no byte of the bundle, raw or decompressed, holds the target's password;
// importing it twice stores its runs once; a bundle or report changed
// after export is refused naming what changed.
func TestExportedStudyReportsAsItsResultsFile(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.toml"), []byte(bundleStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "run", "s.toml"); o.code != 0 {
		t.Fatalf("run: %s", o.stderr)
	}
	o := fairbench(t, dir, "export", "-o", "s.fbz")
	if o.code != 0 || !strings.Contains(o.stderr, "s.fbz: study bundled, 1 run") {
		t.Fatalf("export: %d %s", o.code, o.stderr)
	}
	if o := fairbench(t, dir, "report", "--format", "html", "--embed-data", "-o", "r.html"); o.code != 0 {
		t.Fatalf("report --embed-data: %s", o.stderr)
	}
	want := fairbench(t, dir, "report")
	if want.code != 0 {
		t.Fatalf("report: %s", want.stderr)
	}
	// The report names its results file: the bundle and the page go under
	// the same name in a directory of their own.
	for _, from := range []string{"s.fbz", "r.html"} {
		other := t.TempDir()
		copyFile(t, filepath.Join(dir, from), filepath.Join(other, defaultResults))
		got := fairbench(t, other, "report")
		if got.code != 0 || got.stdout != want.stdout {
			t.Errorf("report from %s (exit %d, %s) differs from the results file's:\n%s\nwant:\n%s", from, got.code, got.stderr, got.stdout, want.stdout)
		}
	}

	raw, err := os.ReadFile(filepath.Join(dir, "s.fbz"))
	if err != nil {
		t.Fatal(err)
	}
	for name, part := range unzipped(t, raw) {
		if strings.Contains(string(part), bundlePassword) {
			t.Errorf("part %s holds the password", name)
		}
	}
	page := readAll(t, dir, "r.html")
	if bytes.Contains(raw, []byte(bundlePassword)) || strings.Contains(page, bundlePassword) {
		t.Error("the bundle or the page holds the password")
	}
	if !strings.Contains(page, "This page carries its data (") {
		t.Error("the page does not state the data it carries")
	}

	imp := fairbench(t, dir, "import", "--results", "copy.db", "s.fbz")
	if imp.code != 0 || !strings.Contains(imp.stderr, "1 run imported into copy.db") {
		t.Fatalf("import: %d %s", imp.code, imp.stderr)
	}
	imp = fairbench(t, dir, "import", "--results", "copy.db", "r.html")
	if imp.code != 0 || !strings.Contains(imp.stderr, "nothing imported: its runs (1) are already in copy.db") {
		t.Fatalf("import again: %d %s", imp.code, imp.stderr)
	}
	if n := len(runsIn(t, filepath.Join(dir, "copy.db"))); n != 1 {
		t.Fatalf("%d runs in copy.db after importing the same study twice, want 1", n)
	}

	// One byte of the page's embedded data changed.
	i := strings.Index(page, `id="fairbench-bundle">`) + len(`id="fairbench-bundle">`) + 200
	flipped := page[:i] + string(page[i]^0x01) + page[i+1:]
	if err := os.WriteFile(filepath.Join(dir, "changed.html"), []byte(flipped), 0o644); err != nil {
		t.Fatal(err)
	}
	o = fairbench(t, dir, "report", "--results", "changed.html")
	assertOneLineError(t, o, "changed.html")
	if !strings.Contains(o.stderr, "changed after") && !strings.Contains(o.stderr, "damaged") {
		t.Errorf("a changed page is refused without saying it was changed: %s", o.stderr)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unzipped returns every file of a zip archive, decompressed, by name.
func unzipped(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	if len(out) < 4 {
		t.Fatalf("the bundle has %d parts, want the manifest, studies, imported files and runs", len(out))
	}
	return out
}
