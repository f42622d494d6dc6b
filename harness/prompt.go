package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/harness/draft"
)

// systemPrompt is the action protocol and the rules the guards enforce.
func systemPrompt(cfg Config) string {
	var b strings.Builder
	b.WriteString("You are a careful coding agent working in a Python repository. You act one step at a time: each reply is one action, and the harness answers with its result.\n\n")
	b.WriteString(draft.Protocol())
	b.WriteString(`
Rules the harness enforces:
- READ a file before you PATCH it, and copy FIND blocks from the file as it is now.
- RUN tests after you change files, and before DONE.
- Write only the files the task names as targets, and keep the function you were asked to fix.
- Give new functions names that say what they do.
- If the code is already correct, DONE must quote the line that makes it so, in backticks.
`)
	return b.String()
}

// openingMessage is the task, its targets and names, and the repository
// map sized to a share of the budget.
func (r *runner) openingMessage(ctx context.Context) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\n", strings.TrimSpace(r.cfg.Task))
	if len(r.cfg.Targets) > 0 {
		fmt.Fprintf(&b, "Files to change: %s\n", strings.Join(r.cfg.Targets, ", "))
	}
	if len(r.cfg.Names) > 0 {
		fmt.Fprintf(&b, "Names that must be defined: %s\n", strings.Join(r.cfg.Names, ", "))
	}
	if r.cfg.Subject != "" {
		fmt.Fprintf(&b, "The function to fix: %s (keep it; change its body)\n", r.cfg.Subject)
	}
	if len(r.cfg.Scope) > 0 {
		fmt.Fprintf(&b, "You may read and write only: %s\n", strings.Join(r.cfg.Scope, ", "))
	}
	fmt.Fprintf(&b, "Tests: %s\n", suiteBaselineLine(r))
	b.WriteString("\n")
	// The map gets a quarter of the budget at most: the rest is for files
	// and results.
	m, _ := repoMap(r.ws.dir, r.scope, r.tok, r.budget/4, func(srcs []pySource) []pyModule {
		return r.pyModules(ctx, nil, srcs...) // before the first turn: on the run
	})
	b.WriteString(m)
	return b.String()
}

func suiteBaselineLine(r *runner) string {
	res := r.suiteBefore
	command := shownSuiteCommand(res.Command, r.suite.Python, r.suiteCommand())
	switch {
	case res.Counts.ExitStatusOnly && res.Passed():
		return fmt.Sprintf("the suite (%s) exits 0 now (only its exit status is read).", command)
	case res.Counts.ExitStatusOnly:
		return fmt.Sprintf("the suite (%s) does not pass now: %s (only its exit status is read)", command, res.FirstFailure())
	case res.Passed():
		return fmt.Sprintf("the suite (%s) passes now: %d tests.", command, res.Counts.Ran)
	case res.Counts.NoTests:
		return fmt.Sprintf("the suite (%s) runs no tests yet.", command)
	case len(res.Failures) == 0 || res.Counts.ImportError != "" || res.Counts.TimedOut:
		return fmt.Sprintf("the suite (%s) does not pass now: %s", command, res.FirstFailure())
	}
	return fmt.Sprintf("the suite (%s) does not pass now: %s", command, r.baselineFailuresLine())
}

// baselineFailuresLine says which tests fail before the task and whether
// the task must fix them: the run is judged against the baseline, so a
// test that fails now and still fails is not held against it unless the
// task names it. Every test the task names is listed, however many fail;
// the others are shown up to five.
func (r *runner) baselineFailuresLine() string {
	res := r.suiteBefore
	named := r.taskNamedBaselineFailures()
	var others []string
	for _, f := range res.Failures {
		if f.Test != "" && !slices.Contains(named, f.Test) && !slices.Contains(others, f.Test) {
			others = append(others, f.Test)
		}
	}
	shown := others
	more := ""
	if room := max(5-len(named), 0); len(shown) > room {
		more = fmt.Sprintf(" and %d more", len(shown)-room)
		shown = shown[:room]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d tests fail before the task: %s%s (first: %s).", len(named)+len(others), res.Counts.Ran,
		strings.Join(append(slices.Clone(named), shown...), ", "), more, res.FirstFailure())
	switch {
	case len(named) == 0:
		b.WriteString(" The task does not ask you to fix them; do not make any other test fail.")
	case len(others) == 0 && len(named) == 1:
		fmt.Fprintf(&b, " The task is about %s: make it pass, and no other test may start failing.", named[0])
	case len(others) == 0:
		fmt.Fprintf(&b, " The task is about all %d: make every one of them pass, and no other test may start failing.", len(named))
	default:
		fmt.Fprintf(&b, " The task names %s: make %s pass; the other %d failing %s need not change, and no other test may start failing.",
			strings.Join(named, ", "), map[bool]string{true: "it", false: "them all"}[len(named) == 1], len(others), map[bool]string{true: "test", false: "tests"}[len(others) == 1])
	}
	return b.String()
}

// shownSuiteCommand is the suite command as the model is shown it: the
// argument vector the baseline really ran (never the "{python}" template of
// a case), with the interpreter by its file name, since its directory is a
// fact of this machine that prompts, and the training data made of them,
// should not carry. Without a vector it falls back to the configured
// command, its template filled the same way.
func shownSuiteCommand(argv []string, python, configured string) string {
	if len(argv) == 0 {
		if python == "" {
			return configured
		}
		return strings.ReplaceAll(configured, "{python}", filepath.Base(python))
	}
	shown := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case python != "" && a == python:
			a = filepath.Base(a)
		case a == "" || strings.ContainsAny(a, " \t\n'\"\\"):
			a = strconv.Quote(a)
		}
		shown[i] = a
	}
	return strings.Join(shown, " ")
}
