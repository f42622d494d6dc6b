package stats

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// turnSpec is one turn of a run written by writeRun: its reply, the shape
// it was read in, and its outcome code.
type turnSpec struct {
	reply, shape string
	code         schemas.Code
}

// writeRun writes one run with the trace writer: run_start, its turns and
// run_end with the verdict.
func writeRun(t *testing.T, dir, runID string, m schemas.Model, verdict schemas.Verdict, turns ...turnSpec) {
	t.Helper()
	w, err := trace.Create(filepath.Join(dir, trace.RunsDir), runID)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	write := func(rec schemas.Record) {
		t.Helper()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	write(schemas.Record{RunStart: &schemas.RunStart{Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: runID, Attempt: w.Attempt(),
		Source: "bench", CaseID: "initials", Tier: 1, Pass: 1, Model: m, Task: "Add initials", Scope: []string{"**"}, StartedAt: at}})
	for i, ts := range turns {
		turn := &schemas.Turn{RunID: runID, Step: i + 1, ModelStep: true, StartedAt: at, EndedAt: at,
			Sent:    schemas.Sent{Kind: schemas.KindOpening, Messages: []schemas.Message{{Role: "user", Content: "Task: Add initials"}}},
			Reply:   schemas.Reply{Content: ts.reply},
			Action:  schemas.Action{Shape: ts.shape, Repairs: []string{}},
			Outcome: schemas.Outcome{Status: schemas.StatusApplied, Code: ts.code, FilesChanged: []string{}},
		}
		if ts.shape != "none" {
			turn.Action.Verb = "READ"
		}
		switch ts.code {
		case "":
		case "model-error":
			turn.Outcome.Status = schemas.StatusFailed
		default:
			turn.Outcome.Status = schemas.StatusRefused
		}
		write(schemas.Record{Turn: turn})
	}
	end := &schemas.RunEnd{RunID: runID, Verdict: verdict, Steps: len(turns), ModelSteps: len(turns), ClaimedDone: true, EndedAt: at}
	if verdict == schemas.VerdictFailed {
		end.FailureClass = schemas.FailDidNotDoTheJob
	}
	write(schemas.Record{RunEnd: end})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A trace directory with a scripted run that worked and a run of a model
// that failed: the headline gives each its own figure and never adds them
// up, in the text, in the numbers --json prints and from a dataset alike.
func TestHeadlineKeepsScriptedRunsApart(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "scripted-initials", schemas.Model{Backend: "scripted", Name: "initials-p1"}, schemas.VerdictWorked,
		turnSpec{"READ initials.py", "canonical", ""})
	writeRun(t, dir, "ollama-initials", schemas.Model{Backend: "ollama", Name: "llama3.1:8b"}, schemas.VerdictFailed,
		turnSpec{"**READ** initials.py", "bold-label", ""},
		turnSpec{"I will look at the file first.", "none", "parse-failed"},
		turnSpec{"READ initials.py", "canonical", ""})
	ctx := context.Background()
	dataset := t.TempDir()
	if _, err := classify.Update(ctx, dir, dataset); err != nil {
		t.Fatal(err)
	}
	want := []ModelRuns{
		{Model: "ollama:llama3.1:8b", Runs: 1, Judged: 1, Failed: 1, FailedShare: 1},
		{Model: "scripted", Scripted: true, Runs: 1, Judged: 1, Worked: 1},
	}
	for _, in := range []string{dir, dataset} {
		s, err := Load(ctx, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Models, want) {
			t.Errorf("%s: models %+v, want %+v", s.Kind, s.Models, want)
		}
		if !s.Mixed {
			t.Errorf("%s: a model's run and a scripted one are not said to be mixed", s.Kind)
		}
		var b bytes.Buffer
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		models, rest, ok := strings.Cut(text, "Scripted and replayed runs")
		if !ok {
			t.Fatalf("%s: no section for the scripted runs:\n%s", s.Kind, text)
		}
		scripted, _, _ := strings.Cut(rest, "\nWhy runs failed")
		if !strings.Contains(models, "ollama:llama3.1:8b  1     0       1 of 1 (100%)") || strings.Contains(models, "scripted  ") {
			t.Errorf("%s: the model's section is not the ollama run alone:\n%s", s.Kind, models)
		}
		if !strings.Contains(scripted, "scripted  1     1       0 of 1 (0%)") || strings.Contains(scripted, "ollama") {
			t.Errorf("%s: the scripted section is not the scripted run alone:\n%s", s.Kind, scripted)
		}
		if strings.Contains(text, "1 of 2") || strings.Contains(text, "\nworked ") {
			t.Errorf("%s: a figure totals the two runs:\n%s", s.Kind, text)
		}
	}
}

// Each turn is counted once, by the whole shape it was read in; parse
// failures and empty replies are unparsed; a turn whose model call failed
// wrote nothing and is not counted.
func TestActionForms(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "ollama-initials", schemas.Model{Backend: "ollama", Name: "llama3.1:8b"}, schemas.VerdictFailed,
		turnSpec{"READ initials.py", "canonical", ""},
		turnSpec{"**READ** initials.py", "bold-label", ""},
		turnSpec{"- **READ** initials.py", "bold-label+list-marker", ""},
		turnSpec{"**READ** initials.py", "bold-label", ""},
		turnSpec{"I will look first.", "none", "parse-failed"},
		turnSpec{"", "none", "empty-reply"},
		turnSpec{"", "none", "model-error"})
	writeRun(t, dir, "replayed-initials", schemas.Model{Backend: "replay", Name: "runs/ollama-initials.jsonl"}, schemas.VerdictFailed,
		turnSpec{"READ initials.py", "canonical", ""})
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ActionForms{
		{Model: "ollama:llama3.1:8b", Turns: 6, Forms: []Count{
			{formCanonical, 1, 1.0 / 6}, {"bold-label", 2, 2.0 / 6}, {"bold-label+list-marker", 1, 1.0 / 6}, {formUnparsed, 2, 2.0 / 6}}},
		{Model: "replay:runs/ollama-initials.jsonl", Scripted: true, Turns: 1, Forms: []Count{
			{formCanonical, 1, 1}, {formUnparsed, 0, 0}}},
	}
	if !reflect.DeepEqual(s.ActionForms, want) {
		t.Errorf("action forms\n%+v\nwant\n%+v", s.ActionForms, want)
	}
}

func TestActionForm(t *testing.T) {
	tests := []struct {
		name    string
		turn    dataset.TurnSummary
		form    string
		counted bool
	}{
		{"canonical", dataset.TurnSummary{ModelStep: true, Verb: "READ", Shape: "canonical"}, formCanonical, true},
		{"a tolerated shape, whole", dataset.TurnSummary{ModelStep: true, Verb: "READ", Shape: "chatter+bold-label"}, "chatter+bold-label", true},
		{"a refused action keeps its shape", dataset.TurnSummary{ModelStep: true, Verb: "PATCH", Shape: "bold-label", OutcomeCode: "find-not-found"}, "bold-label", true},
		{"parse failure with no shape", dataset.TurnSummary{ModelStep: true, Shape: "none", OutcomeCode: "parse-failed"}, formUnparsed, true},
		{"parse failure after shapes were seen", dataset.TurnSummary{ModelStep: true, Verb: "PATCH", Shape: "bold-label", OutcomeCode: "parse-failed"}, formUnparsed, true},
		{"empty reply", dataset.TurnSummary{ModelStep: true, Shape: "none", OutcomeCode: "empty-reply"}, formUnparsed, true},
		{"another refusal of a reply read as no action", dataset.TurnSummary{ModelStep: true, Shape: "none", Status: "refused", OutcomeCode: "draft-ambiguous"}, formUnparsed, true},
		{"model call failed", dataset.TurnSummary{ModelStep: true, Shape: "none", Status: "failed", OutcomeCode: "connection-refused"}, "", false},
		{"cancelled", dataset.TurnSummary{ModelStep: true, Shape: "none", Status: "stopped", OutcomeCode: "cancelled"}, "", false},
		{"not a model step", dataset.TurnSummary{Verb: "RUN", Shape: "canonical"}, "", false},
		{"a trace before shapes", dataset.TurnSummary{ModelStep: true, Verb: "READ"}, formNotRecorded, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, counted := actionForm(tt.turn)
			if form != tt.form || counted != tt.counted {
				t.Errorf("actionForm = %q, %v; want %q, %v", form, counted, tt.form, tt.counted)
			}
		})
	}
}

// A run whose suite ran no test is unjudged: in no score, counted apart
// from the errors and cancellations, from traces and from a dataset alike.
func TestUnjudgedCountedApart(t *testing.T) {
	dir := t.TempDir()
	m := schemas.Model{Backend: "ollama", Name: "llama3.1:8b"}
	writeRun(t, dir, "worked", m, schemas.VerdictWorked, turnSpec{"READ initials.py", "canonical", ""})
	writeRun(t, dir, "failed", m, schemas.VerdictFailed, turnSpec{"READ initials.py", "canonical", ""})
	writeRun(t, dir, "no-tests-1", m, schemas.VerdictUnjudged, turnSpec{"READ initials.py", "canonical", ""})
	writeRun(t, dir, "no-tests-2", m, schemas.VerdictUnjudged, turnSpec{"READ initials.py", "canonical", ""})
	ctx := context.Background()
	dataset := t.TempDir()
	if _, err := classify.Update(ctx, dir, dataset); err != nil {
		t.Fatal(err)
	}
	want := []ModelRuns{{Model: "ollama:llama3.1:8b", Runs: 4, Judged: 2, Worked: 1, Failed: 1, NotJudged: 2, Unjudged: 2, FailedShare: 0.5}}
	for _, in := range []string{dir, dataset} {
		s, err := Load(ctx, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Models, want) {
			t.Errorf("%s: models %+v, want %+v", s.Kind, s.Models, want)
		}
		if s.Runs.Unjudged != 2 || s.Runs.Incomplete != 0 || s.Runs.Judged != 2 {
			t.Errorf("%s: runs %+v, want 2 unjudged, 2 judged, none incomplete", s.Kind, s.Runs)
		}
		var b bytes.Buffer
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "2 (2 unjudged)") {
			t.Errorf("%s: the text does not say the two runs were unjudged:\n%s", s.Kind, b.String())
		}
	}
}
