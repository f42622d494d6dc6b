package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Defaults for a Runner's zero fields.
const (
	defaultTimeout   = 120 * time.Second
	defaultOutputCap = 64 << 10
)

// waitDelay bounds how long Wait waits for the output pipe to close after
// the process exited: a grandchild that escaped still holds it.
const waitDelay = 3 * time.Second

// Runner runs one repository's test suite.
type Runner struct {
	// Kind is the runner; empty means Detect. With a Command, the runner
	// is the one the command starts (see KindOf), and Kind only says how
	// to read a command whose words do not tell.
	Kind Kind
	// Command is an explicit command line, split like a shell splits words
	// (quotes, backslashes; no expansion) and run without a shell; leading
	// VAR=value words set variables for it, as a shell's do, and every
	// "{python}" in it is replaced by the interpreter. Empty means the
	// default command for Kind.
	Command string
	// Python is the interpreter for unittest and pytest; empty means
	// FindPython's choice.
	Python string
	// Timeout is the limit for the whole run; zero means defaultTimeout.
	Timeout time.Duration
	// OutputCap is how many bytes of output are kept; zero means
	// defaultOutputCap.
	OutputCap int
	// Env is added to the sandbox's scrubbed environment (see Sandbox).
	Env []string
	// Isolate runs the suite with no network, in namespaces of its own (see
	// Sandbox); a context from WithIsolation does the same.
	Isolate bool
}

// Run runs the suite in dir and reads its results. It returns an error only
// when the suite could not be started at all (no interpreter, a bad command,
// a context already done); a suite that fails, does not import, runs nothing
// or hangs is a Result.
func (r Runner) Run(ctx context.Context, dir string) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run suite: %w", err)
	}
	plan, err := r.plan(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("run suite: %w", err)
	}
	kind, argv := plan.kind, plan.argv
	timeout := orDefault(r.Timeout, defaultTimeout)
	capacity := orDefault(r.OutputCap, defaultOutputCap)

	// The caller's deadline may come first; then that is the limit the
	// run had, and the one to report.
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl).Round(time.Millisecond); left < timeout {
			timeout = left
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	report, err := structured(plan)
	if err != nil {
		return nil, fmt.Errorf("run suite: %w", err)
	}
	runArgv := argv
	out := newCappedOutput(capacity)
	var w io.Writer = out
	if report != nil {
		defer report.close()
		runArgv = report.command(argv)
		w = report.output(out)
	}
	cmd, cleanup, err := Sandbox{Env: r.environ(kind, dir, plan.env), Isolate: r.Isolate}.Command(runCtx, dir, runArgv)
	if err != nil {
		return nil, fmt.Errorf("run suite: %w", err)
	}
	cmd.Stdout = w // one writer for both keeps their order
	cmd.Stderr = w

	start := time.Now()
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, fmt.Errorf("run suite: start %s: %w", argv[0], err)
	}
	waitErr := cmd.Wait()
	duration := time.Since(start)
	// Whatever the suite left running in its group goes with it.
	cleanup()
	if g, ok := w.(*goEvents); ok {
		g.flush() // the packages' text is held until the end
	}

	res := &Result{
		Output:      out.String(),
		OutputBytes: out.Total(),
		Duration:    duration,
		Command:     append(slices.Clone(plan.env), argv...),
		Timeout:     timeout,
		Kind:        kind,
	}
	res.Counts.ExitCode = exitCode(cmd, waitErr)
	if runCtx.Err() != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			res.Cancelled = true
		} else {
			res.Counts.TimedOut = true
		}
	}
	var structured *reading
	res.CountsFrom = fromOutput
	if report != nil {
		if rd, ok := report.counts(); ok {
			structured = &rd
			res.CountsFrom = report.source()
		}
		if g, ok := w.(*goEvents); ok {
			res.OutputBytes = g.raw
		}
	}
	read(kind, res, dir, structured)
	res.Output = quietVolatile(res.Output, newRepoPaths(dir))
	return res, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func exitCode(cmd *exec.Cmd, waitErr error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if waitErr != nil {
		return -1
	}
	return 0
}

// plan is what Run runs: the runner, the argument vector with {python}
// replaced, the variables the command's leading assignments set, and where
// in argv the runner's own arguments begin.
func (r Runner) plan(ctx context.Context, dir string) (invocation, error) {
	if r.Command != "" {
		inv, err := parseInvocation(r.Command)
		if err != nil {
			return invocation{}, fmt.Errorf("command %q: %w", r.Command, err)
		}
		if inv.kind == unknown && r.Kind != "" {
			// The caller knows what its own command runs ("python
			// tests/test_x.py" under unittest.main): read it so, with no
			// report asked for, as where to ask is not known.
			inv.kind = r.Kind
		}
		if !strings.Contains(r.Command, "{python}") {
			return inv, nil
		}
		py, err := FindPython(ctx, r.Python, inv.kind == Pytest)
		if err != nil {
			return invocation{}, err
		}
		for i, a := range inv.argv {
			inv.argv[i] = strings.ReplaceAll(a, "{python}", py)
		}
		for i, a := range inv.env {
			inv.env[i] = strings.ReplaceAll(a, "{python}", py)
		}
		return inv, nil
	}
	kind := r.Kind
	if kind == "" {
		kind = Detect(dir)
	}
	switch kind {
	case GoTest:
		return invocation{kind: kind, argv: []string{"go", "test", "-v", "-count=1", "./..."}, at: 1}, nil
	case Pytest:
		py, err := FindPython(ctx, r.Python, true)
		if err != nil {
			return invocation{}, err
		}
		// -q keeps the one-line summary, -rfE lists every failure and error
		// with its node id, and the cache provider would write into the
		// repository.
		return invocation{kind: kind, argv: []string{py, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider"}, at: 2}, nil
	case Unittest:
		py, err := FindPython(ctx, r.Python, false)
		if err != nil {
			return invocation{}, err
		}
		return invocation{kind: kind, argv: append([]string{py, "-m", "unittest", "discover"}, unittestStart(dir)...), at: 2}, nil
	}
	return invocation{}, fmt.Errorf("unknown suite kind %q", kind)
}

// Check says, before anything is recorded, whether the suite can be
// started at all: its command splits, and the program it names exists.
// A suite that starts and then fails is a Result of Run, not an error here.
func (r Runner) Check(ctx context.Context, dir string) error {
	plan, err := r.plan(ctx, dir)
	if err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	prog := plan.argv[0]
	if !strings.ContainsRune(prog, filepath.Separator) {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Errorf("suite %q: %s is not a program on PATH", r.Command, prog)
		}
		return nil
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	if fi, err := os.Stat(prog); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("suite %q: %s is not an executable file", r.Command, plan.argv[0])
	}
	return nil
}

// unittestStart picks discover's start directory: the repository itself
// when it has test*.py files at the top, else a tests/ directory (as a
// package when it is one). "python -m" puts dir on sys.path either way, so
// the code under test imports.
func unittestStart(dir string) []string {
	if top, _ := filepath.Glob(filepath.Join(dir, "test*.py")); len(top) > 0 {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(dir, "tests")); err != nil || !fi.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "tests", "__init__.py")); err == nil {
		return []string{"-s", "tests", "-t", "."}
	}
	return []string{"-s", "tests"}
}

// environ is what the Runner adds to the sandbox's environment: its own
// Env, the variables the command's leading assignments set, a src layout's
// src/ first on PYTHONPATH (see ImportPath), bytecode writing off
// (workspace noise) and Python's stdout unbuffered, so that a test's prints
// and the runner's stderr summary arrive in the order made.
func (r Runner) environ(kind Kind, dir string, assigned []string) []string {
	var env []string
	if kind != GoTest {
		env = append(env, "PYTHONUNBUFFERED=1")
	}
	env = append(env, r.Env...)
	env = append(env, assigned...)
	if kind != GoTest {
		if p := withImportPath(dir, env); p != "" {
			env = append(env, p)
		}
	}
	return append(env, "PYTHONDONTWRITEBYTECODE=1")
}
