package harness

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// maxWriteBytes is the largest file a WRITE or PATCH may leave: more is no
// source file a model writes, and would fill the trace and the patch.
const maxWriteBytes = 1 << 20

// EmptyReplyMessage is what the model is told of an empty reply (code
// empty-reply), one that spent itself thinking or not.
func EmptyReplyMessage(thought bool) string {
	msg := "Your reply was empty"
	if thought {
		msg += " (you spent it thinking)"
	}
	return msg + ". Reply with one action, e.g. READ path or RUN tests."
}

// act parses the reply, applies the action through the guards, fills in
// the turn's action and outcome, and returns what to send back.
func (r *runner) act(ctx context.Context, t *schemas.Turn) feedback {
	// Reasoning first: it is recorded apart, never read for an action, and
	// a reply that ended inside it has no answer to read.
	syn := r.cfg.Syntax.ForReply(t.Reply)
	answer, reasoning := draft.ReadReasoningWith(syn, t.Reply)
	if reasoning != nil {
		reasoning.Tokens = r.tok.text(reasoning.Text)
		t.Reasoning = reasoning
		if reasoning.Cut && len(t.Reply.ToolCalls) == 0 {
			t.Action = schemas.Action{Shape: "none", Repairs: []string{}}
			return r.refuse(t, schemas.CodeReasoningCut, fmt.Sprintf("%s (about %d tokens of reasoning).", draft.ReasoningCutMessage, reasoning.Tokens))
		}
	}
	if strings.TrimSpace(answer) == "" && len(t.Reply.ToolCalls) == 0 {
		t.Action = schemas.Action{Shape: "none"}
		return r.refuse(t, schemas.CodeEmptyReply, EmptyReplyMessage(reasoning != nil))
	}
	a, err := draft.ParseWith(syn, t.Reply.Content, t.Reply.ToolCalls)
	t.Action = draft.Record(a, err, t.Reply.Content)
	if err != nil {
		return r.draftRefused(t, err)
	}
	a, refused := r.resolveDraft(t, a)
	if refused != nil {
		return *refused
	}
	fb := readAs(t, a, r.apply(ctx, t, a))
	if r.brokenBy != "" && r.stopReason == "" && t.Step > r.brokenStep {
		// The step after the suite broke: it must be restored by now.
		res := r.suiteLatest
		var runErr error
		if res == nil {
			if res, runErr = r.runSuite(ctx); runErr == nil {
				r.suiteLatest = res
			}
		}
		switch {
		case runErr != nil:
			// Nothing is known of the suite: say so, and keep the check
			// for the next step rather than call the suite restored.
			w := fmt.Sprintf("%s: the suite could not run at step %d to check the break by %s: %v", schemas.CodeSuiteNotRun, t.Step, r.brokenBy, runErr)
			t.Warnings = append(t.Warnings, w)
			r.warnings = append(r.warnings, w)
			fb.text += fmt.Sprintf("\nThe test suite could not run (%v), so whether your change restored it is not known. It is checked again after your next step.", runErr)
		case !res.Passed():
			r.stopReason = schemas.StopBrokeSuite
			t.Outcome.Status = schemas.StatusStopped
			t.Outcome.Code = schemas.CodeBrokeSuite
			t.Outcome.Message = fmt.Sprintf("the suite passed at baseline and still fails after %s broke it: %s", r.brokenBy, res.FirstFailure())
		default:
			r.brokenBy = ""
			fb.text += "\nThe test suite passes again."
		}
	}
	return fb
}

func (r *runner) refuse(t *schemas.Turn, code schemas.Code, msg string) feedback {
	t.Outcome = schemas.Outcome{Status: schemas.StatusRefused, Code: code, Message: msg}
	return feedback{kind: schemas.KindRefusalOrNudge, code: code, text: fmt.Sprintf("REFUSED (%s): %s", code, msg)}
}

func (r *runner) result(t *schemas.Turn, text string) feedback {
	t.Outcome.Status = schemas.StatusApplied
	return feedback{kind: schemas.KindToolResult, text: text}
}

func (r *runner) apply(ctx context.Context, t *schemas.Turn, a draft.Action) feedback {
	switch a.Verb {
	case draft.VerbRead:
		return r.read(t, a)
	case draft.VerbWrite:
		return r.writeFile(ctx, t, a.Path, a.Body)
	case draft.VerbPatch:
		if len(a.Hunks) > 0 {
			return r.patchHunks(ctx, t, a)
		}
		return r.patch(ctx, t, a)
	case draft.VerbRun:
		return r.runTests(ctx, t)
	case draft.VerbSkill:
		key := a.Skill + " " + strings.Join(a.Args, " ")
		if r.skillsRun[key] {
			return r.refuse(t, schemas.CodeSkillRepeated, fmt.Sprintf("you already ran SKILL %s; its answer has not changed. Use what it told you.", key))
		}
		out, err := r.runSkill(ctx, t, a.Skill, a.Args)
		if err != nil {
			if errors.Is(err, errOutsideScope) {
				return r.refuse(t, schemas.CodeOutsideScope, err.Error())
			}
			return r.refuse(t, schemas.CodeBadSkill, err.Error())
		}
		r.skillsRun[key] = true
		return r.result(t, out)
	case draft.VerbAsk:
		if r.wrote {
			return r.refuse(t, schemas.CodeTooLateToAsk, "files have already changed; it is too late to ask. Finish the task with what you know.")
		}
		if r.cfg.Ask == nil {
			return r.refuse(t, schemas.CodeNoAnswer, "nobody is watching this run, so no one can answer. Decide for yourself and go on.")
		}
		answer, err := r.cfg.Ask(ctx, a.Text)
		if err != nil || strings.TrimSpace(answer) == "" {
			return r.refuse(t, schemas.CodeNoAnswer, "no answer came. Decide for yourself and go on.")
		}
		return r.result(t, "The person answered: "+answer)
	case draft.VerbDone:
		return r.done(ctx, t, a)
	}
	t.Outcome = schemas.Outcome{Status: schemas.StatusRefused, Code: schemas.CodeParseFailed, Message: "unknown action " + a.Verb}
	return feedback{kind: schemas.KindParseFailure, code: schemas.CodeParseFailed, text: "unknown action " + a.Verb}
}

// read shows a file, or a window of a long one.
func (r *runner) read(t *schemas.Turn, a draft.Action) feedback {
	rel, err := r.scope.resolve(a.Path)
	if err != nil {
		return r.refuseScope(t, err)
	}
	t.Action.Path = rel
	if a.Start > 0 {
		r.readWindow = fmt.Sprintf(":%d", a.Start)
		if a.End > 0 {
			r.readWindow += fmt.Sprintf("-%d", a.End)
		}
	}
	src, err := readRegular(r.abs(rel))
	if err != nil {
		return r.refuse(t, schemas.CodeNoSuchFile, fmt.Sprintf("%s does not exist. %s", rel, r.nearNames(rel)))
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	start, end := a.Start, a.End
	if start <= 0 {
		start = 1
	}
	// A window holds what a quarter of the prompt budget allows.
	maxLines := 400
	if per := r.tok.text(string(src)) / max(len(lines), 1); per > 0 {
		maxLines = min(maxLines, max(40, r.budget/4/per))
	}
	if end <= 0 || end > len(lines) {
		end = len(lines)
	}
	if end-start+1 > maxLines {
		end = start + maxLines - 1
	}
	if start > len(lines) {
		return r.refuse(t, schemas.CodeNoSuchFile, fmt.Sprintf("%s has %d lines; there is no line %d.", rel, len(lines), start))
	}
	key := fmt.Sprintf("%s:%d-%d", rel, start, end)
	sum := hashString(string(src))
	if r.lastRead[key] == sum {
		return r.refuse(t, schemas.CodeRepeatRead, fmt.Sprintf("you already read %s and it has not changed since. Use what you read.", key))
	}
	r.lastRead[key] = sum
	r.known[rel] = true
	var b strings.Builder
	fmt.Fprintf(&b, "%s (lines %d-%d of %d):\n```%s\n%s\n```", rel, start, end, len(lines), draft.FenceTag(rel), strings.Join(lines[start-1:end], "\n"))
	if end < len(lines) {
		fmt.Fprintf(&b, "\nThe file goes on: READ %s:%d-%d for more.", rel, end+1, min(len(lines), end+maxLines))
	}
	return r.result(t, b.String())
}

func (r *runner) nearNames(rel string) string {
	base := filepath.Base(rel)
	var near []string
	for _, f := range listFiles(r.ws.dir, r.scope) {
		if filepath.Base(f) == base || strings.Contains(f, strings.TrimSuffix(base, filepath.Ext(base))) {
			near = append(near, f)
		}
	}
	if len(near) == 0 {
		return "Names are relative to the repository root; see the repository map."
	}
	if len(near) > 5 {
		near = near[:5]
	}
	return "Did you mean " + strings.Join(near, ", ") + "?"
}

func (r *runner) refuseScope(t *schemas.Turn, err error) feedback {
	if errors.Is(err, errOutsideScope) {
		return r.refuse(t, schemas.CodeOutsideScope, err.Error())
	}
	return r.refuse(t, schemas.CodeNoSuchFile, err.Error())
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return string(h[:])
}

// patch applies a FIND/REPLACE to a file the model has read.
func (r *runner) patch(ctx context.Context, t *schemas.Turn, a draft.Action) feedback {
	rel, err := r.scope.resolve(a.Path)
	if err != nil {
		return r.refuseScope(t, err)
	}
	t.Action.Path = rel
	// The same patch again (seed #340: one block appended over and over):
	// refused, and a second repeat ends the run.
	draftKey := "patch\x00" + rel + "\x00" + a.Find + "\x00" + a.Replace
	if r.applied[draftKey] {
		return r.repeat(t, rel)
	}
	if !r.known[rel] {
		return r.refuse(t, schemas.CodeReadBeforePatch, fmt.Sprintf("READ %s before you PATCH it: a FIND block must be copied from the file as it is now.", rel))
	}
	src, err := readRegular(r.abs(rel))
	if err != nil {
		return r.refuse(t, schemas.CodeNoSuchFile, fmt.Sprintf("%s does not exist; use WRITE to create it.", rel))
	}
	old := string(src)
	find := a.Find
	if n := strings.Count(old, find); n > 1 && find != "" {
		return r.refuse(t, schemas.CodeFindAmbiguous, fmt.Sprintf("the FIND block is in %s %d times; copy more lines around the place to change, so that it matches once.", rel, n))
	}
	idx := strings.Index(old, find)
	if idx < 0 || find == "" {
		// Tolerate trailing-space differences only: anything more is a FIND
		// block written from memory.
		if i, n := indexLoose(old, find); i >= 0 && find != "" {
			idx, find = i, old[i:i+n]
			t.Action.Repairs = append(t.Action.Repairs, "find-trailing-space")
		} else {
			return r.refuse(t, schemas.CodeFindNotFound, fmt.Sprintf("the FIND block is not in %s. Copy it exactly from the file as it is now (READ %s to see it).", rel, rel))
		}
	}
	replace, filled, err := draft.MergeElided(find, a.Replace)
	if err != nil {
		return r.refuse(t, schemas.CodeElidedWrite, fmt.Sprintf("your REPLACE block for %s leaves out lines of the FIND block: %v. Nothing was written. Write every line the REPLACE block keeps.", rel, err))
	}
	updated := old[:idx] + replace + old[idx+len(find):]
	fb := r.changeFile(ctx, t, rel, old, updated)
	if len(t.Outcome.FilesChanged) > 0 {
		r.applied[draftKey] = true
	}
	return elidedMerged(t, fb, filled, "PATCH "+rel+" with a REPLACE block that writes every line")
}

// repeat refuses a change already applied, and stops the run at the
// second repeat: the model is going round in circles.
func (r *runner) repeat(t *schemas.Turn, rel string) feedback {
	r.repeats++
	if r.repeats >= 2 {
		r.stopReason = schemas.StopRepeatPatch
		t.Outcome = schemas.Outcome{Status: schemas.StatusStopped, Code: schemas.CodeRepeatPatch,
			Message: fmt.Sprintf("the same change to %s was sent again after being refused as a repeat: the run stops here", rel)}
		return feedback{}
	}
	return r.refuse(t, schemas.CodeRepeatPatch, fmt.Sprintf("this exact change to %s is already applied. Do something else: RUN tests, or DONE if the task is done.", rel))
}

// indexLoose finds needle in s ignoring trailing spaces on each line,
// returning the byte offset and length of the match in s.
func indexLoose(s, needle string) (int, int) {
	trim := func(x string) string {
		ls := strings.Split(x, "\n")
		for i := range ls {
			ls[i] = strings.TrimRight(ls[i], " \t")
		}
		return strings.Join(ls, "\n")
	}
	n := trim(needle)
	if n == "" {
		return -1, 0
	}
	lines := strings.Split(s, "\n")
	nl := strings.Count(n, "\n") + 1
	off := 0
	for i := 0; i+nl <= len(lines); i++ {
		chunk := strings.Join(lines[i:i+nl], "\n")
		if trim(chunk) == n {
			return off, len(chunk)
		}
		off += len(lines[i]) + 1
	}
	return -1, 0
}

// writeFile is a WRITE: the whole content of a file, new or not. What it
// replaces is read from the disk once the guards on the content passed.
func (r *runner) writeFile(ctx context.Context, t *schemas.Turn, name, body string) feedback {
	rel, fb, ok := r.checkContent(t, name, body)
	if !ok {
		return fb
	}
	old, verb := "", "Created"
	if b, err := readRegular(r.abs(rel)); err == nil {
		old = string(b)
	}
	if old != "" {
		verb = "Wrote"
	}
	body, filled, err := draft.MergeElided(old, body)
	if err != nil {
		return r.refuse(t, schemas.CodeElidedWrite, fmt.Sprintf("your WRITE of %s leaves existing code out: %v. Nothing was written. Send the whole file, every line of it, or a PATCH with FIND/REPLACE blocks for the part you change.", rel, err))
	}
	fb = r.store(ctx, t, rel, old, body, verb)
	return elidedMerged(t, fb, filled, "WRITE "+rel+" with the whole file")
}

// elidedMerged records a write whose elided regions were filled back in
// from the file, and tells the model what was applied, in this protocol's
// form.
func elidedMerged(t *schemas.Turn, fb feedback, filled int, canonical string) feedback {
	if filled == 0 {
		return fb
	}
	t.Action.Repairs = append(t.Action.Repairs, draft.RepairMergeElided)
	if fb.text != "" {
		fb.text += fmt.Sprintf("\nRead as: %s: the %d part(s) you marked as left out were kept from the file as they were. Next time send every line.", canonical, filled)
	}
	return fb
}

// changeFile is a PATCH: the new content of a file the model has read, and
// the content it had.
func (r *runner) changeFile(ctx context.Context, t *schemas.Turn, name, old, body string) feedback {
	rel, fb, ok := r.checkContent(t, name, body)
	if !ok {
		return fb
	}
	return r.store(ctx, t, rel, old, body, "Wrote")
}

// checkContent resolves the path of a new file content and checks the
// content against the guards that need no other version: a target, not too
// large, text. It returns the path, or the refusal and false.
func (r *runner) checkContent(t *schemas.Turn, name, body string) (string, feedback, bool) {
	rel, err := r.scope.resolve(name)
	if err != nil {
		return "", r.refuseScope(t, err), false
	}
	t.Action.Path = rel
	if len(r.cfg.Targets) > 0 && !slices.Contains(r.cfg.Targets, rel) {
		return "", r.refuse(t, schemas.CodeWrongFile, fmt.Sprintf("%s is not a file this task changes. The targets are: %s.", rel, strings.Join(r.cfg.Targets, ", "))), false
	}
	if len(body) > maxWriteBytes {
		return "", r.refuse(t, schemas.CodeTooLarge, fmt.Sprintf("this would make %s %d bytes; a file may have at most %d. Write less.", rel, len(body), maxWriteBytes)), false
	}
	if strings.ContainsRune(body, 0) || !utf8.ValidString(body) {
		return "", r.refuse(t, schemas.CodeNotText, fmt.Sprintf("the content for %s is not text (it holds a NUL byte or is not valid UTF-8). Write source code only.", rel)), false
	}
	return rel, feedback{}, true
}

// store checks a new content of rel against the guards that compare it
// with the old one and with the run's other writes, writes it, and tells
// the model what it did (verb: Created or Wrote).
func (r *runner) store(ctx context.Context, t *schemas.Turn, rel, old, body, verb string) feedback {
	if fixed, ok := wrapTestClass(rel, body); ok {
		body = fixed
		t.Action.Repairs = append(t.Action.Repairs, schemas.RepairWrapTestClass)
	}
	key := rel + "\x00" + hashString(body)
	if r.applied[key] {
		return r.repeat(t, rel)
	}
	if body == old && old != "" {
		return r.refuse(t, schemas.CodeRepeatPatch, fmt.Sprintf("this leaves %s exactly as it is. Change something, or RUN tests.", rel))
	}
	if strings.HasSuffix(rel, ".py") {
		mods := r.pyCompared(ctx, t, pySource{name: rel + " as it was", text: old}, pySource{name: rel, text: body})
		if r.cfg.Subject != "" && mods[0].names[r.cfg.Subject] && !mods[1].names[r.cfg.Subject] {
			return r.refuse(t, schemas.CodeDeletedSubject, fmt.Sprintf("this removes %s from %s, the function you were asked to fix. Keep it, and change its body.", r.cfg.Subject, rel))
		}
		if vague := newVagueNames(mods[0], mods[1]); len(vague) > 0 {
			return r.refuse(t, schemas.CodeVagueName, fmt.Sprintf("the name %s says nothing about what it does. Name it for its job.", strings.Join(vague, ", ")))
		}
		if !r.baseline[rel] && !isTestFile(rel) {
			for other, src := range r.newModules {
				if other == rel {
					continue
				}
				pair := r.pyCompared(ctx, t, pySource{name: other, text: src}, pySource{name: rel, text: body})
				if shared := sameDefinitions(pair[0], pair[1]); shared != nil {
					return r.refuse(t, schemas.CodeModuleTwice, fmt.Sprintf("%s defines %s again, which %s already does. Keep one module: change %s instead.", rel, strings.Join(shared, ", "), other, other))
				}
			}
		}
	}
	full := r.abs(rel)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return r.failed(t, fmt.Sprintf("create the folder of %s: %v", rel, err))
	}
	if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
		return r.failed(t, fmt.Sprintf("write %s: %v", rel, err))
	}
	r.applied[key] = true
	if !r.baseline[rel] && strings.HasSuffix(rel, ".py") && !isTestFile(rel) {
		r.newModules[rel] = body
	}
	r.wrote, r.testsRan, r.known[rel] = true, false, true
	r.suiteLatest = nil
	t.Outcome.FilesChanged = []string{rel}
	added, removed := lineDelta(old, body)
	fb := r.result(t, fmt.Sprintf("%s %s (+%d -%d lines). RUN tests to check it.", verb, rel, added, removed))
	if !r.suiteBefore.Passed() || r.brokenBy != "" {
		return fb
	}
	res, err := r.runSuite(ctx)
	if err != nil {
		// Whether this write broke the suite is not known: say so on the
		// turn and the run rather than pass over it.
		w := fmt.Sprintf("%s: the suite could not run after step %d wrote %s, so whether the write broke it is not known: %v", schemas.CodeSuiteNotRun, t.Step, rel, err)
		t.Warnings = append(t.Warnings, w)
		r.warnings = append(r.warnings, w)
		return fb
	}
	r.suiteLatest = res
	if res.Passed() {
		return fb
	}
	r.brokenBy, r.brokenStep = rel, t.Step
	t.Outcome.Code = schemas.CodeSuiteBroken
	t.Outcome.Message = fmt.Sprintf("the suite passed before this write and fails after it: %s", res.FirstFailure())
	return feedback{kind: schemas.KindRefusalOrNudge, code: schemas.CodeSuiteBroken,
		text: fmt.Sprintf("%s\nSUITE BROKEN (%s): the test suite passed before you wrote %s and fails now:\n%s\nRestore it in your next step, or the run stops.",
			fb.text, schemas.CodeSuiteBroken, rel, suiteReport(res))}
}

func (r *runner) failed(t *schemas.Turn, msg string) feedback {
	t.Outcome = schemas.Outcome{Status: schemas.StatusFailed, Message: msg}
	return feedback{kind: schemas.KindToolResult, text: "FAILED: " + msg}
}

// lineDelta counts lines added and removed between two versions, by
// multiset difference of lines (good enough for a one-line summary; the
// patch is exact).
func lineDelta(old, new string) (added, removed int) {
	count := map[string]int{}
	if old != "" {
		for _, l := range strings.Split(strings.TrimSuffix(old, "\n"), "\n") {
			count[l]++
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(new, "\n"), "\n") {
		if count[l] > 0 {
			count[l]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

func (r *runner) runTests(ctx context.Context, t *schemas.Turn) feedback {
	res := r.suiteLatest
	if res == nil {
		var err error
		if res, err = r.runSuite(ctx); err != nil {
			return r.failed(t, err.Error())
		}
		r.suiteLatest = res
	}
	r.testsRan = true
	return r.result(t, suiteReport(res))
}

// suiteReport is what the model is told of a suite run: the counts, the
// failures, and the head and tail of the output.
func suiteReport(res *suite.Result) string {
	c := res.Counts
	var b strings.Builder
	switch {
	case c.ExitStatusOnly && res.Passed():
		b.WriteString("Tests: the suite exited 0 (its runner is not known: only its exit status is read).")
	case c.ExitStatusOnly:
		fmt.Fprintf(&b, "Tests: %s (its runner is not known: only its exit status is read).", res.FirstFailure())
	case res.Passed():
		fmt.Fprintf(&b, "Tests: %d ran, all passed.", c.Ran)
	case c.TimedOut:
		fmt.Fprintf(&b, "Tests: %s.", res.FirstFailure())
	case c.NoTests:
		b.WriteString("Tests: no tests ran (a suite that ran nothing has not passed).")
	case c.ImportError != "":
		fmt.Fprintf(&b, "Tests: import failed: %s", c.ImportError)
	default:
		fmt.Fprintf(&b, "Tests: %d ran, %d failed, %d errors.", c.Ran, c.Failed, c.Errors)
	}
	for i, f := range res.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(res.Failures)-5)
			break
		}
		fmt.Fprintf(&b, "\n  %s", f.String())
	}
	if !res.Passed() {
		out := headTail(strings.TrimSpace(res.Output), 3000)
		fmt.Fprintf(&b, "\nOutput:\n```\n%s\n```", out)
	}
	return b.String()
}

// done decides whether a DONE can end the run.
func (r *runner) done(ctx context.Context, t *schemas.Turn, a draft.Action) feedback {
	if r.wrote && !r.testsRan {
		return r.refuse(t, schemas.CodeRunTestsFirst, "you changed files and have not run the tests since. RUN tests first.")
	}
	if missing := r.missingNames(ctx, t); len(missing) > 0 {
		return r.refuse(t, schemas.CodeNameMissing, fmt.Sprintf("%s is not defined in %s, and the task asks for it.", strings.Join(missing, ", "), strings.Join(r.nameFiles(), ", ")))
	}
	if !r.wrote && !r.quotesFile(a.Text) {
		return r.refuse(t, schemas.CodeQuoteRequired, "you changed nothing. If the code is already correct, quote the line that makes it so, in backticks, exactly as it is in the file.")
	}
	r.claimedDone = true
	r.stopReason = schemas.StopDone
	t.Outcome = schemas.Outcome{Status: schemas.StatusStopped, Code: "", Message: "DONE accepted"}
	return feedback{}
}

// nameFiles are where required names must be defined: the Python targets,
// or every Python file the run wrote when the task names no targets.
func (r *runner) nameFiles() []string {
	var files []string
	for _, f := range r.cfg.Targets {
		if strings.HasSuffix(f, ".py") && !isTestFile(f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		for f := range r.known {
			if strings.HasSuffix(f, ".py") {
				files = append(files, f)
			}
		}
		slices.Sort(files)
	}
	return files
}

func (r *runner) missingNames(ctx context.Context, t *schemas.Turn) []string {
	defined := map[string]bool{}
	var srcs []pySource
	for _, f := range r.nameFiles() {
		if src, err := readRegular(r.abs(f)); err == nil {
			srcs = append(srcs, pySource{name: f, text: string(src)})
		}
	}
	for _, m := range r.pyModules(ctx, t, srcs...) {
		for n := range m.names {
			defined[n] = true
		}
	}
	var missing []string
	for _, n := range r.cfg.Names {
		if !defined[n] {
			missing = append(missing, n)
		}
	}
	return missing
}

// quotesFile reports whether a DONE summary quotes (in backticks or a fence)
// a line that is really in a target or a file the run read.
func (r *runner) quotesFile(summary string) bool {
	var quotes []string
	for _, part := range strings.Split(summary, "`") {
		for _, l := range strings.Split(part, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 6 {
				quotes = append(quotes, l)
			}
		}
	}
	files := append([]string(nil), r.cfg.Targets...)
	for f := range r.known {
		files = append(files, f)
	}
	for _, f := range files {
		src, err := readRegular(r.abs(f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			if len(line) < 6 {
				continue
			}
			for _, q := range quotes {
				if q == line {
					return true
				}
			}
		}
	}
	return false
}
