package export_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/schemas"
)

// Secrets planted in the fixture: none may appear in any export.
const (
	// in the repository's .env, and shown to the model when it reads it
	secretToken    = "sk-test-4eC39HqLyjWDarjtT1zdp7dc9aZ"
	secretPassword = "correct-horse-battery-staple"
	// in the repository's .env only, and echoed by a test run as plain
	// text: only reading the repository's environment files finds it
	secretAnalytics = "UA4471zebraquartz91lantern"
)

const envFile = "# local settings\nAPP_PORT=8000\nAPI_TOKEN=" + secretToken + "\nDB_PASSWORD='" + secretPassword + "'\nANALYTICS_ID=" + secretAnalytics + "\n"

const (
	writeA      = "WRITE a.py\n```python\ndef add(a, b):\n    return a + b\n```"
	writeAWrong = "WRITE a.py\n```python\ndef add(a, b):\n    return a - b\n```"
	writeB      = "WRITE b.py\n```python\ndef double(x):\n    return 2 * x\n```"
	writeBWrong = "WRITE b.py\n```python\ndef double(x):\n    return x + x + 1\n```"
	writeConfig = "WRITE app/config.py\n```python\nimport os\n\nTOKEN = os.environ.get(\"API_TOKEN\", \"\")\n```"
)

func tests(dur string) string { return "Ran 2 tests in " + dur + "\n\nOK" }

// writeFixture records a small benchmark and a dogfood task: exact copies
// across passes, a failed pass with a different write (a preference pair),
// a refusal, a scripted run, an incomplete and an error run, a run that
// reads an environment file with secrets in it, and one that does so with a
// native tool call. It returns the trace directory.
func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "gamma-repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte(envFile), 0o644); err != nil {
		t.Fatal(err)
	}
	shownEnv := ".env (lines 1-5 of 5):\n```\n" + envFile + "```"
	alpha := func(pass int, backend string, verdict schemas.Verdict, write, dur string) dedupetest.Run {
		return dedupetest.Run{ID: fmt.Sprintf("bench-alpha-p%d-a0000000000%d", pass, pass), Case: "alpha", Tier: 1, Pass: pass,
			Backend: backend, Verdict: verdict, Turns: []dedupetest.Turn{
				{Draft: "READ a.py", Verb: "READ", Path: "a.py", Result: "a.py (lines 1-1 of 1):\n```\n# add goes here\n```"},
				{Draft: write, Verb: "WRITE", Path: "a.py", Result: "Wrote a.py (+2 -1 lines). RUN tests to check it."},
				{Draft: "RUN tests", Verb: "RUN", Result: tests(dur)},
				{Draft: "DONE add(a, b) returns the sum; tests pass", Verb: "DONE", Status: schemas.StatusStopped},
			}}
	}
	runs := []dedupetest.Run{
		alpha(1, "", schemas.VerdictWorked, writeA, "0.004s"),
		alpha(2, "", schemas.VerdictWorked, writeA, "0.007s"),
		alpha(3, "", schemas.VerdictFailed, writeAWrong, "0.005s"),
		alpha(4, "scripted", schemas.VerdictWorked, writeA, "0.003s"),
		{ID: "bench-beta-p1-b00000000001", Case: "beta", Tier: 2, Pass: 1, Verdict: schemas.VerdictWorked, Turns: []dedupetest.Turn{
			{Draft: writeB, Verb: "WRITE", Path: "b.py", Result: "Created b.py (+2 -0 lines). RUN tests to check it."},
			{Draft: "DONE double added", Verb: "DONE", Status: schemas.StatusRefused, Code: "run-tests-first"},
			{Draft: "RUN tests", Verb: "RUN", Result: tests("0.010s")},
			{Draft: "DONE double(x) returns 2x; tests pass", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-beta-p2-b00000000002", Case: "beta", Tier: 2, Pass: 2, Verdict: schemas.VerdictFailed, Turns: []dedupetest.Turn{
			{Draft: writeBWrong, Verb: "WRITE", Path: "b.py", Result: "Created b.py (+2 -0 lines). RUN tests to check it."},
			{Draft: "RUN tests", Verb: "RUN", Result: tests("0.011s")},
			{Draft: "I am done.", Verb: ""},
			{Draft: "DONE double added", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-gamma-p1-c00000000001", Case: "gamma", Tier: 6, Pass: 1, Verdict: schemas.VerdictWorked, RepoPath: repo, Turns: []dedupetest.Turn{
			{Draft: "READ .env", Verb: "READ", Path: ".env", Result: shownEnv},
			{Draft: writeConfig, Verb: "WRITE", Path: "app/config.py", Result: "Created app/config.py (+3 -0 lines). RUN tests to check it."},
			{Draft: "RUN tests", Verb: "RUN", Result: "Ran 1 test in 0.002s\n\nOK\nanalytics: " + secretAnalytics},
			{Draft: "DONE config reads API_TOKEN", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-gamma-p2-c00000000002", Case: "gamma", Tier: 6, Pass: 2, Verdict: schemas.VerdictWorked, RepoPath: repo, Turns: []dedupetest.Turn{
			{Calls: []schemas.ToolCall{{ID: "call_1", Name: "read_file", Arguments: map[string]any{"path": ".env"}}}, Verb: "READ", Path: ".env", Result: shownEnv},
			{Draft: writeConfig, Verb: "WRITE", Path: "app/config.py", Result: "Created app/config.py (+3 -0 lines). RUN tests to check it."},
			{Draft: "RUN tests", Verb: "RUN", Result: tests("0.002s")},
			{Draft: "DONE config reads API_TOKEN", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "dogfood-tool_x-p1-d00000000001", Source: schemas.SourceDogfood, Case: "tool-x", Pass: 1, Verdict: schemas.VerdictWorked, Turns: []dedupetest.Turn{
			{Draft: "READ x.py", Verb: "READ", Path: "x.py", Result: "x.py (lines 1-2 of 2):\n```\ndef x():\n    return 1\n```"},
			{Draft: "DONE already correct: `return 1`", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-alpha-p5-a00000000005", Case: "alpha", Tier: 1, Pass: 5, Verdict: "", Turns: []dedupetest.Turn{
			{Draft: "READ a.py", Verb: "READ", Path: "a.py"},
		}},
		{ID: "bench-beta-p3-b00000000003", Case: "beta", Tier: 2, Pass: 3, Verdict: schemas.VerdictError, Turns: []dedupetest.Turn{
			{Draft: writeB, Verb: "WRITE", Path: "b.py"},
		}},
	}
	for _, r := range runs {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeScriptedOnly records two scripted runs and nothing else.
func writeScriptedOnly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for pass := 1; pass <= 2; pass++ {
		r := dedupetest.Run{ID: fmt.Sprintf("bench-alpha-p%d-e0000000000%d", pass, pass), Case: "alpha", Pass: pass, Backend: "scripted",
			Verdict: schemas.VerdictWorked, Turns: []dedupetest.Turn{{Draft: writeA, Verb: "WRITE", Path: "a.py"}, {Draft: "RUN tests", Verb: "RUN"}}}
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
