package collect

import (
	"context"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// A suite that judges nothing at baseline is refused with what it printed
// and what to do; one read from its exit status alone is refused only when
// it fails, since then every run would fail.
func TestBaselineSaysWhatItFoundAndWhatToDo(t *testing.T) {
	if _, err := suite.FindPython(context.Background(), "", true); err != nil {
		needs.Missing(t, "%v (apt-get install -y python3-pytest)", err)
	}
	bare := map[string]string{
		"calc.py":            "def mean(xs):\n    return sum(xs) / len(xs)\n",
		"tests/test_calc.py": "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n",
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		suite string
		want  []string // in the problem; none means the entry is kept
	}{
		{"unittest on bare-assert tests", bare, "{python} -m unittest",
			[]string{`the suite ({python} -m unittest) runs no test at baseline: its output ends "`, "exit status", "unittest does not collect", `leave the suite command out to run pytest, or give "{python} -m pytest"`}},
		{"pytest selecting none", bare, "{python} -m pytest -q -k no_such_test",
			[]string{"the suite ({python} -m pytest -q -k no_such_test) runs no test at baseline", "deselected", "exit status 5", "Pytest collected no test: check the paths, -k and -m"}},
		{"no test file", map[string]string{"calc.py": "x = 1\n"}, "",
			[]string{"runs no test at baseline: its output ends", "Unittest discovers test*.py files"}},
		{"an unknown runner that fails", bare, "sh -c 'echo broken; exit 3'",
			[]string{"fails at baseline (suite exited with code 3: broken)", "only its exit status is read: every run would fail"}},
		{"an unknown runner that passes", bare, "sh -c 'exit 0'", nil},
		{"bare-assert tests, no suite given", bare, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := Entry{ID: "e", Dir: gitRepo(t, tt.files), Line: 7}
			e.Suite = tt.suite
			ok, problems, _, err := runBaselines(context.Background(), []Entry{e}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(ok) != 1 || len(problems) != 0 {
					t.Fatalf("entry refused: %+v", problems)
				}
				return
			}
			if len(problems) != 1 || problems[0].Line != 7 {
				t.Fatalf("problems %+v, want one at line 7", problems)
			}
			for _, w := range tt.want {
				if !strings.Contains(problems[0].Msg, w) {
					t.Errorf("problem %q\ndoes not say %q", problems[0].Msg, w)
				}
			}
		})
	}
}
