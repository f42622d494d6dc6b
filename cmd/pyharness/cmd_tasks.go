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
	"github.com/pyharness/pyharness/harness"
)

type tasksOptions struct {
	repo, out, python, suite string
	scope, kinds             []string
	max, jobs                int
	seed                     uint64
	maxFailing, perFunction  int
	historyDepth             int
	// writer is --writer's model; writerFlags its server's flags, as
	// run's --base-url and --api-key-env.
	writer      string
	writerFlags modelFlags
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
	fs.StringVar(&o.writer, "writer", "", "a model that rewrites each task's evidence as an issue (ollama:NAME, openai:NAME, scripted:FILE or replay:TRACE); its text is checked as the evidence is, and recorded as text_by")
	fs.StringVar(&o.writerFlags.baseURL, "base-url", "", "the writer's server base URL (ollama: default $OLLAMA_HOST; openai: required)")
	fs.StringVar(&o.writerFlags.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the openai writer's API key")
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
	if o.writer != "" {
		if _, err := parseModelSpec(o.writer); err != nil {
			return fmt.Errorf("tasks: --writer: %w", err)
		}
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
	writer, err := tasksWriter(ctx, a, o)
	if err != nil {
		return err
	}
	sum, err := mine.Run(ctx, mine.Options{Repo: o.repo, Out: o.out, Python: o.python, Suite: o.suite, Scope: o.scope,
		Kinds: o.kinds, Max: o.max, Jobs: o.jobs, Seed: o.seed, MaxFailing: o.maxFailing, PerFunction: o.perFunction,
		HistoryDepth: o.historyDepth, Writer: writer, Progress: progress, Now: a.now})
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

// tasksWriter is --writer's backend, built as run builds --model's, with
// the sampling seed of the mine: nil without --writer.
func tasksWriter(ctx context.Context, a *app, o tasksOptions) (*mine.Writer, error) {
	if o.writer == "" {
		return nil, nil
	}
	spec, err := parseModelSpec(o.writer)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: "tasks: --writer: " + err.Error()}
	}
	f := o.writerFlags
	f.numCtx, f.numPredict, f.seed = harness.DefaultNumCtx, harness.DefaultNumPredict, int(o.seed)
	be, err := openBackend(ctx, a, spec, &f)
	if err != nil {
		return nil, err
	}
	return &mine.Writer{Chat: be.chat, Name: spec.backend + ":" + spec.arg, Options: f.options()}, nil
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
	if len(s.Spent) > 0 {
		steps := slices.Sorted(maps.Keys(s.Spent))
		slices.SortStableFunc(steps, func(x, y string) int { return int(s.Spent[y] - s.Spent[x]) })
		var parts []string
		for _, st := range steps {
			parts = append(parts, fmt.Sprintf("%s %s", st, s.Spent[st].Round(time.Second)))
		}
		fmt.Fprintf(w, "time (summed over jobs): %s\n", strings.Join(parts, ", "))
	}
	if fell := sumValues(s.WriterFallbacks); s.Rewritten+fell > 0 {
		fmt.Fprintf(w, "writer: %d texts rewritten, %d left as the evidence", s.Rewritten, fell)
		for _, r := range slices.Sorted(maps.Keys(s.WriterFallbacks)) {
			fmt.Fprintf(w, "; %d %s", s.WriterFallbacks[r], r)
		}
		fmt.Fprintln(w)
	}
	reasons := slices.Sorted(maps.Keys(s.Dropped))
	slices.SortStableFunc(reasons, func(x, y string) int { return s.Dropped[y] - s.Dropped[x] })
	for _, r := range reasons {
		fmt.Fprintf(w, "  dropped %5d  %s\n", s.Dropped[r], r)
	}
	fmt.Fprintf(w, "manifest: %s\n", s.Manifest)
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
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
