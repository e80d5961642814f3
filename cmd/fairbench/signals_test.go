package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testenv"
)

// Every command stops at once on Ctrl-C, also while it waits for a results
// store (or a target) that accepts and never answers, and says what the
// interruption left: the commands that handle signals themselves (import,
// validate) with their own account, every other one (report, compare,
// studies, store, env) at once. Before, report, compare and studies sat out
// the store's 15 s connect timeout.
func TestCtrlCWhileWaitingForASilentResultsStore(t *testing.T) {
	const store = "{store}" // each case's own silent server: no connection of one case reaches the next
	dir := t.TempDir()
	study := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(study, []byte("[study]\nname = \"s\"\n[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pgbenchOutput, err := filepath.Abs("../../internal/adapter/testdata/pgbench/pg15-plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--results", store}, "report interrupted: nothing was written"},
		{[]string{"compare", "--results", store}, "compare interrupted: nothing was written"},
		{[]string{"studies", "--results", store}, "studies interrupted: nothing was written"},
		{[]string{"store", "parts", "--results", store, "1"}, "store parts interrupted: nothing was written"},
		{[]string{"store", "copy", store, filepath.Join(dir, "copy.db")}, "store copy interrupted: the runs copied before the signal are kept"},
		{[]string{"env", "--target", store}, "env interrupted: nothing was written"},
		{[]string{"validate", "--results", store, study}, "validate interrupted: nothing was checked to the end"},
		{[]string{"import", "--results", store, "--target", "x", pgbenchOutput}, "import interrupted: no run is stored partially"},
	} {
		t.Run(strings.Join(c.args[:2], " "), func(t *testing.T) {
			addr, accepted := testenv.SilentServer(t)
			args := slices.Clone(c.args)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, store, "postgres://bench:s3cret-pw@"+addr+"/bench?sslmode=disable")
			}
			cmd := exec.Command(binary, args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			select {
			case <-accepted:
			case <-time.After(testenv.StopDeadline):
				t.Fatalf("fairbench %v never connected to the silent store", c.args)
			}
			cmd.Process.Signal(os.Interrupt)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(testenv.StopDeadline):
				t.Fatalf("fairbench %v ignored Ctrl-C for %v", c.args, testenv.StopDeadline)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("fairbench %v: %v, want exit %d saying %q:\n%s", c.args, err, exitInterrupted, c.want, stderr.String())
			}
			if strings.Contains(stderr.String(), "s3cret-pw") {
				t.Fatalf("the store's password reached standard error:\n%s", stderr.String())
			}
		})
	}
}

// A results store that accepts and never answers fails once its connect
// timeout has passed, saying it timed out, after how long, and the URL
// setting that changes it (it said pgx's "context deadline exceeded" of
// each host attempt).
func TestSilentResultsStoreTimesOutNamingTheSetting(t *testing.T) {
	addr, _ := testenv.SilentServer(t)
	o := fairbench(t, t.TempDir(), "studies", "--results", "postgres://bench:s3cret-pw@"+addr+"/bench?sslmode=disable&connect_timeout=1")
	want := "timed out after 1s connecting to PostgreSQL server " + addr + ": no answer (connect_timeout (seconds) in the URL sets how long to wait)"
	if o.code != 1 || !strings.Contains(o.stderr, want) || strings.Contains(o.stderr, "s3cret-pw") {
		t.Fatalf("exit %d, want 1 saying %q without the password:\n%s", o.code, want, o.stderr)
	}
}
