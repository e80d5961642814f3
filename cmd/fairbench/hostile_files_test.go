package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// hostileFiles are what a user may name where a file is meant: an endless
// device, a FIFO nobody writes, a directory, and a 2 GB (sparse) file.
func hostileFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a-directory")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.tsv")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return map[string]string{"/dev/zero": "/dev/zero", "FIFO": fifo, "directory": sub, "2 GB sparse file": sparse}
}

// Every file-taking flag and study key, given /dev/zero, a FIFO, a
// directory or a 2 GB sparse file, is refused with an error naming the
// file, without reading it all: the command runs with 4 GB of address space
// (reading /dev/zero whole once died "out of memory" at 1.3 GB) and must
// not block (the FIFO).
func TestHostileFilesAreRefusedNamingThem(t *testing.T) {
	dir := t.TempDir()
	files := hostileFiles(t, dir)
	db := "sqlite:" + filepath.Join(dir, "t.db")
	// Nothing listens on port 1: a file that is read only after connecting
	// fails the test with "refused the connection" instead of its name.
	search := "opensearch://127.0.0.1:1"
	flags := map[string][]string{
		"bulkindex --mapping": {"run", "--workload", "bulkindex", "--target", search, "--mapping", "FILE"},
		"bulkindex --corpus":  {"run", "--workload", "bulkindex", "--target", search, "--corpus", "FILE"},
		"search --query":      {"run", "--workload", "search", "--target", search, "--query", "FILE"},
		"search --mapping":    {"run", "--workload", "search", "--target", search, "--mapping", "FILE"},
		"tpcb -f":             {"run", "--workload", "tpcb", "--target", db, "-f", "FILE"},
		"ycsb -P":             {"run", "--workload", "ycsb", "--target", db, "-P", "FILE"},
		"validate STUDY":      {"validate", "FILE"},
		"run STUDY":           {"run", "FILE"},
		"import FILE":         {"import", "--target", "t", "FILE"},
	}
	keys := map[string]string{
		"bulkindex mapping":   `kind = "bulkindex"` + "\nmapping = %q",
		"bulkindex corpus":    `kind = "bulkindex"` + "\ncorpus = [%q]",
		"search query":        `kind = "search"` + "\nquery = %q",
		"tpcb scripts":        `kind = "tpcb"` + "\nscripts = [%q]",
		"ycsb property_files": `kind = "ycsb"` + "\nproperty_files = [%q]",
		"clickbench source":   `kind = "clickbench"` + "\nsource = %q",
	}
	// Corpora and ClickBench's hits file are streamed, a line at a time, and
	// may be gigabytes: their size is no error, the others' is.
	streamed := func(name string) bool { return strings.Contains(name, "corpus") || strings.Contains(name, "source") }
	for kind, path := range files {
		for name, args := range flags {
			if kind == "2 GB sparse file" && streamed(name) {
				continue
			}
			argv := make([]string, len(args))
			for i, a := range args {
				argv[i] = strings.ReplaceAll(a, "FILE", path)
			}
			t.Run(name+"/"+kind, func(t *testing.T) { refusedNaming(t, dir, path, argv...) })
		}
		for name, key := range keys {
			if kind == "2 GB sparse file" && streamed(name) {
				continue
			}
			url := search
			if !strings.HasPrefix(name, "bulkindex") && !strings.HasPrefix(name, "search") {
				url = db
			}
			study := filepath.Join(dir, strings.NewReplacer(" ", "-", "/", "").Replace(name+"-"+kind)+".toml")
			text := fmt.Sprintf("[study]\nname = \"s\"\nduration = \"1s\"\n\n[[target]]\nname = \"t\"\nurl = %q\n\n[[workload]]\nname = \"w\"\n"+key+"\n", url, path)
			if err := os.WriteFile(study, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Run("key "+name+"/"+kind, func(t *testing.T) { refusedNaming(t, dir, path, "validate", study) })
		}
	}
}

// refusedNaming runs fairbench with args under a 4 GB address-space limit
// and checks that it fails naming path, at most two lines, within the deadline.
func refusedNaming(t *testing.T, dir, path string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.StopDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "prlimit", append([]string{"--as=4294967296", binary}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("fairbench %s still running after %v (blocked on the file, or reading it whole)", strings.Join(args, " "), testenv.StopDeadline)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("fairbench %s: %v, want exit 1; stderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if !strings.Contains(msg, path) || strings.Count(msg, "\n") > 1 || strings.Contains(msg, "fatal error") {
		t.Fatalf("fairbench %s: want an error naming %s in a line or two, got:\n%s", strings.Join(args, " "), path, msg)
	}
}
