package collect

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// commandCheck is a manifest's check command: run with sh in the workspace
// after the agent ends; exit 0 means the task is done.
type commandCheck struct {
	command string
	timeout time.Duration
	// python is the interpreter "{python}" in the command stands for
	// (found as the suite finds it when empty).
	python string
}

var _ harness.SuiteChecker = commandCheck{}

// RunsSuite reports whether the check's command is the suite's, word for
// word: the harness then reads the check from the suite's last run.
func (c commandCheck) RunsSuite(suite string) bool { return c.command == suite }

// Check runs the command and reads its exit status.
func (c commandCheck) Check(ctx context.Context, workspace string) (schemas.Checks, error) {
	timeout := c.timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The check runs the model's code: in the suite's sandbox (scrubbed
	// environment, its own HOME and process group, isolated when ctx says).
	// A src layout's package imports by its own name, as in the suite.
	env := []string{"PYTHONDONTWRITEBYTECODE=1"}
	if p := suite.ImportPathEnv(workspace, nil); p != "" {
		env = append(env, p)
	}
	command := c.command
	if strings.Contains(command, "{python}") {
		py, err := suite.FindPython(ctx, c.python, strings.Contains(command, "pytest"))
		if err != nil {
			return schemas.Checks{}, fmt.Errorf("run check %q: %w", c.command, err)
		}
		command = strings.ReplaceAll(command, "{python}", shellQuote(py))
	}
	cmd, done, err := suite.Sandbox{Env: env}.Command(cctx, workspace, []string{"sh", "-c", command})
	if err != nil {
		return schemas.Checks{}, fmt.Errorf("run check %q: %w", c.command, err)
	}
	out := &tail{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	done()
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
		return res, fmt.Errorf("run check %q: %w", c.command, err)
	}
	return res, nil
}

// shellQuote is s as one word of sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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

// tail keeps the last max bytes written to it: a check that prints
// megabytes costs a fixed amount, and its last line is what is reported.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
