package harness

import (
	"context"
	"io"
	"time"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// Chatter is what the harness needs of a model backend.
type Chatter interface {
	Chat(ctx context.Context, req model.Request) (model.Reply, error)
}

// Checker runs the checks that decide a run's verdict when there are any:
// a benchmark case's hidden checks, or a manifest's check command. It is
// given the workspace after the agent has ended.
type Checker interface {
	Check(ctx context.Context, workspace string) (schemas.Checks, error)
}

// A SuiteChecker is a Checker whose command may be the suite's own (a
// mined task's check is its whole suite). When it is, and the suite ran on
// the tree as the run left it, the check's verdict is that run's exit
// status: the same command on the same tree is not run again.
type SuiteChecker interface {
	Checker
	// RunsSuite reports whether the check's command is suite, the suite
	// command of the run's configuration.
	RunsSuite(suite string) bool
}

// Asker asks the person at the terminal (run --interactive).
type Asker func(ctx context.Context, question string) (string, error)

// Config is one run: a task on a repository with a model.
type Config struct {
	// RunID names the run; its trace is OutDir/runs/<RunID>.jsonl (or the
	// next attempt file).
	RunID string
	// OutDir receives runs/ and patches/.
	OutDir string

	Source string // bench, dogfood or adhoc
	CaseID string
	Tier   int
	Pass   int
	Tags   []string

	Repo    string
	RepoURL string
	// RepoLabel is what run_start records as the repository path when Repo
	// is a temporary copy (a benchmark fixture); Repo when empty.
	RepoLabel string
	// InPlace works in Repo itself instead of a copy.
	InPlace bool

	// TaskSpec is the task, its targets, names, subject, scope and suite
	// (empty detects the runner), checked by TaskSpec.Validate.
	schemas.TaskSpec
	Python string

	// MaxSteps is the step budget (20 when 0).
	MaxSteps int
	// StuckAfter stops the run (stop_reason stuck) when the same draft is
	// refused with the same code this many times in a row; 0 is
	// DefaultStuckAfter, and a negative value turns the rule off.
	StuckAfter int
	// Model is recorded on run_start; its Options are sent with every call.
	Model       schemas.Model
	NativeTools bool
	// Syntax is how the model writes its calls and reasoning, learned from
	// its chat template (Model.ChatSyntax records it); nil reads replies
	// by the general parser alone. The turn keeps the reply as the model
	// wrote it and the action read from it with this syntax.
	Syntax *draft.Syntax
	// Ask is set for --interactive; nil means nobody watches the run.
	Ask Asker
	// Checks decide the verdict when set (benchmark hidden checks or a
	// manifest check command).
	Checks Checker
	// SettleFirst runs Checks before the first model step: when they
	// already pass, the run ends with no model step (stop_reason
	// no-model-steps), judged like any other.
	SettleFirst bool

	SuiteTimeout time.Duration
	// Log receives one line per step as the run goes; nil for none.
	Log io.Writer
	Now func() time.Time
}

// StepSummary is what one step did, for comparing a replay with the run it
// replays.
type StepSummary struct {
	Step   int
	Verb   string
	Path   string
	Status schemas.Status
	Code   schemas.Code
}

// Result is what a run produced.
type Result struct {
	Start     schemas.RunStart
	End       schemas.RunEnd
	TracePath string
	PatchPath string
	// BrokeSuite names the file whose write broke a suite that passed at
	// baseline, when the run stopped for it.
	BrokeSuite string
	Warnings   []string
	Steps      []StepSummary
	// TurnWarnings counts the turns that carry each warning code
	// (context-full, context-truncated, context-overflow, …).
	TurnWarnings map[schemas.Code]int
}
