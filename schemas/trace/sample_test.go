package trace

import (
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// sampleRun returns the records of a small complete run with every field of
// the contract filled in.
func sampleRun(runID string) []schemas.Record {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	start := &schemas.RunStart{
		Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: runID, Attempt: 1,
		Source: schemas.SourceBench, CaseID: "initials", Tier: 1, Pass: 2,
		Model: schemas.Model{Backend: "scripted", Name: "clean.jsonl", Digest: "sha256:abc",
			Options: schemas.Options{Seed: 0, Temperature: 0, NumCtx: 8192, NumPredict: 1024}},
		Harness: schemas.Harness{Version: "0.1.0", Commit: "deadbeef"},
		Task:    "Add initials(name) to initials.py", Targets: []string{"initials.py"},
		Names: []string{"initials"}, Scope: []string{"**"}, Suite: "python3 -m unittest",
		Python: "/usr/bin/python3", Repo: schemas.Repo{Path: "datasets/cases/initials/repo"}, StartedAt: t0,
	}
	sys := schemas.Message{Role: "system", Content: "You are a coding agent."}
	user := schemas.Message{Role: "user", Content: "Task: add initials."}
	turn1 := &schemas.Turn{RunID: runID, Step: 1,
		Sent: schemas.Sent{Kind: schemas.KindOpening, Messages: []schemas.Message{sys, user},
			PromptHash: schemas.PromptHash([]schemas.Message{sys, user})},
		Reply:     schemas.Reply{Content: "READ initials.py", FinishReason: "stop"},
		Action:    schemas.Action{Verb: "READ", Path: "initials.py", Shape: "canonical"},
		Outcome:   schemas.Outcome{Status: schemas.StatusApplied},
		Metrics:   schemas.Metrics{PromptTokens: new(40), OutputTokens: new(5), TotalMS: 120},
		ModelStep: true, StartedAt: t0, EndedAt: t0.Add(time.Second)}
	asst := schemas.Message{Role: "assistant", Content: "READ initials.py"}
	res := schemas.Message{Role: "user", Content: "initials.py:\n```\ndef initials(name):\n    pass\n```"}
	turn2 := &schemas.Turn{RunID: runID, Step: 2,
		Sent: schemas.Sent{Kind: schemas.KindToolResult, Messages: []schemas.Message{asst, res},
			PromptHash: schemas.PromptHash([]schemas.Message{sys, user, asst, res})},
		Reply:     schemas.Reply{Content: "DONE", FinishReason: "stop"},
		Action:    schemas.Action{Verb: "DONE", Shape: "canonical"},
		Outcome:   schemas.Outcome{Status: schemas.StatusRefused, Code: "quote-required", Message: "quote a line"},
		ModelStep: true, StartedAt: t0.Add(time.Second), EndedAt: t0.Add(2 * time.Second)}
	end := &schemas.RunEnd{RunID: runID, Verdict: schemas.VerdictFailed, FailureClass: schemas.FailWroteNothing,
		Checks: schemas.Checks{Ran: true, FirstFailure: "AssertionError"}, StopReason: schemas.StopBudget,
		Steps: 2, ModelSteps: 2, SuiteBefore: schemas.SuiteCounts{Ran: 3, Passed: 3},
		SuiteAfter: schemas.SuiteCounts{Ran: 3, Passed: 3}, DurationMS: 2000, EndedAt: t0.Add(2 * time.Second)}
	return []schemas.Record{{RunStart: start}, {Turn: turn1}, {Turn: turn2}, {RunEnd: end}}
}
