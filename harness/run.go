package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// DefaultMaxSteps is the step budget of a run.
const DefaultMaxSteps = 20

// The model options a run is given when its configuration leaves them at
// zero; the commands' --num-ctx and --num-predict default to them too.
const (
	DefaultNumCtx     = 8192
	DefaultNumPredict = 1024
)

// truncatedShare is the share of the estimate below which a server's count
// of a prompt means it dropped part of it: a tokenizer that is merely
// sparser than the estimate's never counts this far below it.
const truncatedShare = 0.6

// feedback is what the harness sends back after a step.
type feedback struct {
	kind schemas.Kind
	code schemas.Code
	text string
}

// runner holds the state of one run.
type runner struct {
	// readWindow is the line window of the step's READ (":120-220"), for
	// its step line: the recorded action keeps the path only.
	readWindow string
	cfg        Config
	model      Chatter
	ws         *workspace
	scope      *scope
	suite      suite.Runner
	w          *trace.Writer
	tok        *tokenizer
	// window is the context window prompts are budgeted against: the
	// effective size of cfg.Model.Context, or num_ctx when none is known;
	// an overflow answer that states the server's window lowers it.
	window int
	budget int

	hist       []*histMsg
	prevPrompt []schemas.Message

	baseline    map[string]bool   // files present at baseline
	known       map[string]bool   // files read or written in this run: may be patched
	lastRead    map[string]string // path+window → content hash when last read
	applied     map[string]bool   // path+content hashes of writes applied
	repeats     int
	newModules  map[string]string // modules created in this run
	skillsRun   map[string]bool
	wrote       bool
	testsRan    bool // a suite run since the last write
	suiteBefore *suite.Result
	suiteLatest *suite.Result // nil when files changed since
	brokenBy    string
	brokenStep  int
	nativeTools bool
	py          *pyParser // reads Python definitions for the map and the name checks
	steps       []StepSummary
	warnings    []string
	modelSteps  int
	claimedDone bool
	stopReason  schemas.StopReason
	modelErr    string
	truncWarned bool
	fullWarned  bool
	turnCodes   map[schemas.Code]int
	stuck       stuckCount
}

// Run drives the model through the task, recording every turn, and returns
// the run's result. An error means the run could not be set up or recorded
// (no repository, an unwritable trace); a model that fails is a result with
// verdict error, and a cancelled context a result with verdict cancelled.
func Run(ctx context.Context, cfg Config, m Chatter) (*Result, error) {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StuckAfter == 0 {
		cfg.StuckAfter = DefaultStuckAfter
	}
	if cfg.Source == "" {
		cfg.Source = schemas.SourceAdhoc
	}
	if cfg.Model.Options.NumCtx <= 0 {
		cfg.Model.Options.NumCtx = DefaultNumCtx
	}
	if cfg.Model.Options.NumPredict <= 0 {
		cfg.Model.Options.NumPredict = DefaultNumPredict
	}
	if cfg.RunID == "" {
		return nil, errors.New("run: no run id")
	}
	if err := cfg.TaskSpec.Validate(); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	started := cfg.Now()
	r, err := newRunner(ctx, cfg, m)
	if err != nil {
		return nil, err
	}
	defer r.ws.close()
	// The suite before the task runs before anything is recorded: an ad
	// hoc run whose suite cannot judge it stops here, with the message
	// collect refuses such a manifest entry with, and no model is called.
	if r.suiteBefore, err = r.runSuite(ctx); err != nil {
		return nil, err
	}
	r.suiteLatest = r.suiteBefore
	if cfg.Source == schemas.SourceAdhoc {
		b := Baseline{Result: r.suiteBefore, Given: cfg.Suite, Detected: suite.Detect(r.ws.dir), Python: r.suite.Python}
		if err := b.Check(); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	}

	w, err := trace.Create(filepath.Join(cfg.OutDir, trace.RunsDir), cfg.RunID)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r.w = w
	res := &Result{TracePath: w.Path(), Start: r.runStart(started, w.Attempt())}
	if err := w.Write(schemas.Record{RunStart: &res.Start}); err != nil {
		return nil, err
	}
	if r.suiteBefore.Counts.ExitStatusOnly {
		w := fmt.Sprintf("the suite's runner cannot be told from its command (%s) nor from its output: the run is judged by the suite's exit status alone, with no test counted or named",
			shownSuiteCommand(r.suiteBefore.Command, r.suite.Python, r.suiteCommand()))
		r.logf("warning: %s", w)
		r.warnings = append(r.warnings, w)
	}
	settled, err := r.settledAtBaseline(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Source == schemas.SourceAdhoc && !settled {
		// What collect checks of a manifest entry, said before the first
		// model call of an ad hoc run, on the log and in the summary.
		for _, w := range r.beforeModel() {
			r.logf("warning: %s", w)
			r.warnings = append(r.warnings, w)
		}
	}
	if settled {
		r.stopReason = schemas.StopNoModelSteps
	} else if err := r.loop(ctx); err != nil {
		return nil, err
	}
	end, err := r.finish(ctx, started)
	if err != nil {
		return nil, err
	}
	res.End = *end
	if end.StopReason == schemas.StopBrokeSuite {
		res.BrokeSuite = r.brokenBy
	}
	res.Warnings = r.warnings
	res.Steps = r.steps
	res.TurnWarnings = r.turnCodes
	if res.PatchPath, err = r.writePatch(end.Patch); err != nil {
		return nil, err
	}
	if err := w.Write(schemas.Record{RunEnd: end}); err != nil {
		return nil, err
	}
	return res, w.Close()
}

// newRunner sets up a run: its workspace (a copy of the repository unless
// in place), its scope, the context window it budgets prompts against,
// and the suite's runner with its interpreter. A suite that cannot start
// is said here, before anything is recorded: no trace of one record that
// validate and export call incomplete.
func newRunner(ctx context.Context, cfg Config, m Chatter) (r *runner, err error) {
	ws, err := newWorkspace(ctx, cfg.Repo, cfg.InPlace, cfg.OutDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ws.close()
		}
	}()
	sc, err := newScope(ws.dir, cfg.Scope)
	if err != nil {
		return nil, err
	}
	sc.outRel = ws.outRel
	window, source := cfg.Model.Options.NumCtx, "num_ctx"
	if c := cfg.Model.Context; c != nil && c.Effective > 0 {
		window, source = c.Effective, "the effective context ("+c.Source+")"
	}
	r = &runner{
		cfg: cfg, model: m, ws: ws, scope: sc, tok: newTokenizer(),
		window:      window,
		budget:      window - cfg.Model.Options.NumPredict,
		turnCodes:   map[schemas.Code]int{},
		baseline:    map[string]bool{},
		known:       map[string]bool{},
		lastRead:    map[string]string{},
		applied:     map[string]bool{},
		newModules:  map[string]string{},
		skillsRun:   map[string]bool{},
		nativeTools: cfg.NativeTools,
	}
	if r.budget < model.MinPromptTokens {
		return nil, fmt.Errorf("run: %s %d minus num_predict %d leaves %d tokens for the prompt; at least %d are needed",
			source, window, cfg.Model.Options.NumPredict, r.budget, model.MinPromptTokens)
	}
	r.warnings = append(r.warnings, ContextWarnings(cfg.Model)...)
	for _, f := range listFiles(ws.dir, nil) {
		r.baseline[f] = true
	}
	// The runner is the one the suite's command starts, whatever the
	// repository looks like; with no command, the one Detect picks.
	r.suite = suite.Runner{Kind: suite.KindOf(cfg.Suite, ws.dir), Command: cfg.Suite, Python: cfg.Python, Timeout: cfg.SuiteTimeout}
	if r.suite.Kind != suite.GoTest {
		py, err := suite.FindPython(ctx, cfg.Python, r.suite.Kind == suite.Pytest)
		if err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
		r.suite.Python = py
	}
	if err := r.suite.Check(ctx, ws.dir); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	r.py = newPyParser(r.suite.Python, func(ctx context.Context) (string, error) { return suite.FindPython(ctx, cfg.Python, false) })
	return r, nil
}

// runStart is the run's first record: everything a replay of it needs.
func (r *runner) runStart(started time.Time, attempt int) schemas.RunStart {
	cfg := r.cfg
	return schemas.RunStart{
		Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: cfg.RunID, Attempt: attempt,
		Source: cfg.Source, CaseID: cfg.CaseID, Tier: cfg.Tier, Pass: cfg.Pass, Model: cfg.Model,
		Harness: schemas.Harness(version.Harness()), Task: cfg.Task, Targets: cfg.Targets, Names: cfg.Names, Subject: cfg.Subject,
		Scope: cfg.Scope, Suite: r.suiteCommand(), Python: r.suite.Python,
		Repo: schemas.Repo{Path: cmp.Or(cfg.RepoLabel, r.ws.source), Commit: r.ws.commit, URL: cfg.RepoURL}, MaxSteps: cfg.MaxSteps,
		NativeTools: cfg.NativeTools, Interactive: cfg.Ask != nil, Tags: cfg.Tags, StartedAt: started.UTC(),
	}
}

// writePatch writes the run's patch to OUT/patches/<run_id>.diff and
// returns its path; "" when the run changed nothing.
func (r *runner) writePatch(patch string) (string, error) {
	if patch == "" {
		return "", nil
	}
	dir := filepath.Join(r.cfg.OutDir, "patches")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write patch: %w", err)
	}
	path := filepath.Join(dir, r.cfg.RunID+".diff")
	if err := os.WriteFile(path, []byte(patch), 0o644); err != nil {
		return "", fmt.Errorf("write patch: %w", err)
	}
	return path, nil
}

// settledAtBaseline reports whether the harness's own checks settle the
// run before any model step: with SettleFirst, a task whose check command
// already passes, on a suite that passes and with every required name
// defined, has nothing left to do.
func (r *runner) settledAtBaseline(ctx context.Context) (bool, error) {
	if !r.cfg.SettleFirst || r.cfg.Checks == nil || !r.suiteBefore.Passed() || len(r.missingNames(ctx, nil)) > 0 {
		return false, nil
	}
	if c, same := r.checkFromSuite(r.suiteBefore); same {
		return c.Passed, nil
	}
	c, err := r.cfg.Checks.Check(ctx, r.ws.dir)
	if err != nil {
		return false, fmt.Errorf("run checks at baseline: %w", err)
	}
	return c.Passed, nil
}

func (r *runner) suiteCommand() string {
	if r.cfg.Suite != "" {
		return r.cfg.Suite
	}
	return string(r.suite.Kind)
}

func (r *runner) abs(rel string) string { return filepath.Join(r.ws.dir, filepath.FromSlash(rel)) }

func (r *runner) runSuite(ctx context.Context) (*suite.Result, error) {
	// suite.Run's errors already say "run suite".
	return r.suite.Run(ctx, r.ws.dir)
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", args...)
	}
}

// loop takes steps until a stop rule, an accepted DONE, or the budget.
func (r *runner) loop(ctx context.Context) error {
	r.hist = []*histMsg{
		{msg: schemas.Message{Role: "system", Content: systemPrompt(r.cfg)}, kind: "system", protects: true},
	}
	opening := r.openingMessage(ctx)
	next := feedback{kind: schemas.KindOpening, text: opening}
	var prevReply *schemas.Reply
	var prevVia string
	for step := 1; step <= r.cfg.MaxSteps; step++ {
		if ctx.Err() != nil {
			r.stopReason = schemas.StopCancelled
			return nil
		}
		if prevReply != nil {
			am := schemas.Message{Role: "assistant", Content: prevReply.Content, ToolCalls: prevReply.ToolCalls}
			r.hist = append(r.hist, &histMsg{msg: am, kind: "reply", ref: fmt.Sprintf("step %d", step-1)})
		}
		role := "user"
		if prevVia == draft.ViaToolCall {
			role = "tool"
		}
		kind := "result"
		if step == 1 {
			kind = "opening"
		}
		r.hist = append(r.hist, &histMsg{msg: schemas.Message{Role: role, Content: next.text}, kind: kind, ref: fmt.Sprintf("step %d", step-1)})

		turn, fb, err := r.step(ctx, step, next)
		if err != nil {
			return err
		}
		if err := r.w.Write(schemas.Record{Turn: turn}); err != nil {
			return err
		}
		r.steps = append(r.steps, StepSummary{Step: step, Verb: turn.Action.Verb, Path: turn.Action.Path, Status: turn.Outcome.Status, Code: turn.Outcome.Code})
		r.logf("step %2d  %-6s %-28s %s %s", step, turn.Action.Verb, turn.Action.Path+r.readWindow, turn.Outcome.Status, turn.Outcome.Code)
		r.readWindow = ""
		if r.stopReason == "" && r.cfg.StuckAfter > 0 && r.stuck.see(turn, r.cfg.Syntax) >= r.cfg.StuckAfter {
			r.stopReason = schemas.StopStuck
			r.logf("stopped: stuck, the same draft refused %s %d times in a row", r.stuck.code, r.stuck.times)
		}
		if r.stopReason != "" {
			return nil
		}
		next = fb
		prevReply = &turn.Reply
		prevVia = turn.Action.Via
	}
	r.stopReason = schemas.StopBudget
	return nil
}

// step sends one prompt, reads the reply, and acts on it.
func (r *runner) step(ctx context.Context, step int, sent feedback) (*schemas.Turn, feedback, error) {
	t := &schemas.Turn{RunID: r.cfg.RunID, Step: step, StartedAt: r.cfg.Now().UTC(), ModelStep: true}
	t.Sent.Kind, t.Sent.Code = sent.kind, sent.code
	prompt, elided, replaced := fit(r.hist, r.tok, r.budget)
	t.Sent.Elided = elided
	t.Sent.PromptHash = schemas.PromptHash(prompt)
	t.Sent.PromptTokensEstimate = r.tok.messages(prompt)
	if !replaced && len(r.prevPrompt) <= len(prompt) && slices.EqualFunc(r.prevPrompt, prompt[:len(r.prevPrompt)], messageEqual) {
		t.Sent.Messages = slices.Clone(prompt[len(r.prevPrompt):])
	} else {
		t.Sent.Replaced = true
		t.Sent.Messages = slices.Clone(prompt)
	}
	r.prevPrompt = prompt

	reply, prompt, stuck, err := r.ask(ctx, t, prompt)
	t.Reply = reply.Reply
	t.Metrics = reply.Metrics
	t.Warnings = append(t.Warnings, reply.Warnings...)
	defer r.countWarnings(t)
	if err != nil {
		t.EndedAt = r.cfg.Now().UTC()
		t.Action = schemas.Action{Shape: "none"}
		code, msg := schemas.Code("model-error"), err.Error()
		var merr *model.Error
		if errors.As(err, &merr) {
			code = schemas.Code(merr.Code)
		}
		if ctx.Err() != nil {
			r.stopReason = schemas.StopCancelled
			t.Outcome = schemas.Outcome{Status: schemas.StatusStopped, Code: "cancelled", Message: "the run was cancelled"}
			return t, feedback{}, nil
		}
		if stuck != "" {
			msg = fmt.Sprintf("the server refused the prompt as longer than its context window, and %s (%s)", stuck, err)
		}
		r.stopReason = schemas.StopModelError
		r.modelErr = msg
		t.Outcome = schemas.Outcome{Status: schemas.StatusFailed, Code: code, Message: msg}
		return t, feedback{}, nil
	}
	r.modelSteps++
	truncated := r.checkPrompt(t, prompt, reply)
	r.checkContextFull(t)

	fb := r.act(ctx, t)
	if truncated && t.Outcome.Code == "" {
		t.Outcome.Code = schemas.CodeContextTruncated
	}
	t.EndedAt = r.cfg.Now().UTC()
	return t, fb, nil
}

func messageEqual(a, b schemas.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && len(a.ToolCalls) == len(b.ToolCalls)
}

// beforeModel is what an ad hoc run's configuration looks like it got
// wrong, found before the model is called: a scope glob that matches no
// file, or a target that is not in the repository (a typo, or a file the
// task is to create). A suite that cannot judge the run has stopped it
// before this (Baseline.Check).
func (r *runner) beforeModel() []string {
	var out []string
	if all, err := newScope(r.ws.dir, nil); err == nil && len(r.cfg.Scope) > 0 {
		all.outRel = r.ws.outRel
		files := listFiles(r.ws.dir, all)
		for _, g := range r.cfg.Scope {
			sc, err := newScope(r.ws.dir, []string{g})
			if err != nil {
				continue
			}
			if !slices.ContainsFunc(files, sc.inGlobs) {
				out = append(out, fmt.Sprintf("--scope %s matches no file of the repository: the run can read nothing there (right for a file the task creates)", g))
			}
		}
	}
	for _, t := range r.cfg.Targets {
		if _, err := os.Stat(r.abs(t)); err != nil {
			out = append(out, fmt.Sprintf("--target %s is not in the repository: the run is to create it", t))
		}
	}
	return out
}
