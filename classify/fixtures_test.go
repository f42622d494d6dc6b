package classify

import (
	"flag"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

var writeFixtures = flag.Bool("fixtures", false, "rewrite the hand-made runs of testdata/traces, and run no test")

func TestMain(m *testing.M) {
	flag.Parse()
	if *writeFixtures {
		rewriteFixtures(func(args ...any) { log.Fatal(args...) })
		return
	}
	os.Exit(m.Run())
}

// The fixed trace set of testdata/traces is passes 1 and 4 of a scripted
// `pyharness bench --model scripted --repeat 4` (thirty runs, copied as
// recorded), plus the hand-made runs below, which cover what a scripted
// benchmark never records: a model that fails, a cancelled run resumed as a
// second attempt, a parse failure, a run settled with no model step, and a
// run of another harness recorded without kinds or codes.
// go test ./classify -fixtures rewrites them (TestMain calls
// rewriteFixtures and runs no test). They are data, not this code's output:
// written by earlier builds, they also stand for traces of older schema
// minors, so no test compares them with what this code would write.
func rewriteFixtures(fail func(...any)) {
	dir := filepath.Join("testdata", "traces", "runs")
	for _, name := range []string{"dogfood-cli-error.jsonl", "dogfood-cli-flag.jsonl", "dogfood-cli-flag.attempt-2.jsonl", "dogfood-settled.jsonl", "adhoc-legacy.jsonl"} {
		os.Remove(filepath.Join(dir, name))
	}
	ollama := schemas.Model{Backend: "ollama", Name: "llama3.1:8b", Digest: "sha256:46e0c10c039e", Options: schemas.Options{Seed: 1, Temperature: 0.2, NumCtx: 8192, NumPredict: 1024}}
	hosted := schemas.Model{Backend: "openai", Name: "Qwen/Qwen2.5-Coder-32B", Options: schemas.Options{Seed: 7, NumCtx: 32768, NumPredict: 2048}}
	clock := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	// A model server that fails at the second step.
	f := newFixture(fail, dir, "dogfood-cli-error", schemas.SourceDogfood, "cli-help", ollama, &clock)
	f.turn(schemas.KindOpening, "", "Task: make `cli.py --help` list every subcommand.", "READ cli.py", true, schemas.Outcome{Status: schemas.StatusApplied})
	f.turn(schemas.KindToolResult, "", "cli.py (lines 1-3 of 3):\n```python\nimport argparse\n```", "", true, schemas.Outcome{Status: schemas.StatusFailed, Code: "model-error", Message: "connection refused"})
	f.end(schemas.RunEnd{Verdict: schemas.VerdictError, StopReason: schemas.StopModelError, Error: "connection refused"})

	// Cancelled, then resumed as attempt 2, which parses a chatty draft on
	// the second try and works.
	f = newFixture(fail, dir, "dogfood-cli-flag", schemas.SourceDogfood, "cli-flag", ollama, &clock)
	f.turn(schemas.KindOpening, "", "Task: add a --verbose flag to cli.py.", "", true, schemas.Outcome{Status: schemas.StatusStopped, Code: "cancelled", Message: "the run was cancelled"})
	f.end(schemas.RunEnd{Verdict: schemas.VerdictCancelled, StopReason: schemas.StopCancelled})
	f = newFixture(fail, dir, "dogfood-cli-flag", schemas.SourceDogfood, "cli-flag", ollama, &clock)
	f.turn(schemas.KindOpening, "", "Task: add a --verbose flag to cli.py.", "I think we should look at the CLI first.", true, schemas.Outcome{Status: schemas.StatusRefused, Code: schemas.CodeParseFailed, Message: "could not read an action from your reply: no action verb found."})
	f.turn(schemas.KindParseFailure, schemas.CodeParseFailed, "could not read an action from your reply: no action verb found.\nReply with exactly one action, on a line of its own, in one of these shapes:", "READ cli.py", true, schemas.Outcome{Status: schemas.StatusApplied})
	f.turn(schemas.KindToolResult, "", "cli.py (lines 1-3 of 3):\n```python\nimport argparse\n```", "WRITE cli.py\n```python\nimport argparse\nVERBOSE = True\n```", true, schemas.Outcome{Status: schemas.StatusApplied, FilesChanged: []string{"cli.py"}})
	f.turn(schemas.KindToolResult, "", "Wrote cli.py (+1 -0 lines). RUN tests to check it.", "RUN tests", true, schemas.Outcome{Status: schemas.StatusApplied})
	f.turn(schemas.KindToolResult, "", "Tests: 4 ran, all passed.", "DONE --verbose added; tests pass", true, schemas.Outcome{Status: schemas.StatusStopped, Message: "DONE accepted"})
	f.end(schemas.RunEnd{Verdict: schemas.VerdictWorked, ClaimedDone: true, StopReason: schemas.StopDone, Writes: []schemas.Write{{Path: "cli.py", Added: 1}},
		SuiteBefore: schemas.SuiteCounts{Ran: 4, Passed: 4}, SuiteAfter: schemas.SuiteCounts{Ran: 4, Passed: 4}})

	// Settled by the harness's own checks, without a model step.
	f = newFixture(fail, dir, "dogfood-settled", schemas.SourceDogfood, "lint-imports", ollama, &clock)
	f.end(schemas.RunEnd{Verdict: schemas.VerdictWorked, StopReason: schemas.StopNoModelSteps, Writes: []schemas.Write{{Path: "setup.cfg", Added: 1, Removed: 1}},
		SuiteBefore: schemas.SuiteCounts{Ran: 9, Passed: 9}, SuiteAfter: schemas.SuiteCounts{Ran: 9, Passed: 9}})

	// Another harness's run, converted to schema v1 without kinds or codes.
	f = newFixture(fail, dir, "adhoc-legacy", schemas.SourceAdhoc, "", hosted, &clock)
	f.turn("", "", "Your job: make slugify() drop accents.", "READ slug.py", true, schemas.Outcome{Status: schemas.StatusApplied})
	f.turn("", "", "Contents of slug.py:\n```python\ndef slugify(s):\n    return s.lower()\n```", "PATCH slug.py\nFIND:\n```\nreturn s.lower\n```\nREPLACE:\n```\nreturn s\n```", true, schemas.Outcome{Status: schemas.StatusRefused})
	f.turn("", "", "The search text is not in slug.py; it looks copied from memory.", "WRITE slug.py\n```python\nimport unicodedata\ndef slugify(s):\n    return unicodedata.normalize('NFKD', s).lower()\n```", true, schemas.Outcome{Status: schemas.StatusApplied, FilesChanged: []string{"slug.py"}})
	f.turn("", "", "File saved.", "DONE accents dropped", true, schemas.Outcome{Status: schemas.StatusRefused})
	f.turn("", "", "Please run the tests before you finish.", "RUN tests", true, schemas.Outcome{Status: schemas.StatusApplied})
	f.turn("", "", "3 tests ran, all passed.", "DONE accents dropped; tests pass", true, schemas.Outcome{Status: schemas.StatusStopped})
	f.end(schemas.RunEnd{Verdict: schemas.VerdictFailed, FailureClass: schemas.FailDidNotDoTheJob, ClaimedDone: true, StopReason: schemas.StopDone,
		Writes: []schemas.Write{{Path: "slug.py", Added: 2, Removed: 1}}, Checks: schemas.Checks{Ran: true, FirstFailure: "AssertionError: 'creme-brulee' != 'crème-brûlée'"},
		SuiteBefore: schemas.SuiteCounts{Ran: 3, Passed: 3}, SuiteAfter: schemas.SuiteCounts{Ran: 3, Passed: 3}})
}

// fixture writes one hand-made run through the real trace writer.
type fixture struct {
	fail  func(...any)
	w     *trace.Writer
	id    string
	clock *time.Time
	conv  schemas.Conversation
	reply string
	steps int
	model int
}

func newFixture(fail func(...any), dir, id, source, caseID string, m schemas.Model, clock *time.Time) *fixture {
	w, err := trace.Create(dir, id)
	if err != nil {
		fail(err)
	}
	f := &fixture{fail: fail, w: w, id: id, clock: clock}
	start := &schemas.RunStart{Schema: schemas.Schema, RunID: id, Attempt: w.Attempt(), Source: source, CaseID: caseID, Pass: 1, Model: m,
		Harness: schemas.Harness{Version: "0.1.0-dev", Commit: "fixture"}, Task: "see the opening turn", Scope: []string{"**"},
		Suite: "{python} -m unittest", Python: "python3", StartedAt: f.tick()}
	f.write(schemas.Record{RunStart: start})
	return f
}

func (f *fixture) tick() time.Time {
	*f.clock = f.clock.Add(1500 * time.Millisecond)
	return *f.clock
}

func (f *fixture) write(rec schemas.Record) {
	if err := f.w.Write(rec); err != nil {
		f.fail(err)
	}
}

// turn records a step: what the harness sent (kind, code, text), the reply,
// and what came of it.
func (f *fixture) turn(kind schemas.Kind, code schemas.Code, sent, reply string, modelStep bool, out schemas.Outcome) {
	f.steps++
	var msgs []schemas.Message
	if f.steps == 1 {
		msgs = append(msgs, schemas.Message{Role: "system", Content: "You are a careful coding agent."})
	} else {
		msgs = append(msgs, schemas.Message{Role: "assistant", Content: f.reply})
	}
	msgs = append(msgs, schemas.Message{Role: "user", Content: sent})
	prompt, _ := f.conv.Apply(&schemas.Turn{Sent: schemas.Sent{Messages: msgs}})
	t := &schemas.Turn{RunID: f.id, Step: f.steps, ModelStep: modelStep, StartedAt: f.tick(),
		Sent:    schemas.Sent{Kind: kind, Code: code, Messages: msgs, PromptHash: schemas.PromptHash(prompt)},
		Reply:   schemas.Reply{Content: reply, FinishReason: "stop"},
		Action:  schemas.Action{Shape: "canonical", Via: "text"},
		Outcome: out,
		Metrics: schemas.Metrics{PromptTokens: new(900 + 150*f.steps), OutputTokens: new(40), TotalMS: 2100, EvalMS: new(int64(1500)), PromptEvalMS: new(int64(500)), TTFTMS: new(int64(600))},
	}
	if out.Code == "model-error" {
		t.Attempts = []schemas.Attempt{{N: 1, Error: "connection refused", WaitMS: 500}, {N: 2, Error: "connection refused", WaitMS: 1000}, {N: 3, Error: "connection refused"}}
		t.Metrics = schemas.Metrics{}
	} else {
		t.Attempts = []schemas.Attempt{{N: 1}}
	}
	if modelStep && out.Code != "model-error" && out.Code != "cancelled" {
		f.model++
	}
	if v, p, ok := parseVerbPath(reply); ok {
		t.Action.Verb, t.Action.Path = v, p
	} else {
		t.Action.Shape = "none"
	}
	t.EndedAt = f.tick()
	f.reply = reply
	f.write(schemas.Record{Turn: t})
}

func parseVerbPath(reply string) (verb, path string, ok bool) {
	line, _, _ := strings.Cut(reply, "\n")
	verb, path, _ = strings.Cut(line, " ")
	switch verb {
	case "READ", "WRITE", "PATCH":
		return verb, strings.TrimSpace(path), true
	case "RUN", "DONE":
		return verb, "", true
	}
	return "", "", false
}

func (f *fixture) end(e schemas.RunEnd) {
	e.RunID, e.Steps, e.ModelSteps, e.EndedAt = f.id, f.steps, f.model, f.tick()
	e.DurationMS = int64(f.steps+1) * 1500
	f.write(schemas.Record{RunEnd: &e})
	if err := f.w.Close(); err != nil {
		f.fail(err)
	}
}
