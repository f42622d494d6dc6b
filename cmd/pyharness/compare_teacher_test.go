package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// teacherRow reads the "the teacher's action" row's two counts.
func teacherRow(t *testing.T, out string) (int, int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^the teacher's action\s+(\d+) \(.*?\)\s+(\d+) \(`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no teacher's action row in:\n%s", out)
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return a, b
}

// TestCompareTeacherRows holds a bench's turns against a teacher's worked
// runs, case by case and step by step: the scripted drafts take their own
// actions, and a teacher that ran only one of the cases teaches nothing
// about the other.
func TestCompareTeacherRows(t *testing.T) {
	dir := t.TempDir()
	both, one := filepath.Join(dir, "both"), filepath.Join(dir, "one")
	for _, b := range []struct {
		out   string
		cases []string
	}{{both, []string{"env-flag", "initials"}}, {one, []string{"initials"}}} {
		args := []string{"bench", "--repeat", "1", "--model", "scripted", "--out", b.out}
		for _, c := range b.cases {
			args = append(args, "--case", c)
		}
		if code, _, stderr := runCLI(t, args...); code != 0 && code != 1 {
			t.Fatalf("bench exit %d: %s", code, stderr)
		}
	}
	code, out, stderr := runCLI(t, "bench", "compare", both, both, "--teacher", both)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	self, same := teacherRow(t, out)
	if self == 0 || self != same {
		t.Errorf("held against itself: %d and %d turns take the teacher's action, want the same number above 0", self, same)
	}
	code, out, stderr = runCLI(t, "bench", "compare", both, both, "--teacher", one)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fewer, _ := teacherRow(t, out); fewer >= self {
		t.Errorf("a teacher of one case: %d turns take its action, want fewer than the %d of a teacher of both", fewer, self)
	}
	code, _, stderr = runCLI(t, "bench", "compare", both, both, "--teacher", filepath.Join(dir, "nowhere"))
	if code == 0 {
		t.Errorf("a missing teacher directory: exit 0\n%s", stderr)
	}
}
