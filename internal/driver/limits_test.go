package driver_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
)

// More clients than this process may open files for are refused before
// anything runs, naming the target, the number asked and the limit.
func TestCheckClientsAgainstTheOpenFileLimit(t *testing.T) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	tg := driver.Target{Name: "lite", URL: url}
	ctx := context.Background()
	if err := driver.CheckClients(ctx, tg, 8); err != nil {
		t.Fatalf("8 clients: %v", err)
	}
	many := int(r.Cur) // 3 files each on SQLite: well above the limit
	err := driver.CheckClients(ctx, tg, many)
	if err == nil {
		t.Fatalf("%d clients accepted with an open-file limit of %d", many, r.Cur)
	}
	t.Log(err)
	for _, want := range []string{`target "lite"`, strconv.Itoa(many) + " clients", "open-file limit of " + strconv.FormatUint(r.Cur, 10), "ulimit -n"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// An embedded key-value engine's clients share one handle: as many clients
// as the open-file limit are no reason to refuse.
func TestSharedHandleEnginesNeedNoFilesPerClient(t *testing.T) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	tg := driver.Target{Name: "kv", URL: "bbolt:" + filepath.Join(t.TempDir(), "x.bbolt")}
	if err := driver.CheckOpenFiles(tg, int(r.Cur)); err != nil {
		t.Fatalf("%d bbolt clients: %v", r.Cur, err)
	}
}
