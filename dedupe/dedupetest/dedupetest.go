package dedupetest

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// System is the system prompt of every fixture run.
const system = "You are a coding agent. Answer with one action: READ path, WRITE path + a fenced body, PATCH path, RUN tests, DONE summary."

// Turn is one step of a fixture run.
type Turn struct {
	// Draft is what the model answered; Calls its native tool calls;
	// Thinking the reasoning the server sent apart, and Reasoning the
	// turn's record of it (schema minor 2).
	Draft     string
	Calls     []schemas.ToolCall
	Thinking  string
	Reasoning *schemas.Reasoning
	// Verb is the action the parser read; empty for a draft that did not
	// parse.
	Verb, Path string
	// Status is the outcome (applied when empty); Code its guard code.
	Status schemas.Status
	Code   schemas.Code
	// Result is what the harness sent back after the step.
	Result string
	// NoModel marks a step the harness settled itself.
	NoModel bool
}

// Run is one fixture run. An empty Verdict leaves the run incomplete (no
// run_end record).
type Run struct {
	ID, Source, Case string
	Tier, Pass       int
	Backend, Model   string
	Task             string
	RepoPath         string
	Verdict          schemas.Verdict
	Tags             []string
	Started          time.Time
	Turns            []Turn
}

// Write records the run under dir/runs and returns the trace's path.
func Write(dir string, r Run) (string, error) {
	if r.Source == "" {
		r.Source = schemas.SourceBench
	}
	if r.Backend == "" {
		r.Backend = "ollama"
	}
	if r.Model == "" {
		r.Model = "llama3.1:8b"
	}
	if r.Task == "" {
		r.Task = "Task: do the thing in " + r.Case
	}
	if r.Started.IsZero() {
		r.Started = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Pass) * time.Hour)
	}
	w, err := trace.Create(filepath.Join(dir, trace.RunsDir), r.ID)
	if err != nil {
		return "", err
	}
	defer w.Close()
	recs := []schemas.Record{{RunStart: &schemas.RunStart{Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: r.ID, Attempt: w.Attempt(),
		Source: r.Source, CaseID: r.Case, Tier: r.Tier, Pass: r.Pass,
		Model: schemas.Model{Backend: r.Backend, Name: r.Model, Options: schemas.Options{NumCtx: 8192, NumPredict: 1024}},
		Task:  r.Task, Repo: schemas.Repo{Path: r.RepoPath}, Scope: []string{"**"}, Suite: "python3 -m unittest", Python: "python3",
		Tags: r.Tags, StartedAt: r.Started}}}
	var prompt []schemas.Message
	var prev *Turn
	modelSteps := 0
	for i := range r.Turns {
		t := r.Turns[i]
		step := i + 1
		sent := schemas.Sent{Kind: schemas.KindOpening}
		if prev == nil {
			sent.Messages = []schemas.Message{{Role: "system", Content: system}, {Role: "user", Content: r.Task}}
		} else {
			role := "user"
			if len(prev.Calls) > 0 {
				role = "tool"
			}
			sent.Messages = []schemas.Message{{Role: "assistant", Content: prev.Draft, ToolCalls: prev.Calls}, {Role: role, Content: result(prev)}}
			switch {
			case prev.Verb == "":
				sent.Kind, sent.Code = schemas.KindParseFailure, schemas.CodeParseFailed
			case prev.Status == schemas.StatusRefused:
				sent.Kind, sent.Code = schemas.KindRefusalOrNudge, prev.Code
			default:
				sent.Kind = schemas.KindToolResult
			}
		}
		prompt = append(prompt, sent.Messages...)
		sent.PromptHash = schemas.PromptHash(prompt)
		status := t.Status
		if status == "" {
			status = schemas.StatusApplied
			if t.Verb == "" {
				status = schemas.StatusRefused
			}
		}
		shape := "canonical"
		if t.Verb == "" {
			shape = "none"
		}
		via := "text"
		if len(t.Calls) > 0 {
			via = "tool-call"
		}
		at := r.Started.Add(time.Duration(step) * time.Second)
		if !t.NoModel {
			modelSteps++
		}
		recs = append(recs, schemas.Record{Turn: &schemas.Turn{RunID: r.ID, Step: step, Sent: sent,
			Reply: schemas.Reply{Content: t.Draft, Thinking: t.Thinking, ToolCalls: t.Calls, FinishReason: "stop"}, Reasoning: t.Reasoning,
			Action:  schemas.Action{Verb: t.Verb, Path: t.Path, Shape: shape, Via: via},
			Outcome: schemas.Outcome{Status: status, Code: t.Code}, ModelStep: !t.NoModel, StartedAt: at, EndedAt: at}})
		prev = &r.Turns[i]
	}
	if r.Verdict != "" {
		end := &schemas.RunEnd{RunID: r.ID, Verdict: r.Verdict, StopReason: schemas.StopDone, Steps: len(r.Turns), ModelSteps: modelSteps,
			EndedAt: r.Started.Add(time.Minute)}
		if r.Verdict == schemas.VerdictFailed {
			end.FailureClass = schemas.FailDidNotDoTheJob
		}
		recs = append(recs, schemas.Record{RunEnd: end})
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return "", err
		}
	}
	return w.Path(), w.Close()
}

func result(t *Turn) string {
	switch {
	case t.Verb == "":
		return "could not read an action from your reply: no action verb found."
	case t.Status == schemas.StatusRefused:
		return fmt.Sprintf("REFUSED (%s): not now.", t.Code)
	case t.Result != "":
		return t.Result
	}
	return "OK"
}
