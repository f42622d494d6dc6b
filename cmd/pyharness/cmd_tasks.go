package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect/mine"
)

type tasksOptions struct {
	repo, out, python, suite string
	scope, kinds             []string
	max, jobs                int
	seed                     uint64
	maxFailing, perFunction  int
	historyDepth             int
}

func newTasksCmd(a *app) *cobra.Command {
	o := tasksOptions{}
	cmd := &cobra.Command{
		Use:   "tasks --repo DIR --out DIR",
		Short: "Mine tasks from a Python repository with tests into a collect manifest",
		Long: `Makes tasks from a Python repository whose pytest suite passes: single-site
mutations of its code that make some of its tests fail, and commits of its
history whose code change, undone, makes the commit's tests fail. Each task
is kept only when its reference fix works through the harness and doing
nothing fails. The repository is only read: mining happens in a clone under
OUT, and OUT/manifest.yaml (rewritten after every task kept) is ready for
collect --manifest. The same --seed gives the same tasks.

Kinds: ` + strings.Join(mine.Kinds, ", ") + `.` + exitCodesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTasksOptions(o); err != nil {
				return &exitError{code: exitUsage, msg: err.Error()}
			}
			return runTasks(cmd.Context(), a, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.repo, "repo", "", "the repository to mine (a git repository; only read)")
	fs.StringVar(&o.out, "out", "", "the output directory: manifest.yaml, scripts/ and the clone repo/")
	fs.StringVar(&o.python, "python", "", "the Python interpreter (default: found as the suite finds it)")
	fs.StringVar(&o.suite, "suite", "{python} -m pytest", `the pytest command that runs the whole suite from the root ("{python}" is the interpreter)`)
	fs.StringArrayVar(&o.scope, "scope", nil, "a glob of the source files to mutate (repeatable; default every Python file that is not a test)")
	fs.StringSliceVar(&o.kinds, "kinds", nil, "the kinds of task to make, comma-separated (default all)")
	fs.IntVar(&o.max, "max", 30, "stop after keeping this many tasks")
	fs.IntVar(&o.jobs, "jobs", 2, "candidates tried at once")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed that orders the candidates")
	fs.IntVar(&o.maxFailing, "max-failing", 5, "the most tests a task may make fail")
	fs.IntVar(&o.perFunction, "per-function", 2, "the most tasks kept per function")
	fs.IntVar(&o.historyDepth, "history-depth", 300, "the newest commits looked at for history tasks")
	return cmd
}

// checkTasksOptions reports the first flag that is missing or out of
// range, and a --repo that is no directory.
func checkTasksOptions(o tasksOptions) error {
	switch {
	case o.repo == "":
		return fmt.Errorf("tasks: --repo is required")
	case o.out == "":
		return fmt.Errorf("tasks: --out is required")
	case o.max < 1 || o.jobs < 1 || o.maxFailing < 1 || o.perFunction < 1 || o.historyDepth < 1:
		return fmt.Errorf("tasks: --max, --jobs, --max-failing, --per-function and --history-depth must be at least 1")
	case !strings.Contains(o.suite, "pytest"):
		return fmt.Errorf("tasks: --suite %q: give a pytest command (mining selects and reads tests through pytest)", o.suite)
	}
	if fi, err := os.Stat(o.repo); err != nil || !fi.IsDir() {
		return fmt.Errorf("tasks: --repo %s is not a directory", o.repo)
	}
	for _, k := range o.kinds {
		if !slices.Contains(mine.Kinds, k) {
			return fmt.Errorf("tasks: --kinds: unknown kind %q (known: %s)", k, strings.Join(mine.Kinds, ", "))
		}
	}
	return nil
}

func runTasks(ctx context.Context, a *app, o tasksOptions) error {
	progress := func(s mine.Summary) {
		fmt.Fprintf(a.stderr, "tasks: tried %d of %d, kept %d, dropped %d (%s)\n", s.Tried, s.Candidates, s.Kept, s.Tried-s.Kept, s.Elapsed.Round(time.Second))
	}
	sum, err := mine.Run(ctx, mine.Options{Repo: o.repo, Out: o.out, Python: o.python, Suite: o.suite, Scope: o.scope,
		Kinds: o.kinds, Max: o.max, Jobs: o.jobs, Seed: o.seed, MaxFailing: o.maxFailing, PerFunction: o.perFunction,
		HistoryDepth: o.historyDepth, Progress: progress, Now: a.now})
	if sum != nil {
		printTasksSummary(a, sum)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf("tasks: interrupted; %s holds the %d task(s) kept so far", sum.Manifest, sum.Kept)}
	case err != nil:
		return err
	}
	return nil
}

func printTasksSummary(a *app, s *mine.Summary) {
	w := a.stdout
	minutes := s.Elapsed.Minutes()
	rate := 0.0
	if minutes > 0 {
		rate = float64(s.Kept) / minutes
	}
	fmt.Fprintf(w, "tasks: %d candidates, %d tried, %d kept (%s) in %s: %.1f tasks a minute\n",
		s.Candidates, s.Tried, s.Kept, byKind(s.KeptByKind), s.Elapsed.Round(time.Second), rate)
	fmt.Fprintf(w, "tests: a suite of %d; %d test runs while mining, %d saved by selecting the tests that run the edited function\n",
		s.SuiteTests, s.TestsRun, s.TestsSaved)
	reasons := slices.Sorted(maps.Keys(s.Dropped))
	slices.SortStableFunc(reasons, func(x, y string) int { return s.Dropped[y] - s.Dropped[x] })
	for _, r := range reasons {
		fmt.Fprintf(w, "  dropped %5d  %s\n", s.Dropped[r], r)
	}
	fmt.Fprintf(w, "manifest: %s\n", s.Manifest)
}

func byKind(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
