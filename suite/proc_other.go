//go:build !unix

package suite

import "os/exec"

// inOwnProcessGroup is a no-op where process groups are not available.
func inOwnProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the started command; without process groups its
// children may survive it.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
