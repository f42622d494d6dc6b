package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// CommandCheck is a manifest's check command: run with sh in the workspace
// after the agent ends; exit 0 means the task is done.
type CommandCheck struct {
	Command string
	Timeout time.Duration
}

// Check runs the command and reads its exit status.
func (c CommandCheck) Check(ctx context.Context, workspace string) (schemas.Checks, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", c.Command)
	cmd.Dir = workspace
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := schemas.Checks{Ran: true, Passed: err == nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case cctx.Err() != nil:
		res.FirstFailure = fmt.Sprintf("check timed out after %s", timeout)
	case errors.As(err, &ee):
		res.FirstFailure = lastLine(out.String())
		if res.FirstFailure == "" {
			res.FirstFailure = fmt.Sprintf("check exited %d", ee.ExitCode())
		}
	default:
		return res, fmt.Errorf("run check %q: %w", c.Command, err)
	}
	return res, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
