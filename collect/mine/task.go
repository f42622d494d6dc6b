package mine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
)

// block is one FIND/REPLACE of a fix.
type block struct {
	Find    string `json:"find"`
	Replace string `json:"replace"`
}

// fileFix is a fix of one file: blocks in order, or the whole file when
// no blocks could be made.
type fileFix struct {
	path   string
	blocks []block
	whole  []byte
}

// fixLines are the lines a fix writes that the broken code lacks, trimmed,
// those too short to say anything left out ("pass", "else:"): the lines a
// task's text must not hold.
func fixLines(broken, fixed string) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(broken, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var out []string
	for _, l := range strings.Split(fixed, "\n") {
		l = strings.TrimSpace(l)
		if len(l) >= 8 && !have[l] && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// quotes reports whether text holds one of lines.
func quotes(text string, lines []string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(text, l) })
}

// evidence is the failing tests as a bulleted list, each with the line
// that shows its symptom.
func evidence(failing []string, rep *testReport, fix []string) string {
	var b strings.Builder
	for _, id := range failing {
		msg := oneLine(rep.Tests[id].Message)
		if len(msg) > 200 {
			msg = msg[:197] + "..."
		}
		if msg != "" && !quotes(msg, fix) {
			fmt.Fprintf(&b, "- `%s`: %s\n", id, msg)
		} else {
			fmt.Fprintf(&b, "- `%s`\n", id)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// taskText is a mutation task as someone filing an issue would put it: the
// tests that fail and how; false when it would quote the fix.
func taskText(failing []string, rep *testReport, fix []string) (string, bool) {
	var b strings.Builder
	if len(failing) == 1 {
		b.WriteString("A test that used to pass fails now:\n\n")
	} else {
		fmt.Fprintf(&b, "%d tests that used to pass fail now:\n\n", len(failing))
	}
	b.WriteString(evidence(failing, rep, fix))
	b.WriteString("\nThe rest of the suite still passes. The tests are right: please find what broke in the code and fix it so that they pass again.")
	text := b.String()
	return text, !quotes(text, fix)
}

// referenceScript is a task's fix as the harness's own actions: READ each
// file, PATCH it block by block (or WRITE it whole), RUN the tests, DONE.
func referenceScript(fix []fileFix, summary string) []byte {
	var drafts []string
	for _, f := range fix {
		drafts = append(drafts, "READ "+f.path)
		if f.whole != nil {
			drafts = append(drafts, "WRITE "+f.path+"\n```python\n"+string(f.whole)+"```")
			continue
		}
		for _, bl := range f.blocks {
			drafts = append(drafts, "PATCH "+f.path+"\nFIND:\n```python\n"+withNewline(bl.Find)+"```\nREPLACE:\n```python\n"+withNewline(bl.Replace)+"```")
		}
	}
	drafts = append(drafts, "RUN tests", "DONE "+summary)
	return scripted.Drafts(drafts...)
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// doNothing is the draft that changes nothing, said until the harness
// stops the run as stuck: a task it does not fail is no task.
var doNothing = scripted.Drafts("DONE The code is already correct.", "DONE The code is already correct.",
	"DONE The code is already correct.", "DONE The code is already correct.", "DONE The code is already correct.")

const doNothingFile = "do-nothing.jsonl"

func writeDoNothing(out string) error {
	if err := os.WriteFile(filepath.Join(out, "scripts", doNothingFile), doNothing, 0o644); err != nil {
		return fmt.Errorf("tasks: %w", err)
	}
	return nil
}

// finish writes a candidate's reference script, tries it and the
// do-nothing draft through the harness on the task's commit, and makes
// the entry. confirm, when not nil, is told the counts of the harness's
// suite at the task's start and says why they do not fit the task ("" when
// they do).
func (m *miner) finish(ctx context.Context, c *candidate, sha string, spec schemas.TaskSpec, fix []fileFix, summary string, failing []string, tags []string, confirm func(schemas.SuiteCounts) string) outcome {
	drop := func(why string) outcome { return outcome{c: c, drop: why} }
	for _, f := range fix {
		if !slices.Contains(spec.Targets, f.path) {
			spec.Targets = append(spec.Targets, f.path)
		}
	}
	script := filepath.Join(m.o.Out, "scripts", c.id+".jsonl")
	if err := os.WriteFile(script, referenceScript(fix, summary), 0o644); err != nil {
		return drop("error: " + err.Error())
	}
	spec.Suite = m.o.Suite
	e := collect.Entry{ID: c.id, Repo: m.clone.dir, Commit: sha, TaskSpec: spec, Check: m.o.Suite,
		Script: script, Tags: tags}
	if why := m.validate(ctx, e, confirm); why != "" {
		return drop(why)
	}
	e.Repo, e.Script = "repo", filepath.ToSlash(filepath.Join("scripts", c.id+".jsonl"))
	return outcome{c: c, entry: e, signature: strings.Join(failing, "\n"), failing: failing}
}

// validate runs the entry as collect would, with its reference script and
// with the do-nothing draft: "" when the first worked and the second
// failed, else why the entry is dropped.
func (m *miner) validate(ctx context.Context, e collect.Entry, confirm func(schemas.SuiteCounts) string) string {
	defer m.timed(stepHarness, time.Now())
	dir := filepath.Join(m.work, "validate-"+e.ID)
	defer os.RemoveAll(dir)
	resolved, err := collect.ResolveEntry(ctx, m.o.Out, e, filepath.Join(dir, "repos"))
	if err != nil {
		return "error: " + err.Error()
	}
	ref, err := scripted.New(e.Script)
	if err != nil {
		return "error: " + err.Error()
	}
	res, err := collect.RunEntry(ctx, resolved, ref, "reference", filepath.Join(dir, "out"), m.o.Python)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case res.End.Verdict != schemas.VerdictWorked:
		return "reference fix did not work through the harness"
	}
	// collect refuses an entry whose suite cannot judge its start: the
	// harness's suite (its own runner flags) must run tests there too.
	if b := res.End.SuiteBefore; b.Ran == 0 || b.NoTests || b.ImportError != "" || b.TimedOut || b.ExitStatusOnly {
		return "the harness's suite runs no test at the task's start"
	}
	if confirm != nil {
		if why := confirm(res.End.SuiteBefore); why != "" {
			return why
		}
	}
	none, err := scripted.NewFromReader(bytes.NewReader(doNothing), doNothingFile)
	if err != nil {
		return "error: " + err.Error()
	}
	res, err = collect.RunEntry(ctx, resolved, none, "do-nothing", filepath.Join(dir, "out"), m.o.Python)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case res.End.Verdict != schemas.VerdictFailed:
		return "doing nothing did not fail through the harness"
	}
	return ""
}

// manifestFile is OUT/manifest.yaml, rewritten whole (atomically) after
// every task kept.
type manifestFile struct {
	path, source, commit string
	seed                 uint64
	entries              []collect.Entry
}

func (f *manifestFile) write() error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Tasks mined by pyharness tasks from %s at %s, seed %d.\n", filepath.Base(f.source), f.commit, f.seed)
	b.WriteString("# Each starts from its commit of repo/ (a private clone); script: is its reference fix.\n")
	if err := collect.EncodeManifest(&b, f.entries); err != nil {
		return fmt.Errorf("tasks: write manifest: %w", err)
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("tasks: write manifest: %w", err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return fmt.Errorf("tasks: write manifest: %w", err)
	}
	return nil
}
