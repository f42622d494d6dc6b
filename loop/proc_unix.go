//go:build unix

package loop

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup makes the train command the leader of a new process
// group, so that a cancel reaches the trainer the shell started.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
