package collect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

func scriptOf(c datasets.Case, variant string, opts schemas.Options) (harness.Chatter, schemas.Model, error) {
	raw, err := c.Script(variant)
	if err != nil {
		return nil, schemas.Model{}, err
	}
	m, err := scripted.NewFromReader(bytes.NewReader(raw), variant)
	if err != nil {
		return nil, schemas.Model{}, err
	}
	return m, schemas.Model{Backend: "scripted", Name: c.ID + "/" + variant, Options: opts}, nil
}

func expected(c datasets.Case, variant string) (schemas.Verdict, schemas.FailureClass) {
	want := c.Expect[variant]
	if want == string(schemas.VerdictWorked) {
		return schemas.VerdictWorked, ""
	}
	return schemas.VerdictFailed, schemas.FailureClass(want)
}

// Every script of every case ends as its case says: the clean and chatty
// scripts work, the plausible-and-wrong one did not do the job, the other
// fails in its own way; and every one ends by a harness decision, never by
// running out of drafts.
func TestEveryCaseScript(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, variant := range c.Scripts() {
			t.Run(c.ID+"/"+variant, func(t *testing.T) {
				repo := t.TempDir()
				if err := datasets.CopyFS(repo, c.Repo()); err != nil {
					t.Fatal(err)
				}
				chat, m, err := scriptOf(c, variant, schemas.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := harness.Run(context.Background(), harness.Config{
					RunID: "case", OutDir: t.TempDir(), Source: schemas.SourceBench, CaseID: c.ID, Tier: c.Tier,
					Repo: repo, TaskSpec: c.TaskSpec, Model: m, Checks: hiddenChecks{c: c},
				}, chat)
				if err != nil {
					t.Fatal(err)
				}
				e := res.End
				wantV, wantC := expected(c, variant)
				if e.Verdict != wantV || e.FailureClass != wantC {
					t.Errorf("verdict %s %s, want %s %s (stop %s, checks %+v, error %q)", e.Verdict, e.FailureClass, wantV, wantC, e.StopReason, e.Checks, e.Error)
				}
				if e.StopReason == schemas.StopModelError {
					t.Errorf("the script ran out of drafts: it must end by a harness decision")
				}
				if variant == "plausible-wrong" && (e.SuiteAfter.Failed+e.SuiteAfter.Errors > 0 || e.SuiteAfter.ImportError != "") {
					t.Errorf("the plausible-and-wrong script does not pass the visible suite: %+v", e.SuiteAfter)
				}
			})
		}
	}
}

// The hidden checks are never in the workspace the model sees: no file of
// check/ is in the fixture, and a script that goes looking for them is
// refused.
func TestHiddenChecksAreUnreachable(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	checkDir := t.TempDir()
	datasets.CopyFS(checkDir, c.HiddenChecks())
	var names []string
	filepath.WalkDir(checkDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, d.Name())
		}
		return err
	})
	if len(names) == 0 {
		t.Fatal("the case has no hidden checks")
	}
	var drafts []string
	for _, n := range names {
		drafts = append(drafts, "READ ../check/"+n, "READ "+n, "SKILL locate "+strings.TrimSuffix(n, ".py"))
	}
	drafts = append(drafts, "DONE nothing to do")
	var script strings.Builder
	for _, d := range drafts {
		fmt.Fprintf(&script, "{\"content\": %q}\n", d)
	}
	m, err := scripted.NewFromReader(strings.NewReader(script.String()), "snoop")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	datasets.CopyFS(repo, c.Repo())
	res, err := harness.Run(context.Background(), harness.Config{RunID: "snoop", OutDir: t.TempDir(), Repo: repo,
		TaskSpec: schemas.TaskSpec{Task: c.Task, Targets: c.Targets, Scope: c.Scope, Suite: c.Suite}, MaxSteps: len(drafts),
		Model: schemas.Model{Backend: "scripted"}, Checks: hiddenChecks{c: c}}, m)
	if err != nil {
		t.Fatal(err)
	}
	run, err := trace.ReadRun(trace.File{RunID: "snoop", Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range run.Turns {
		if turn.Action.Verb == "READ" && turn.Outcome.Status == schemas.StatusApplied {
			t.Errorf("step %d read %s", turn.Step, turn.Action.Path)
		}
		if turn.Action.Verb == "SKILL" && i+1 < len(run.Turns) {
			answer := run.Turns[i+1].Sent.Messages[len(run.Turns[i+1].Sent.Messages)-1].Content
			if !strings.Contains(answer, "is not defined in any Python file in scope") {
				t.Errorf("step %d: SKILL locate found something of the hidden checks: %s", turn.Step, answer)
			}
		}
	}
}
