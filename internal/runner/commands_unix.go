//go:build unix

package runner

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, so that killGroup
// reaches the processes it starts.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGTERM to cmd's process group, and SIGKILL grace later
// to whatever of it is left.
func killGroup(cmd *exec.Cmd, grace time.Duration) error {
	pgid := -cmd.Process.Pid
	err := syscall.Kill(pgid, syscall.SIGTERM)
	time.AfterFunc(grace, func() { _ = syscall.Kill(pgid, syscall.SIGKILL) })
	return err
}
