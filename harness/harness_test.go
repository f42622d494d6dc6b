package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// fixture is a small Python project whose unittest suite passes.
var fixture = map[string]string{
	"greet.py":          "def greet(name):\n    return \"Hello, \" + name\n",
	"tests/__init__.py": "",
	"tests/test_greet.py": "import unittest\nfrom greet import greet\n\n\nclass TestGreet(unittest.TestCase):\n" +
		"    def test_greet(self):\n        self.assertEqual(greet(\"Ada\"), \"Hello, Ada\")\n",
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// script turns drafts into a scripted backend.
func script(t *testing.T, drafts ...string) *scripted.Backend {
	t.Helper()
	var b strings.Builder
	for _, d := range drafts {
		line, _ := json.Marshal(map[string]string{"content": d})
		b.Write(line)
		b.WriteByte('\n')
	}
	m, err := scripted.NewFromReader(strings.NewReader(b.String()), "test-script")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type runOutcome struct {
	res   *Result
	turns []*schemas.Turn
	repo  string
}

// runScripted runs the real loop on a copy of files with the drafts.
func runScripted(t *testing.T, files map[string]string, cfg Config, drafts ...string) runOutcome {
	t.Helper()
	var lines []string
	for _, d := range drafts {
		line, _ := json.Marshal(map[string]string{"content": d})
		lines = append(lines, string(line))
	}
	return runScriptedLines(t, files, cfg, lines...)
}

// runScriptedLines runs the real loop with raw script lines.
func runScriptedLines(t *testing.T, files map[string]string, cfg Config, lines ...string) runOutcome {
	t.Helper()
	m, err := scripted.NewFromReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), "test-script")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	writeTree(t, repo, files)
	cfg.Repo = repo
	cfg.OutDir = t.TempDir()
	if cfg.RunID == "" {
		cfg.RunID = "test-run"
	}
	if cfg.Task == "" {
		cfg.Task = "Add initials(name) to initials.py"
	}
	cfg.Model = schemas.Model{Backend: "scripted", Name: "test-script"}
	cfg.SuiteTimeout = time.Minute
	res, err := Run(context.Background(), cfg, m)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run, err := trace.ReadRun(trace.File{RunID: cfg.RunID, Attempt: 1, Path: res.TracePath})
	if err != nil {
		t.Fatalf("read trace back: %v", err)
	}
	if !run.Complete() {
		t.Fatal("the trace has no run_end")
	}
	return runOutcome{res: res, turns: run.Turns, repo: repo}
}

const (
	readGreet    = "READ greet.py"
	runTests     = "RUN tests"
	writeInitOK  = "WRITE initials.py\n```python\ndef initials(name):\n    return \" \".join(p[0] + \".\" for p in name.split())\n```"
	doneSummary  = "DONE initials added; tests pass"
	patchGreetOK = "PATCH greet.py\nFIND:\n```\n    return \"Hello, \" + name\n```\nREPLACE:\n```\n    return \"Hello, \" + name.strip()\n```"
)

// Each guard code, driven through the real loop with a scripted model: the
// turn after the offending draft is sent the code, and the record says so.
func TestGuards(t *testing.T) {
	initialsTask := Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}}}
	greetTask := Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Subject: "greet", Task: "Make greet strip spaces from the name"}}
	tests := []struct {
		name   string
		cfg    Config
		files  map[string]string
		drafts []string
		// step whose outcome carries the code (1-based), and the code
		step int
		code schemas.Code
	}{
		{"run-tests-first", initialsTask, nil, []string{writeInitOK, doneSummary, runTests, doneSummary}, 2, schemas.CodeRunTestsFirst},
		{"read-before-patch", greetTask, nil, []string{patchGreetOK, readGreet, patchGreetOK, runTests, doneSummary}, 1, schemas.CodeReadBeforePatch},
		{"wrong-file", initialsTask, nil, []string{"WRITE greet.py\n```python\ndef greet(name):\n    return name\n```", writeInitOK, runTests, doneSummary}, 1, schemas.CodeWrongFile},
		{"find-not-found", greetTask, nil, []string{readGreet, "PATCH greet.py\nFIND:\n```\n    return 'Hi ' + name\n```\nREPLACE:\n```\n    return 'Hi'\n```", patchGreetOK, runTests, doneSummary}, 2, schemas.CodeFindNotFound},
		{"repeat-read", initialsTask, nil, []string{readGreet, readGreet, writeInitOK, runTests, doneSummary}, 2, schemas.CodeRepeatRead},
		{"repeat-patch", initialsTask, nil, []string{writeInitOK, writeInitOK, runTests, doneSummary}, 2, schemas.CodeRepeatPatch},
		{"too-late-to-ask", initialsTask, nil, []string{writeInitOK, "ASK Should it handle empty names?", runTests, doneSummary}, 2, schemas.CodeTooLateToAsk},
		{"no-answer", initialsTask, nil, []string{"ASK Should initials have dots?", writeInitOK, runTests, doneSummary}, 1, schemas.CodeNoAnswer},
		{"skill-repeated", initialsTask, nil, []string{"SKILL outline greet.py", "SKILL outline greet.py", writeInitOK, runTests, doneSummary}, 2, schemas.CodeSkillRepeated},
		{"outside-scope read", Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}, Scope: []string{"initials.py", "tests/**"}}}, nil,
			[]string{readGreet, writeInitOK, runTests, doneSummary}, 1, schemas.CodeOutsideScope},
		{"outside-scope write", Config{TaskSpec: schemas.TaskSpec{Names: []string{"initials"}, Scope: []string{"tests/**"}}}, nil,
			[]string{writeInitOK, "WRITE tests/initials.py\n```python\ndef initials(name):\n    return name\n```", runTests, doneSummary}, 1, schemas.CodeOutsideScope},
		{"outside-scope dot-dot", initialsTask, nil, []string{"READ ../etc/passwd", writeInitOK, runTests, doneSummary}, 1, schemas.CodeOutsideScope},
		{"deleted-subject", greetTask, nil, []string{readGreet, "WRITE greet.py\n```python\ndef hello(name):\n    return \"Hello, \" + name.strip()\n```", patchGreetOK, runTests, doneSummary}, 2, schemas.CodeDeletedSubject},
		{"quote-required", Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Task: "Check greet is right"}}, nil,
			[]string{readGreet, "DONE it is already correct", "DONE already correct: `return \"Hello, \" + name`"}, 2, schemas.CodeQuoteRequired},
		{"name-missing", initialsTask, nil, []string{"WRITE initials.py\n```python\ndef initial(name):\n    return name[:1]\n```", runTests, doneSummary, writeInitOK, runTests, doneSummary}, 3, schemas.CodeNameMissing},
		{"vague-name", initialsTask, nil, []string{"WRITE initials.py\n```python\ndef helper2(p):\n    return p[0]\n\n\ndef initials(name):\n    return \" \".join(helper2(p) + \".\" for p in name.split())\n```", writeInitOK, runTests, doneSummary}, 1, schemas.CodeVagueName},
		{"module-twice", Config{TaskSpec: schemas.TaskSpec{Names: []string{"initials"}}}, nil,
			[]string{writeInitOK, "WRITE name_initials.py\n```python\ndef initials(name):\n    return \"\".join(p[0] for p in name.split())\n```", runTests, doneSummary}, 2, schemas.CodeModuleTwice},
		{"suite-broken", greetTask, nil, []string{readGreet, "WRITE greet.py\n```python\ndef greet(name):\n    return \"Hi \" + name\n```", patchGreetOK, runTests, doneSummary}, 2, schemas.CodeSuiteBroken},
		{"parse-failed", initialsTask, nil, []string{"I think we should look at the code first.", writeInitOK, runTests, doneSummary}, 1, schemas.CodeParseFailed},
		{"empty-reply", initialsTask, nil, []string{"", writeInitOK, runTests, doneSummary}, 1, schemas.CodeEmptyReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.files
			if files == nil {
				files = fixture
			}
			out := runScripted(t, files, tt.cfg, tt.drafts...)
			if len(out.turns) < tt.step+1 && tt.code != schemas.CodeSuiteBroken {
				t.Fatalf("the run took %d steps; want the code at step %d and a next step that is sent it (stop %s)", len(out.turns), tt.step, out.res.End.StopReason)
			}
			got := out.turns[tt.step-1].Outcome.Code
			if got != tt.code {
				t.Fatalf("step %d outcome code = %q, want %q (outcome %+v)", tt.step, got, tt.code, out.turns[tt.step-1].Outcome)
			}
			if tt.step < len(out.turns) {
				sent := out.turns[tt.step].Sent
				if sent.Code != tt.code {
					t.Errorf("step %d was sent code %q (kind %s), want %q", tt.step+1, sent.Code, sent.Kind, tt.code)
				}
				wantKind := schemas.KindRefusalOrNudge
				if tt.code == schemas.CodeParseFailed {
					wantKind = schemas.KindParseFailure
				}
				if sent.Kind != wantKind {
					t.Errorf("step %d was sent kind %q, want %q", tt.step+1, sent.Kind, wantKind)
				}
			}
			if out.res.End.StopReason == "" {
				t.Error("no stop reason recorded")
			}
		})
	}
}

func TestIsVague(t *testing.T) {
	tests := []struct {
		name  string
		vague bool
	}{
		{"foo", true}, {"helper2", true}, {"new_function", true}, {"func1", true}, {"do_stuff", true}, {"_tmp", true},
		{"initials", false}, {"count_words", false}, {"process", false}, {"handle", false}, {"parse_duration", false}, {"Helper", true},
	}
	for _, tt := range tests {
		if got := isVague(tt.name); got != tt.vague {
			t.Errorf("isVague(%q) = %v, want %v", tt.name, got, tt.vague)
		}
	}
}

// The opening turn of a real run names the suite command as it runs: the
// interpreter by name, never the "{python}" template of a case, whether
// the command was given or detected.
func TestOpeningShowsTheSuiteCommandAsItRuns(t *testing.T) {
	tests := []struct {
		name  string
		suite string
		// want follows the interpreter's file name in the opening
		want string
	}{
		{"a case's template", "{python} -m unittest discover -s tests -t .", " -m unittest discover -s tests -t .) passes now: 1 tests."},
		{"detected", "", " -m unittest discover -s tests -t .) passes now: 1 tests."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Suite: tt.suite, Targets: []string{"initials.py"}, Names: []string{"initials"}}},
				writeInitOK, runTests, doneSummary)
			var opening string
			for _, m := range out.turns[0].Sent.Messages {
				if m.Role == "user" {
					opening = m.Content
				}
			}
			line := ""
			for _, l := range strings.Split(opening, "\n") {
				if strings.HasPrefix(l, "Tests: ") {
					line = l
				}
			}
			python := filepath.Base(out.res.Start.Python)
			if want := "Tests: the suite (" + python + tt.want; line != want {
				t.Errorf("the opening's suite line is\n%q\nwant\n%q", line, want)
			}
			if strings.Contains(line, "{") {
				t.Errorf("the opening shows a placeholder: %q", line)
			}
		})
	}
}

func TestShownSuiteCommand(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		python     string
		configured string
		want       string
	}{
		{"interpreter by name", []string{"/opt/py/bin/python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."}, "/opt/py/bin/python3", "{python} -m unittest discover -s tests -t .", "python3 -m unittest discover -s tests -t ."},
		{"pytest", []string{"/usr/bin/python3", "-m", "pytest", "-q"}, "/usr/bin/python3", "", "python3 -m pytest -q"},
		{"a runner script keeps its path", []string{"./run_tests"}, "/usr/bin/python3", "./run_tests", "./run_tests"},
		{"go test", []string{"go", "test", "./..."}, "", "", "go test ./..."},
		{"an argument with a space is quoted", []string{"/usr/bin/python3", "-m", "unittest", "tests/test a.py"}, "/usr/bin/python3", "", `python3 -m unittest "tests/test a.py"`},
		{"no vector: the template filled", nil, "/usr/bin/python3", "{python} -m unittest", "python3 -m unittest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shownSuiteCommand(tt.argv, tt.python, tt.configured); got != tt.want {
				t.Errorf("shownSuiteCommand = %q, want %q", got, tt.want)
			}
		})
	}
}
