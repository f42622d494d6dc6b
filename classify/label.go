package classify

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Rows classifies one run: its runs row, its partition, and a turns row per
// turn read. run.Start must not be nil.
func Rows(run *trace.Run) (dataset.Partition, dataset.RunRow, []dataset.TurnRow) {
	s := run.Start
	part := dataset.Partition{Source: s.Source, Model: s.Model.Label()}
	r := dataset.RunRow{
		RunID: s.RunID, Attempt: int32(s.Attempt), CaseID: s.CaseID, Tier: int32(s.Tier), Pass: int32(s.Pass),
		Backend: s.Model.Backend, ModelName: s.Model.Name, ModelDigest: s.Model.Digest,
		Seed: int64(s.Model.Options.Seed), Temperature: s.Model.Options.Temperature,
		NumCtx: int32(s.Model.Options.NumCtx), NumPredict: int32(s.Model.Options.NumPredict),
		HarnessVersion: s.Harness.Version, HarnessCommit: s.Harness.Commit, Task: s.Task,
		Turns: int32(len(run.Turns)), Writes: []dataset.Write{}, StartedAt: timePtr(s.StartedAt),
		TraceFile: filepath.Base(run.File.Path), Tags: nonNil(s.Tags),
	}
	if r.RunID == "" {
		r.RunID = run.File.RunID
	}
	if e := run.End; e != nil {
		r.Complete = true
		r.Verdict, r.FailureClass, r.ClaimedDone, r.StopReason = e.Verdict, e.FailureClass, e.ClaimedDone, e.StopReason
		r.Steps, r.ModelSteps = int32(e.Steps), int32(e.ModelSteps)
		for _, w := range e.Writes {
			r.Writes = append(r.Writes, dataset.Write{Path: w.Path, Added: int32(w.Added), Removed: int32(w.Removed)})
		}
		r.ChecksRan, r.ChecksPassed, r.FirstFailure = e.Checks.Ran, e.Checks.Passed, e.Checks.FirstFailure
		b, a := e.SuiteBefore, e.SuiteAfter
		r.SuiteBeforeRan, r.SuiteBeforePassed, r.SuiteBeforeFailed, r.SuiteBeforeErrors, r.SuiteBeforeImportError =
			int32(b.Ran), int32(b.Passed), int32(b.Failed), int32(b.Errors), b.ImportError
		r.SuiteAfterRan, r.SuiteAfterPassed, r.SuiteAfterFailed, r.SuiteAfterErrors, r.SuiteAfterImportError =
			int32(a.Ran), int32(a.Passed), int32(a.Failed), int32(a.Errors), a.ImportError
		r.DurationMS, r.EndedAt = e.DurationMS, timePtr(e.EndedAt)
	} else {
		r.Verdict = schemas.VerdictIncomplete
		r.Steps = int32(len(run.Turns))
		for _, t := range run.Turns {
			if t.ModelStep {
				r.ModelSteps++
			}
		}
	}
	turns := make([]dataset.TurnRow, 0, len(run.Turns))
	for _, t := range run.Turns {
		turns = append(turns, turnRow(r, t))
	}
	return part, r, turns
}

func turnRow(r dataset.RunRow, t *schemas.Turn) dataset.TurnRow {
	l := turnlabel.Of(t)
	row := dataset.TurnRow{
		RunID: r.RunID, Attempt: r.Attempt, Step: int32(t.Step), CaseID: r.CaseID, Tier: r.Tier, Pass: r.Pass,
		Kind: l.Kind, Code: l.Code, LabelFrom: l.From, Feedback: dataset.FeedbackOf(l.Kind, t.Sent.Messages),
		Messages: make([]dataset.MessageRow, 0, len(t.Sent.Messages)), Replaced: t.Sent.Replaced, PromptHash: t.Sent.PromptHash,
		PromptTokensEstimate: int32(t.Sent.PromptTokensEstimate),
		Draft:                t.Reply.Content, Thinking: t.Reply.Thinking, ReplyToolCalls: toolCallsJSON(t.Reply.ToolCalls),
		FinishReason: t.Reply.FinishReason,
		Verb:         t.Action.Verb, Path: t.Action.Path, Shape: t.Action.Shape, Via: t.Action.Via, Repairs: nonNil(t.Action.Repairs),
		Status: t.Outcome.Status, OutcomeCode: t.Outcome.Code, OutcomeMessage: t.Outcome.Message,
		FilesChanged: nonNil(t.Outcome.FilesChanged), ModelStep: t.ModelStep, ModelCalls: int32(len(t.Attempts)),
		PromptTokens: int32Ptr(t.Metrics.PromptTokens), OutputTokens: int32Ptr(t.Metrics.OutputTokens),
		PromptEvalTokens: int32Ptr(t.Metrics.PromptEvalTokens), CachedTokens: int32Ptr(t.Metrics.CachedTokens),
		TotalMS: t.Metrics.TotalMS, LoadMS: t.Metrics.LoadMS, PromptEvalMS: t.Metrics.PromptEvalMS,
		EvalMS: t.Metrics.EvalMS, TTFTMS: t.Metrics.TTFTMS,
		StartedAt: timePtr(t.StartedAt), EndedAt: timePtr(t.EndedAt),
	}
	if r := t.Reasoning; r != nil {
		row.Reasoning, row.ReasoningSource, row.ReasoningTokens = r.Text, r.Source, int32(r.Tokens)
	}
	for _, e := range t.Sent.Elided {
		row.ElidedTokens += int32(e.Tokens)
	}
	row.WarningCodes = turnlabel.WarningCodes(t.Warnings)
	for _, m := range t.Sent.Messages {
		row.Messages = append(row.Messages, dataset.MessageRow{Role: m.Role, Content: m.Content, ToolCalls: toolCallsJSON(m.ToolCalls), ToolCallID: m.ToolCallID})
	}
	return row
}

func toolCallsJSON(calls []schemas.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	b, err := json.Marshal(calls)
	if err != nil {
		return ""
	}
	return string(b)
}

// timePtr keeps a recorded time in UTC at the microsecond the table stores,
// and leaves an unrecorded one null.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// int32Ptr narrows a reported count for its Parquet column, nil staying nil.
func int32Ptr(p *int) *int32 {
	if p == nil {
		return nil
	}
	return new(int32(*p))
}
