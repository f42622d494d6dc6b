package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/preflight"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

type runOptions struct {
	repo        string
	task        string
	targets     []string
	names       []string
	subject     string
	scope       []string
	suite       string
	python      string
	steps       int
	stuckAfter  int
	interactive bool
	nativeTools bool
	inPlace     bool
	out         string
	model       modelFlags
}

// isolateUsage is the help of --isolate, the same on run, bench and collect.
const isolateUsage = "run suites and checks with no network, in namespaces of their own (Linux, unprivileged unshare); an error where that cannot be done"

func newRunCmd(a *app) *cobra.Command {
	opts := runOptions{}
	isolate := false
	cmd := &cobra.Command{
		Use:   "run --repo DIR --task TEXT",
		Short: "Run one task on one repository with one model, recording every turn",
		Long: `Runs one task on a copy of a Python repository (the repository itself is never
written unless --in-place), step by step, records every turn under OUT/runs/,
writes the run's patch to OUT/patches/<run_id>.diff, and prints a summary.

Before the first model call it runs the suite, and stops with exit 2 when the
suite cannot judge the run, with the check and the message collect refuses a
manifest entry with: the suite does not import, runs no test, times out, or its
command starts an interpreter that has no pytest (write {python} in --suite
where the command names the interpreter: the harness puts there one that has
pytest, or --python). It warns of a --scope glob that matches no file and a
--target that is not in the repository. The run is judged against the suite as
it was before the task: a test failing then and still failing is not held
against it unless the task names it.

--model scripted:FILE plays replies from a JSON Lines file instead of calling a
model, one object per model call: {"content": "..."} is one reply (also
"thinking", "tool_calls", "finish_reason"; {"error": "stream-cut"} is a fault).` + exitCodesHelp(),
		Example: `  # Ollama's default model on one task
  pyharness run --repo ~/src/slug --task "Make slugify strip separators from both ends" --target slug/slugify.py

  # No model: three scripted replies, one per model call
  printf '%s\n' '{"content": "READ slug/slugify.py"}' '{"content": "RUN tests"}' \
    '{"content": "DONE nothing to change: ` + "`" + `.strip(separator)` + "`" + ` is already there"}' > drafts.jsonl
  pyharness run --repo ~/src/slug --task "Make slugify strip separators" --model scripted:drafts.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateRunOptions(opts); err != nil {
				return &exitError{code: exitUsage, msg: err.Error()}
			}
			ctx := cmd.Context()
			if isolate {
				ctx = suite.WithIsolation(ctx)
			}
			// The key's variable never reaches a suite, whatever its name.
			ctx = suite.WithSecrets(ctx, opts.model.apiKeyEnv)
			return runRun(ctx, a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.repo, "repo", "", "the repository to work on")
	fs.StringVar(&opts.task, "task", "", "the task, as a person would write it")
	fs.StringArrayVar(&opts.targets, "target", nil, "a file the task may write (repeatable)")
	fs.StringArrayVar(&opts.names, "name", nil, "a name the task must define (repeatable)")
	fs.StringVar(&opts.subject, "subject", "", "the function the task fixes (a write that deletes it is refused)")
	fs.StringArrayVar(&opts.scope, "scope", nil, "a glob the run may read and write (repeatable; default everything)")
	fs.StringVar(&opts.suite, "suite", "", "the suite command (default: detected: unittest, pytest or go test)")
	fs.StringVar(&opts.python, "python", "", "the Python interpreter (default: python3, or one that has pytest when pytest is wanted)")
	fs.IntVar(&opts.steps, "steps", harness.DefaultMaxSteps, "the step budget")
	registerStuckAfter(cmd, &opts.stuckAfter, "")
	fs.BoolVar(&opts.interactive, "interactive", false, "answer the model's ASK at the terminal")
	fs.BoolVar(&opts.nativeTools, "native-tools", false, "offer the actions as native tool calls (falls back to text if the model cannot)")
	fs.BoolVar(&opts.inPlace, "in-place", false, "work in the repository itself instead of a copy")
	fs.BoolVar(&isolate, "isolate", false, isolateUsage)
	fs.StringVar(&opts.out, "out", defaultOut, "output directory")
	opts.model.register(cmd)
	opts.model.registerChatTemplate(cmd)
	return cmd
}

// taskSpec is what the flags ask of the run.
func (o runOptions) taskSpec() schemas.TaskSpec {
	return schemas.TaskSpec{Task: o.task, Targets: o.targets, Names: o.names, Subject: o.subject, Scope: o.scope, Suite: o.suite}
}

// validateRunOptions checks what can be checked before anything runs.
func validateRunOptions(o runOptions) error {
	switch {
	case o.repo == "":
		return fmt.Errorf("run: --repo is required")
	case strings.TrimSpace(o.task) == "":
		return fmt.Errorf("run: --task is required")
	case o.steps < 1:
		return fmt.Errorf("run: --steps must be at least 1")
	}
	if err := checkStuckAfter(o.stuckAfter); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if st, err := os.Stat(o.repo); err != nil || !st.IsDir() {
		return fmt.Errorf("run: --repo %s: not a directory", o.repo)
	}
	var bad *schemas.TaskSpecError
	if err := o.taskSpec().Validate(); errors.As(err, &bad) {
		flag := map[string]string{"targets": "--target", "names": "--name", "scope": "--scope"}[bad.Field]
		return fmt.Errorf("run: %s: %s", cmp.Or(flag, bad.Field), bad.Msg)
	}
	if err := o.model.check(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	spec, err := parseModelSpec(o.model.spec)
	if err != nil {
		return err
	}
	if spec.backend == schemas.BackendScripted && spec.arg == "" {
		return fmt.Errorf("run: --model scripted needs a script file (scripted:FILE)")
	}
	return nil
}

func runRun(ctx context.Context, a *app, o runOptions) error {
	spec, _ := parseModelSpec(o.model.spec)
	be, err := openBackend(ctx, a, spec, &o.model)
	if err != nil {
		return err
	}
	if be.ask != nil {
		// The pre-flight bench and collect make: a server that is down or
		// lacks the model is said before the baseline suite, with how to
		// fix it; the digest and the context in force go on run_start.
		pre := be.preflight(ctx, &o.model, o.python, o.out)
		if failed := runPreflightProblems(a.stderr, pre); failed {
			return &exitError{code: exitPreflight, msg: "run: the pre-flight failed (see the FAIL lines above); nothing was run"}
		}
	}
	cfg := harness.Config{
		RunID: adhocRunID(o, a), OutDir: o.out, Source: schemas.SourceAdhoc,
		Repo: o.repo, InPlace: o.inPlace, TaskSpec: o.taskSpec(), Python: o.python, MaxSteps: o.steps, StuckAfter: stuckLimit(o.stuckAfter),
		Model: be.info, Syntax: be.syntax, NativeTools: o.nativeTools, Log: a.stderr, Now: a.now,
	}
	if o.interactive {
		cfg.Ask = terminalAsker(a.stdin, a.stderr)
	}
	res, err := harness.Run(ctx, cfg, be.chat)
	if bad := (*harness.BaselineError)(nil); errors.As(err, &bad) {
		return &exitError{code: exitUsage, msg: err.Error() + "\nnothing was recorded and no model was called"}
	}
	if err != nil {
		return err
	}
	printSummary(a.stdout, res)
	if be.replay != nil {
		if d := bench.Diverged(be.replay, res.Steps); d != "" {
			fmt.Fprintf(a.stdout, "replay:   diverged from the recorded run at %s\n", d)
		} else {
			fmt.Fprintln(a.stdout, "replay:   no divergence: every step did what the recorded run did")
		}
	}
	switch res.End.Verdict {
	case schemas.VerdictError:
		return &exitError{code: exitIncomplete}
	case schemas.VerdictCancelled:
		return &exitError{code: exitInterrupted}
	}
	return nil
}

// runPreflightProblems prints the failed pre-flight checks that stop a run
// and reports whether there were any. Python is left to the run, which
// needs none for a Go suite and says so itself when it does; warnings (the
// context among them) are in the run's summary.
func runPreflightProblems(w io.Writer, res *preflight.Result) bool {
	failed := false
	for _, c := range res.Checks {
		if c.Status == preflight.Fail && c.Name != "python" {
			fmt.Fprintf(w, "%-5s %-18s %s\n", c.Status, c.Name, c.Detail)
			failed = true
		}
	}
	return failed
}

// adhocRunID names an ad-hoc run by what it is and when it started.
func adhocRunID(o runOptions, a *app) string {
	h := sha256.Sum256([]byte(strings.Join([]string{o.repo, o.task, o.model.spec, fmt.Sprint(o.model.options())}, "\x00")))
	return fmt.Sprintf("adhoc-%s-%s", hex.EncodeToString(h[:4]), a.now().UTC().Format("20060102T150405"))
}

func terminalAsker(in io.Reader, out io.Writer) harness.Asker {
	sc := bufio.NewScanner(in)
	return func(ctx context.Context, q string) (string, error) {
		fmt.Fprintf(out, "\nThe model asks: %s\nyour answer> ", q)
		if !sc.Scan() {
			return "", sc.Err()
		}
		return sc.Text(), nil
	}
}

// printSummary prints the one-screen summary of a run. A broken suite is
// its first line: it is the worst thing a run can do to a repository; a
// stuck run's first line says which refusal repeated.
func printSummary(w io.Writer, res *harness.Result) {
	e := res.End
	if e.StopReason == schemas.StopBrokeSuite {
		fmt.Fprintf(w, "SUITE BROKEN: the suite passed before the run and fails after it; %s broke it, and the run stopped.\n", res.BrokeSuite)
	}
	if e.Stuck != nil {
		fmt.Fprintln(w, e.Stuck.Line())
	}
	verdict := string(e.Verdict)
	if e.FailureClass != "" {
		verdict += " (" + string(e.FailureClass) + ")"
	}
	fmt.Fprintf(w, "verdict:  %s, stop reason %s, %d steps (%d model steps)\n", verdict, e.StopReason, e.Steps, e.ModelSteps)
	if e.Reason != "" {
		fmt.Fprintf(w, "why:      %s\n", e.Reason)
	}
	if e.Error != "" {
		fmt.Fprintf(w, "model error: %s\n", e.Error)
	}
	if res.Start.Model.HandWritten() {
		fmt.Fprintf(w, "model:    %s %s (no model was called: drafts came from a %s)\n", res.Start.Model.Backend, res.Start.Model.Name,
			map[string]string{schemas.BackendScripted: "script", schemas.BackendReplay: "recorded run"}[res.Start.Model.Backend])
	} else {
		fmt.Fprintf(w, "model:    %s %s\n", res.Start.Model.Backend, res.Start.Model.Name)
	}
	if c := res.Start.Model.Context; c != nil {
		fmt.Fprintf(w, "context:  %s\n", harness.ContextLine(c))
	}
	if n := res.TurnWarnings[schemas.CodeContextFull]; n > 0 {
		fmt.Fprintf(w, "context:  %d replies cut by a full context (not by --num-predict)\n", n)
	}
	if len(e.Writes) == 0 {
		fmt.Fprintln(w, "written:  nothing")
	}
	for i, wr := range e.Writes {
		label := "written: "
		if i > 0 {
			label = "         "
		}
		fmt.Fprintf(w, "%s %s (+%d -%d)\n", label, wr.Path, wr.Added, wr.Removed)
	}
	fmt.Fprintf(w, "suite:    before %s; after %s\n", countsLine(e.SuiteBefore), countsLine(e.SuiteAfter))
	if e.Checks.Ran {
		status := "passed"
		if !e.Checks.Passed {
			status = "failed: " + e.Checks.FirstFailure
		}
		fmt.Fprintf(w, "checks:   %s\n", status)
	}
	if res.PatchPath != "" {
		fmt.Fprintf(w, "patch:    %s\n", res.PatchPath)
	}
	fmt.Fprintf(w, "trace:    %s\n", res.TracePath)
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning:  %s\n", warn)
	}
}

func countsLine(c schemas.SuiteCounts) string {
	switch {
	case c.NotRun:
		return "not run (the run ended before the suite ran on its changes)"
	case c.TimedOut:
		return "timed out"
	case c.ImportError != "":
		return "import error: " + c.ImportError
	case c.NoTests || c.Ran == 0:
		return "no tests ran"
	}
	return fmt.Sprintf("%d/%d passed", c.Passed, c.Ran)
}
