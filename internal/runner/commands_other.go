//go:build !unix

package runner

import (
	"os/exec"
	"time"
)

func ownGroup(*exec.Cmd) {}

// killGroup kills the command itself: without process groups, what it
// started may outlive it.
func killGroup(cmd *exec.Cmd, _ time.Duration) error { return cmd.Process.Kill() }
