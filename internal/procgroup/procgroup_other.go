//go:build !unix

package procgroup

import "os/exec"

// Own is a no-op where process groups are not available.
func Own(cmd *exec.Cmd) {}

// Kill kills the started command; without process groups its
// children may survive it.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
