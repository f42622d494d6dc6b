//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes the command the leader of a new process group, so
// that a kill reaches the interpreter or trainer and everything it started.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill kills the whole group led by the started command.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
