package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run stopped stuck is said the same way wherever it shows: run's and
// show's first line name the refusal that repeated, bench's why and the
// verdict's reason say "stuck, CODE N times in a row", stats and the
// report count it under the stop reason stuck with its code, and every
// cost table counts the calls its refused drafts took.
func TestStuckInOneVocabulary(t *testing.T) {
	dir := t.TempDir()
	const doneNoQuote = "DONE the code is already correct"
	writeFiles(t, dir, map[string]string{"stuck.jsonl": scriptLines(t, []string{"READ names.py", doneNoQuote, doneNoQuote, doneNoQuote, "RUN tests"})})
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "bench", "--model", "scripted:"+filepath.Join(dir, "stuck.jsonl"), "--case", "initials", "--repeat", "1", "--out", out)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The case asks for a name its repository lacks: the DONE is refused
	// name-missing; the run below, on a repository that has the name,
	// quote-required.
	stuckLine := func(code string) string {
		return `STUCK: the same draft ("DONE the code is already correct") was refused ` + code + ` 3 times in a row from step 2, and the run stopped.`
	}
	why := func(code string) string { return "stuck, " + code + " 3 times in a row" }
	for _, want := range []string{
		"wrote nothing (stop: " + why("name-missing") + ")",
		"4      4      stuck",
		"1 run(s) stopped stuck (the same draft refused with the same code again and again), leaving 16 step(s) of their budgets unspent",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bench lacks %q:\n%s", want, stdout)
		}
	}
	if fields := costRow(stdout, "scripted (not a model)"); strings.Join(fields, " ") != "1 4 4.0 0.0 0.0 3 (75%) 1" {
		t.Errorf("bench's cost row %q, want 1 run, 4 calls, 3 of them refused, 1 stuck", fields)
	}

	code, stdout, _ = runCLI(t, "show", "--in", out, "--last")
	if code != 0 || !strings.HasPrefix(stdout, stuckLine("name-missing")+"\n") || !strings.Contains(stdout, "stop reason stuck") || !strings.Contains(stdout, why("name-missing")) {
		t.Errorf("show: exit %d, want its first line %q, and the reason\n%s", code, stuckLine("name-missing"), stdout)
	}

	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{"names.py": "def initials(name):\n    return name[:1]\n", "test_names.py": "import unittest\n\nfrom names import initials\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(initials(\"Ada\"), \"A\")\n"})
	code, stdout, stderr = runCLI(t, "run", "--repo", repo, "--task", "Make initials take every word", "--target", "names.py",
		"--model", "scripted:"+filepath.Join(dir, "stuck.jsonl"), "--out", filepath.Join(dir, "adhoc"))
	if code != 0 || !strings.HasPrefix(stdout, stuckLine("quote-required")+"\n") || !strings.Contains(stdout, "stop reason stuck") || !strings.Contains(stdout, why("quote-required")) {
		t.Errorf("run: exit %d, want its first line %q and the reason\n%s\n%s", code, stuckLine("quote-required"), stdout, stderr)
	}

	dataset := filepath.Join(dir, "dataset")
	if code, _, stderr := runCLI(t, "classify", "--in", out, "--out", dataset); code != 0 {
		t.Fatalf("classify: exit %d\n%s", code, stderr)
	}
	for _, in := range []string{out, dataset} {
		code, stdout, stderr = runCLI(t, "stats", "--in", in)
		if code != 0 || !fieldsLine(stdout, "stuck", "100%", "1") {
			t.Errorf("stats --in %s: exit %d, no stop-reason row for stuck\n%s\n%s", in, code, stdout, stderr)
		}
	}
	code, stdout, _ = runCLI(t, "stats", "--in", out)
	if !strings.Contains(stdout, "by the refusal that repeated: name-missing 1") || strings.Join(costRow(stdout, "scripted (not a model)"), " ") != "1 4 4.0 0.0 0.0 3 (75%) 1" {
		t.Errorf("stats on the traces: no stuck code or cost row\n%s", stdout)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", "--in", out, "--out", page); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	html, _ := os.ReadFile(page)
	for _, want := range []string{"<td><code>stuck</code></td>", "by the refusal that repeated: <code>name-missing</code> 1", "<td class=\"n\">3 (75%)</td>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// costRow is the cells after the label of a cost table's row.
func costRow(out, label string) []string {
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, label); ok && strings.Contains(out, "Cost per run") {
			return strings.Fields(rest)
		}
	}
	return nil
}

// fieldsLine reports whether a line of out holds exactly these fields.
func fieldsLine(out string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}
