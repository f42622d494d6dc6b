package suite

import (
	"context"
	"testing"
)

// A suite that ran nothing is not a suite that passed (seed #320), whatever
// the exit code says: 0 from unittest on 3.11, 5 from 3.12 on and from
// pytest, 0 from go test.
// emptyPython is a suite with a test module and no tests.
var emptyPython = map[string]string{
	"wordcount.py":           initialsModule,
	"tests/test_initials.py": "import unittest\nfrom wordcount import initials\n",
}

func TestZeroTestsIsNotAPass(t *testing.T) {
	tests := []struct {
		name     string
		kind     Kind
		python   string // a minor version the row needs, or "" for the default
		needs    func(*testing.T)
		files    map[string]string
		command  string
		wantExit int
	}{
		{name: "unittest on Python 3.11 exits 0", kind: Unittest, python: "3.11", files: emptyPython, wantExit: 0},
		{name: "unittest on Python 3.12 exits 5", kind: Unittest, python: "3.12", files: emptyPython, wantExit: 5},
		{name: "unittest on Python 3.13 exits 5", kind: Unittest, python: "3.13", files: emptyPython, wantExit: 5},
		{name: "pytest exits 5", kind: Pytest, needs: requirePytest, files: emptyPython, wantExit: 5},
		{
			name: "pytest with every test deselected", kind: Pytest, needs: requirePytest,
			files: map[string]string{
				"tests/test_one.py": "def test_one():\n    pass\n",
			},
			command:  "{python} -m pytest -q -p no:cacheprovider -k nothing_matches",
			wantExit: 5,
		},
		{
			name: "go test with no test files", kind: GoTest, needs: requireGo,
			files: map[string]string{"go.mod": goMod, "calc.go": "package calc\n"},
		},
		{
			name: "go test -run matching nothing", kind: GoTest, needs: requireGo,
			files: map[string]string{
				"go.mod":       goMod,
				"calc.go":      "package calc\n",
				"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
			},
			command: "go test -v -count=1 -run NothingMatches ./...",
		},
		{
			name: "a command that exits 0 and says nothing", kind: Unittest,
			files:   emptyPython,
			command: "{python} -c pass",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.needs != nil {
				tt.needs(t)
			}
			r := Runner{Kind: tt.kind, Command: tt.command}
			switch {
			case tt.python != "":
				r.Python = interpreterFor(t, tt.python)
			case tt.kind != GoTest:
				requirePython(t)
			}
			dir := writeTree(t, tt.files)
			res, err := r.Run(context.Background(), dir)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if want := (tally{NoTests: true, Exit: tt.wantExit}); tallyOf(res) != want {
				t.Errorf("counts = %+v, want %+v", tallyOf(res), want)
			}
			if res.Passed() {
				t.Error("Passed() = true for a suite that ran nothing")
			}
			if got := res.FirstFailure(); got != "no tests ran" {
				t.Errorf("FirstFailure() = %q, want %q", got, "no tests ran")
			}
		})
	}
}
