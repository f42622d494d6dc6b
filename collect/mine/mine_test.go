package mine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// The task text names the failing tests and their symptoms, and never a
// line the fix writes: a symptom that quotes one is left out.
func TestTaskTextHoldsNoLineOfTheFix(t *testing.T) {
	rep := &testReport{Tests: map[string]testResult{
		"tests/test_a.py::test_x": {Outcome: "failed", Message: "AssertionError: assert 3 == 4"},
		"tests/test_a.py::test_y": {Outcome: "failed", Message: "NameError: total = sum(values) failed"},
	}}
	fix := fixLines("    return None\n", "    total = sum(values)\n    return total\n")
	text, ok := taskText([]string{"tests/test_a.py::test_x", "tests/test_a.py::test_y"}, rep, fix)
	if !ok {
		t.Fatalf("taskText refused a text it could write without the fix:\n%s", text)
	}
	for _, want := range []string{"tests/test_a.py::test_x", "assert 3 == 4", "tests/test_a.py::test_y", "2 tests"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "total = sum(values)") {
		t.Errorf("the text quotes the fix:\n%s", text)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_a.py": true, "src/pkg/mod.py": false, "pkg/mod_test.py": true, "conftest.py": true,
		"testing/helpers.py": true, "pkg/testament.py": false, "test_top.py": true,
	} {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// BenchmarkMine mines a repository and reports what a user reads in the
// summary: tasks kept and tried, tasks a minute, tests run and saved by
// selection. By default it mines a small package it writes; set
// PYHARNESS_TASKS_REPO (and PYHARNESS_TASKS_SUITE, PYHARNESS_TASKS_MAX) to
// mine a real one:
//
//	PYHARNESS_TASKS_REPO=/tmp/semver PYHARNESS_TASKS_SUITE='{python} -m pytest -o addopts=""' \
//	  go test ./collect/mine -run '^$' -bench Mine -benchtime 1x
func BenchmarkMine(b *testing.B) {
	if _, err := suite.FindPython(context.Background(), "", true); err != nil {
		needs.Missing(b, "mining needs a Python that imports pytest: %v", err)
	}
	repo := os.Getenv("PYHARNESS_TASKS_REPO")
	if repo == "" {
		repo = writeBenchRepo(b)
	}
	maxTasks := 30
	if s := os.Getenv("PYHARNESS_TASKS_MAX"); s != "" {
		maxTasks, _ = strconv.Atoi(s)
	}
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "out")
		sum, err := Run(context.Background(), Options{Repo: repo, Out: out, Suite: os.Getenv("PYHARNESS_TASKS_SUITE"), Max: maxTasks, Jobs: 2, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Kept), "kept")
		b.ReportMetric(float64(sum.Tried), "tried")
		b.ReportMetric(float64(sum.KeptByKind[kindHistory]), "history")
		b.ReportMetric(float64(sum.Kept)/sum.Elapsed.Minutes(), "tasks/min")
		b.ReportMetric(float64(sum.TestsRun), "tests-run")
		b.ReportMetric(float64(sum.TestsSaved), "tests-saved")
		for r, n := range sum.Dropped {
			b.Logf("dropped %d: %s", n, r)
		}
	}
}

// writeBenchRepo is a small package with tests in a new git repository.
func writeBenchRepo(b *testing.B) string {
	dir := b.TempDir()
	files := map[string]string{
		"calc/__init__.py": "def clamp(v, lo, hi):\n    if v < lo:\n        return lo\n    if v > hi:\n        return hi\n    return v\n\n\n" +
			"def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total / len(xs)\n\n\n" +
			"def is_even(n):\n    return n % 2 == 0\n",
		"tests/test_calc.py": "import calc\n\n\ndef test_clamp_low():\n    assert calc.clamp(-5, 0, 10) == 0\n\n\n" +
			"def test_clamp_high():\n    assert calc.clamp(50, 0, 10) == 10\n\n\ndef test_clamp_inside():\n    assert calc.clamp(5, 0, 10) == 5\n\n\n" +
			"def test_mean():\n    assert calc.mean([1, 2, 3]) == 2\n\n\ndef test_even():\n    assert calc.is_even(4) and not calc.is_even(5)\n",
	}
	for p, text := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "calc"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
