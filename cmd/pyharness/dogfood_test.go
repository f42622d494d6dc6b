package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/schemas"
)

// slugRepo is a small real-looking project (python-slugify's shape: a
// package, a unittest file, no installed dependencies) whose suite has one
// test failing before any task: it imports a package that is not installed.
var slugRepo = map[string]string{
	"README.md":         "# slug\n\nTurn text into URL slugs.\n",
	"slug/__init__.py":  "from .slugify import slugify\n\n__all__ = [\"slugify\"]\n",
	"slug/slugify.py":   "import re\n\n\ndef slugify(text, separator=\"-\"):\n    \"\"\"Lower-case text, with runs of non-alphanumerics as one separator.\"\"\"\n    text = text.lower()\n    return re.sub(r\"[^a-z0-9]+\", separator, text)\n",
	"tests/__init__.py": "",
	"tests/test_slugify.py": "import unittest\n\nfrom slug import slugify\n\n\nclass TestSlugify(unittest.TestCase):\n" +
		"    def test_words(self):\n        self.assertEqual(slugify(\"Hello World\"), \"hello-world\")\n\n" +
		"    def test_separator(self):\n        self.assertEqual(slugify(\"a b\", separator=\"_\"), \"a_b\")\n\n" +
		"    def test_unidecode_transliteration(self):\n        import unidecode_not_installed_here  # the optional extra is not installed\n" +
		"        self.assertEqual(slugify(\"ça\"), \"ca\")\n",
}

// slugStrip is a correct change for "strip surrounding separators".
var slugStrip = []string{
	"READ slug/slugify.py",
	"PATCH slug/slugify.py\nFIND:\n```python\n    return re.sub(r\"[^a-z0-9]+\", separator, text)\n```\nREPLACE:\n```python\n    return re.sub(r\"[^a-z0-9]+\", separator, text).strip(separator)\n```",
	"RUN tests",
	"DONE slugify strips separators from both ends; the suite's one failing test needs an extra that is not installed, as before",
}

// interpreterWithPytest is /usr/bin/python3 or the first python3 on PATH
// that imports pytest.
func interpreterWithPytest(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(name); err == nil && exec.Command(path, "-c", "import pytest").Run() == nil {
			return path
		}
	}
	needs.Missing(t, "no python 3 with pytest here (apt-get install -y python3-pytest)")
	return ""
}

// On a real-looking repository whose suite has a test failing
// before the task, a correct change works (the failing test is not the
// run's doing), the opening prompt names that test, a task that names it
// fails with the reason wherever the verdict is shown, and two identical
// passes send the model byte-identical prompts (no temporary paths, no
// timings), under pytest and under unittest.
func TestDogfoodBaselineAwareVerdict(t *testing.T) {
	python := interpreterWithPytest(t)
	for _, runner := range []string{"pytest", "unittest"} {
		t.Run(runner, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			repo := filepath.Join(dir, "slug")
			files := map[string]string{}
			for k, v := range slugRepo {
				files[k] = v
			}
			if runner == "pytest" {
				files["pytest.ini"] = "[pytest]\ntestpaths = tests\n"
			}
			writeFiles(t, repo, files)
			writeFiles(t, dir, map[string]string{"strip.jsonl": scriptLines(t, slugStrip)})
			task := "Make slugify strip separators from both ends of the slug"
			runArgs := func(out, task string) []string {
				return []string{"run", "--repo", repo, "--task", task, "--target", "slug/slugify.py",
					"--model", "scripted:" + filepath.Join(dir, "strip.jsonl"), "--python", python, "--out", filepath.Join(dir, out)}
			}

			var prompts [2][]string
			for i, out := range []string{"pass1", "pass2"} {
				code, stdout, stderr := runCLI(t, runArgs(out, task)...)
				if code != exitOK || !strings.Contains(stdout, "verdict:  worked") {
					t.Fatalf("%s: exit %d, want a worked run\n%s\n%s", out, code, stdout, stderr)
				}
				if !strings.Contains(stdout, "suite:    before 2/3 passed; after 2/3 passed") {
					t.Errorf("%s: suite line:\n%s", out, stdout)
				}
				prompts[i] = sentPrompts(t, filepath.Join(dir, out))
			}
			opening := prompts[0][0]
			for _, want := range []string{"1 of 3 tests fail before the task:", "test_unidecode_transliteration", "The task does not ask you to fix them"} {
				if !strings.Contains(opening, want) {
					t.Errorf("the opening prompt lacks %q:\n%s", want, opening)
				}
			}
			if len(prompts[0]) != len(prompts[1]) {
				t.Fatalf("pass 1 sent %d prompts, pass 2 %d", len(prompts[0]), len(prompts[1]))
			}
			for i := range prompts[0] {
				if prompts[0][i] != prompts[1][i] {
					t.Errorf("step %d: two identical passes sent different prompts:\n--- pass 1\n%s\n--- pass 2\n%s", i+1, prompts[0][i], prompts[1][i])
				}
			}
			for _, p := range prompts[0] {
				for _, bad := range []string{os.TempDir() + "/pyharness-", "generated xml file", dir} {
					if strings.Contains(p, bad) {
						t.Errorf("a prompt shows the harness's own path %q:\n%s", bad, p)
					}
				}
			}

			// The task names the failing test: now it must pass, and the run
			// that leaves it failing says so.
			code, stdout, stderr := runCLI(t, runArgs("named", task+", and make test_unidecode_transliteration pass")...)
			wantWhy := "failed before the task and still fails, and the task names it"
			if code != exitOK || !strings.Contains(stdout, "verdict:  failed (did-not-do-the-job)") || !strings.Contains(stdout, "why:      ") || !strings.Contains(stdout, wantWhy) {
				t.Fatalf("named: exit %d, want a failed run with its reason\n%s\n%s", code, stdout, stderr)
			}
			code, stdout, stderr = runCLI(t, "show", "--in", filepath.Join(dir, "named"), "--last")
			if code != exitOK || !strings.Contains(stdout, "\nwhy       ") || !strings.Contains(stdout, wantWhy) {
				t.Errorf("show: exit %d, want the reason under the verdict\n%s\n%s", code, stdout, stderr)
			}
			end := runEnd(t, filepath.Join(dir, "named"))
			if !strings.Contains(end.Reason, wantWhy) {
				t.Errorf("run_end.reason = %q, want %q", end.Reason, wantWhy)
			}
		})
	}
}

// scriptLines is a scripted backend's file for drafts.
func scriptLines(t *testing.T, drafts []string) string {
	t.Helper()
	return string(scripted.Drafts(drafts...))
}

// traceOf is the one trace file under out/runs.
func traceOf(t *testing.T, out string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "runs", "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("%s: want one trace, got %v (%v)", out, files, err)
	}
	return files[0]
}

// sentPrompts are the messages each turn of out's one run sent, as JSON.
func sentPrompts(t *testing.T, out string) []string {
	t.Helper()
	var prompts []string
	forEachRecord(t, traceOf(t, out), func(typ string, line []byte) {
		if typ != "turn" {
			return
		}
		var turn schemas.Turn
		if err := json.Unmarshal(line, &turn); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range turn.Sent.Messages {
			b.WriteString(m.Role + ": " + m.Content + "\n")
		}
		prompts = append(prompts, b.String())
	})
	return prompts
}

// runEnd is the run_end record of out's one run.
func runEnd(t *testing.T, out string) schemas.RunEnd {
	t.Helper()
	var end schemas.RunEnd
	forEachRecord(t, traceOf(t, out), func(typ string, line []byte) {
		if typ == "run_end" {
			if err := json.Unmarshal(line, &end); err != nil {
				t.Fatal(err)
			}
		}
	})
	return end
}

func forEachRecord(t *testing.T, path string, f func(typ string, line []byte)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatal(err)
		}
		f(head.Type, sc.Bytes())
	}
}
