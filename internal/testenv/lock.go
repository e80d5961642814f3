package testenv

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// exclusive holds a machine-wide lock named name (a flock on a file in the
// temporary directory, across the packages' test processes) until the test
// ends, waiting for it while another test holds it; what names the thing
// held, for errors.
func exclusive(t testing.TB, name, what string) { t.Helper(); lock(t, name, what, syscall.LOCK_EX) }

// shared holds the lock name shares with other holders of shared: it waits
// only while a test holds it exclusively.
func shared(t testing.TB, name, what string) { t.Helper(); lock(t, name, what, syscall.LOCK_SH) }

func lock(t testing.TB, name, what string, how int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("locking %s: %v", what, err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
