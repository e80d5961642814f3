//go:build unix

package driver

import "syscall"

// openFileLimit is the process's soft RLIMIT_NOFILE (which the Go runtime
// raises to the hard limit at start).
func openFileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur == ^uint64(0) {
		return 0, false
	}
	return r.Cur, true
}
