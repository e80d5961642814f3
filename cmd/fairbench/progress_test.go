package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestLoadShowsProgressBeforeItEnds: a long load (ClickBench's synthetic
// hits) prints a progress line with its rows, the total, the rate and the
// time left while it loads; on stderr that is no terminal they are plain
// lines, without \r. Ctrl-C then stops it.
func TestLoadShowsProgressBeforeItEnds(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "load", "--target", "sqlite:"+filepath.Join(dir, "cb.db"), "--workload", "clickbench", "--rows", "5000000")
	interruptAfterLine(t, dir, cmd, regexp.MustCompile(`^clickbench: loading hits: [\d,]+ of 5,000,000 rows \(\d+%\)`))
}

// TestAdHocRunShowsProgressWithoutP: an ad-hoc kv run without -P, which
// prints no tick lines, shows its measured phase's progress (time, time
// left) before its summary; Ctrl-C then stops it.
func TestAdHocRunShowsProgressWithoutP(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "run", "--target", "pebble:"+filepath.Join(dir, "kv"), "--workload", "kv", "--test-time", "300", "-c", "1", "-t", "1")
	interruptAfterLine(t, dir, cmd, regexp.MustCompile(`^kv: measuring: \d+ s of 5 min 00 s \(\d+%\).* left$`))
}

// interruptAfterLine starts cmd in dir, waits for a line of its stderr
// that matches want, interrupts it (Ctrl-C) and waits for it to stop. No
// line may hold a carriage return: stderr here is no terminal.
func interruptAfterLine(t *testing.T, dir string, cmd *exec.Cmd, want *regexp.Regexp) {
	t.Helper()
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	deadline := time.After(2 * time.Minute)
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("it ended without a progress line:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if strings.Contains(line, "\r") {
				t.Errorf("a carriage return on stderr that is no terminal: %q", line)
			}
			if want.MatchString(line) {
				break wait
			}
		case <-deadline:
			t.Fatalf("no progress line in 2 minutes:\n%s", strings.Join(seen, "\n"))
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines {
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("it did not stop on Ctrl-C")
	}
}

// TestQuietLoadPrintsNothing: load --quiet prints no progress and no phase
// message; the data is loaded all the same.
func TestQuietLoadPrintsNothing(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "cb.db")
	o := fairbench(t, dir, "load", "--quiet", "--target", target, "--workload", "clickbench", "--rows", "20000")
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("load --quiet: exit %d, stderr %q", o.code, o.stderr)
	}
	o = fairbench(t, dir, "load", "--target", target, "--workload", "clickbench", "--rows", "20000")
	if o.code != 0 || !strings.Contains(o.stderr, "reusing the data fairbench loaded earlier") {
		t.Fatalf("the quiet load did not load the data: exit %d, stderr %q", o.code, o.stderr)
	}
}
