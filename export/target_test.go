package export_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Drafts of the delta case: applied drafts in other formats than the
// protocol's, one with reasoning, and a refused one the later turns carry
// in their context.
const (
	deltaBold     = "**Action:** READ d.py"
	deltaReasoned = "<think>The return value is off by one.</think>\nPATCH d.py\n```diff\n--- a/d.py\n+++ b/d.py\n@@ -1,2 +1,2 @@\n def d():\n-    return 1\n+    return 2\n```"
	deltaRefused  = "**Action:** DONE fixed"
	deltaWrite    = "```python\n# d.py\ndef d():\n    return 2\n```"
	// The server's thinking field, and a turn's record of its reasoning
	// (which wins over what the reply holds).
	deltaServerThinking = "The patch is in; the suite decides."
	deltaRecorded       = "Write the whole file to be sure."
	deltaOther          = "READ e.py"
	deltaThinking       = "The return value is off by one."
)

// writeForeignFixture adds to the fixture of writeFixture the delta case:
// a worked run whose applied drafts are written in foreign formats (a bold
// label, a unified diff after thinking, a file named in a fence comment),
// with a refused DONE between them, and a failed pass that opened
// otherwise (a preference pair whose chosen side is a foreign draft).
func writeForeignFixture(t *testing.T) string {
	t.Helper()
	dir := writeFixture(t)
	runs := []dedupetest.Run{
		{ID: "bench-delta-p1-d10000000001", Case: "delta", Tier: 3, Pass: 1, Verdict: schemas.VerdictWorked, Turns: []dedupetest.Turn{
			{Draft: deltaBold, Verb: "READ", Path: "d.py", Result: "d.py (lines 1-2 of 2):\n```\ndef d():\n    return 1\n```"},
			{Draft: deltaReasoned, Verb: "PATCH", Path: "d.py", Result: "Patched d.py (+1 -1 lines). RUN tests to check it."},
			{Draft: deltaRefused, Verb: "DONE", Status: schemas.StatusRefused, Code: "run-tests-first"},
			{Draft: "RUN tests", Verb: "RUN", Result: tests("0.003s"), Thinking: deltaServerThinking},
			{Draft: deltaWrite, Reasoning: &schemas.Reasoning{Text: deltaRecorded, Tokens: 9, Source: schemas.ReasoningThinkTag}, Verb: "WRITE", Path: "d.py", Result: "Wrote d.py (+0 -0 lines). RUN tests to check it."},
			{Draft: "DONE d returns 2; tests pass", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-delta-p2-d10000000002", Case: "delta", Tier: 3, Pass: 2, Verdict: schemas.VerdictFailed, Turns: []dedupetest.Turn{
			{Draft: deltaOther, Verb: "READ", Path: "e.py", Result: "e.py does not exist."},
			{Draft: "DONE nothing to do", Verb: "DONE", Status: schemas.StatusStopped},
		}},
	}
	for _, r := range runs {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// what is what an action does, for comparing a trained draft with the
// draft the model wrote: a unified diff of one hunk does what its FIND
// and REPLACE blocks do, and RUN runs the suite whatever words follow it.
func what(a draft.Action) string {
	find, replace := a.Find, a.Replace
	if len(a.Hunks) == 1 {
		find, replace = strings.TrimSuffix(a.Hunks[0].Old, "\n"), strings.TrimSuffix(a.Hunks[0].New, "\n")
	}
	text := a.Text
	if a.Verb == draft.VerbRun {
		text = ""
	}
	return strings.Join([]string{a.Verb, a.Path, strconv.Itoa(a.Start), strconv.Itoa(a.End), a.Body, find, replace,
		a.Skill, strings.Join(a.Args, " "), text}, "\x00")
}

// trainedRow is a row's trained draft, with the turn it came from and the
// earlier drafts of its context (and whether each is trained).
type trainedRow struct {
	runID   string
	step    int
	target  export.Message
	context []export.Message
	// asWritten is the provenance's record of the model's draft (JSONL
	// and DPO; "" for Parquet rows, whose column is not read here).
	asWritten string
	parquet   bool
}

// trainedRows reads the trained draft of every row of an export, whatever
// its format and layout: the completion, the messages' last (checking
// that it alone has weight 1), the chosen side.
func trainedRows(t *testing.T, o export.Options) []trainedRow {
	t.Helper()
	var out []trainedRow
	if o.Format == export.FormatParquet {
		shards, _ := filepath.Glob(filepath.Join(o.Out, "data", "*.parquet"))
		for _, sh := range shards {
			_, rows := readParquet(t, sh)
			for _, r := range rows {
				n := len(r.messages)
				out = append(out, trainedRow{runID: r.runID, step: int(r.step), target: r.messages[n-1], context: r.messages[:n-1], parquet: true})
			}
		}
		return out
	}
	meta := readMeta(t, o.Out)
	rows := readRows(t, o.Out)
	if len(meta) != len(rows) {
		t.Fatalf("%d rows, %d metadata lines", len(rows), len(meta))
	}
	for i, row := range rows {
		msgs := messagesOf(t, row)
		var target export.Message
		var context []export.Message
		switch {
		case o.Format == export.FormatDPO:
			target, context = messagesOf(t, map[string]any{"messages": row["chosen"]})[0], msgs
		default:
			msgs = append(msgs, messagesOf(t, map[string]any{"messages": row["completion"]})...)
			target, context = msgs[len(msgs)-1], msgs[:len(msgs)-1]
		}
		out = append(out, trainedRow{runID: meta[i].RunID, step: meta[i].Step, target: target, context: context, asWritten: meta[i].AsWritten})
	}
	return out
}

// messagesOf decodes a row's messages (or its prompt) as export.Message.
func messagesOf(t *testing.T, row map[string]any) []export.Message {
	t.Helper()
	raw := row["messages"]
	if raw == nil {
		raw = row["prompt"]
	}
	var out []export.Message
	if err := remarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// For every layout and format, no trained draft is one the harness
// refused, every trained draft is in the protocol's canonical form and does
// what the model's draft did (or, with --as-written, is the model's draft),
// the refused drafts stay in the context untrained, and reasoning is in
// reasoning_content, never in the trained content.
func TestTrainedTargets(t *testing.T) {
	in := writeForeignFixture(t)
	turns := map[string]*schemas.Turn{}
	var refused []string
	for run, err := range trace.Runs(t.Context(), in) {
		if err != nil && run == nil {
			t.Fatal(err)
		}
		for _, tr := range run.Turns {
			turns[run.Start.RunID+"#"+itoa(tr.Step)] = tr
			if tr.Outcome.Status == schemas.StatusRefused {
				refused = append(refused, tr.Reply.Content)
			}
		}
	}
	type config struct {
		format, layout  string
		asWritten, keep bool
		reasoning       string
		includeFailed   bool
	}
	var configs []config
	for _, format := range []string{export.FormatJSONL, export.FormatParquet} {
		for _, layout := range []string{"prompt-completion", "messages"} {
			configs = append(configs, config{format: format, layout: layout, reasoning: "keep"},
				config{format: format, layout: layout, asWritten: true, reasoning: "drop"})
		}
	}
	configs = append(configs,
		config{format: export.FormatJSONL, layout: "prompt-completion", keep: true, reasoning: "keep", includeFailed: true},
		config{format: export.FormatJSONL, layout: "messages", keep: true, reasoning: "keep", includeFailed: true},
		config{format: export.FormatDPO, reasoning: "keep"},
		config{format: export.FormatDPO, asWritten: true, reasoning: "keep"})
	for _, c := range configs {
		name := fmt.Sprintf("%s/%s/as-written=%v/keep-tool-calls=%v/reasoning=%s", c.format, c.layout, c.asWritten, c.keep, c.reasoning)
		t.Run(name, func(t *testing.T) {
			o := options(in, t.TempDir(), c.format)
			o.Layout, o.AsWritten, o.KeepToolCalls, o.Reasoning, o.IncludeFailedRuns = cmpOr(c.layout, o.Layout), c.asWritten, c.keep, c.reasoning, c.includeFailed
			o.Valid = 0.3
			runExport(t, o)
			rows := trainedRows(t, o)
			if len(rows) == 0 {
				t.Fatal("no rows")
			}
			refusedInContext, foreign, reasoned := 0, 0, 0
			for _, r := range rows {
				turn := turns[r.runID+"#"+itoa(r.step)]
				if turn == nil {
					t.Fatalf("row of %s step %d: no such turn", r.runID, r.step)
				}
				if turn.Outcome.Status != schemas.StatusApplied && (turn.Outcome.Status != schemas.StatusStopped || turn.Action.Verb != "DONE") {
					t.Errorf("%s step %d: trained a draft the harness did not take (%s %s): %q", r.runID, r.step, turn.Outcome.Status, turn.Outcome.Code, r.target.Content)
				}
				answer, _ := draft.ReadReasoning(turn.Reply)
				own, err := draft.Parse(answer, turn.Reply.ToolCalls)
				if err != nil {
					t.Fatalf("%s step %d: the model's draft does not parse: %v", r.runID, r.step, err)
				}
				if answer != r.target.Content && len(turn.Reply.ToolCalls) == 0 {
					foreign++
					if !r.parquet && r.asWritten != strings.TrimRight(answer, "\n") {
						t.Errorf("%s step %d: the provenance keeps %q, the model wrote %q", r.runID, r.step, r.asWritten, answer)
					}
				}
				switch {
				case c.asWritten && len(turn.Reply.ToolCalls) == 0:
					if r.target.Content != answer {
						t.Errorf("%s step %d: --as-written trained %q, the model wrote %q", r.runID, r.step, r.target.Content, answer)
					}
				default:
					var calls []schemas.ToolCall
					for _, tc := range r.target.ToolCalls {
						calls = append(calls, schemas.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
					}
					got, err := draft.Parse(r.target.Content, calls)
					switch {
					case err != nil:
						t.Errorf("%s step %d: the trained draft does not parse: %v\n%q", r.runID, r.step, err, r.target.Content)
					case !c.asWritten && got.Shape != draft.ShapeCanonical && (len(calls) == 0 || got.Shape != draft.ShapeToolCall):
						t.Errorf("%s step %d: the trained draft is not in canonical form (shape %s):\n%q", r.runID, r.step, got.Shape, r.target.Content)
					case what(got) != what(own):
						t.Errorf("%s step %d: the trained draft does another thing than the model's:\n%q\n%q", r.runID, r.step, r.target.Content, answer)
					}
				}
				if strings.Contains(r.target.Content, "<think>") {
					t.Errorf("%s step %d: reasoning inside the trained content: %q", r.runID, r.step, r.target.Content)
				}
				if r.target.ReasoningContent != "" {
					reasoned++
					if c.reasoning == "drop" || !slices.Contains([]string{deltaThinking, deltaServerThinking, deltaRecorded}, r.target.ReasoningContent) {
						t.Errorf("%s step %d: reasoning_content %q with --reasoning %s", r.runID, r.step, r.target.ReasoningContent, c.reasoning)
					}
				}
				if c.layout == "messages" && c.format != export.FormatDPO {
					if r.target.Weight == nil || *r.target.Weight != 1 {
						t.Errorf("%s step %d: the draft to learn has weight %v", r.runID, r.step, r.target.Weight)
					}
				}
				for _, m := range r.context {
					if m.Role != "assistant" {
						continue
					}
					if c.layout == "messages" && c.format != export.FormatDPO && (m.Weight == nil || *m.Weight != 0) {
						t.Errorf("%s step %d: an earlier draft of the context is trained: %q", r.runID, r.step, m.Content)
					}
					if slices.Contains(refused, m.Content) {
						refusedInContext++
					}
				}
			}
			if refusedInContext == 0 && c.format != export.FormatDPO {
				t.Error("no row carries a refused draft in its context: the fixture does not test what it should")
			}
			wantReasoned := 0
			if c.reasoning == "keep" {
				wantReasoned = 3 // delta's PATCH, RUN and WRITE
			}
			if c.format == export.FormatDPO {
				wantReasoned = 0 // delta's PATCH is no chosen side
			}
			if reasoned != wantReasoned {
				t.Errorf("%d trained drafts carry reasoning, want %d", reasoned, wantReasoned)
			}
			if !c.asWritten && foreign == 0 {
				t.Error("no trained draft was rewritten into canonical form: the fixture does not test what it should")
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// remarshal decodes v, a value decoded from JSON, into out.
func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
