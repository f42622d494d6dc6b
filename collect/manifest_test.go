package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/internal/gitrun"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// gitRepo makes a git repository of files.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func TestManifestProblemsNameTheirLines(t *testing.T) {
	good := gitRepo(t, map[string]string{"m.py": "x = 1\n", "test_m.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n"})
	notGit := t.TempDir()
	noTests := gitRepo(t, map[string]string{"m.py": "x = 1\n"})
	broken := gitRepo(t, map[string]string{"test_m.py": "import not_there\n"})
	manifest := `- id: ok
  repo: ` + good + `
  task: do it
- id: missing
  repo: /nowhere/at/all
  task: do it
- id: notgit
  repo: ` + notGit + `
  task: do it
- id: typo
  repo: ` + good + `
  task: do it
  targts: [m.py]
- id: ok
  repo: ` + good + `
  task: again
- id: scope
  repo: ` + good + `
  task: do it
  scope: ["src/**"]
- id: notests
  repo: ` + noTests + `
  task: do it
- id: broken
  repo: ` + broken + `
  task: do it
- repo: ` + good + `
  task: no id
- id: badfields
  repo: ` + good + `
  task: do it
  targets: [m.py]
  scope: ["src/{a"]
- id: badtarget
  repo: ` + good + `
  task: do it
  targets: [./m.py]
`
	file := filepath.Join(t.TempDir(), "dogfood.yaml")
	m, err := CheckManifest(context.Background(), file, []byte(manifest), ManifestCheck{RepoCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Baseline(context.Background(), "", "", nil); err != nil {
		t.Fatal(err)
	}
	var merr *ManifestError
	if err := m.Err(); err == nil || !asManifestError(err, &merr) {
		t.Fatalf("want a ManifestError, got %v", err)
	}
	problems := merr.Problems
	ok := m.Usable()
	want := []struct {
		line int
		text string
	}{
		{4, `repository /nowhere/at/all does not exist`},
		{7, `is not a git repository`},
		{13, `unknown key "targts"`},
		{14, `duplicate id (first at line 1)`},
		{17, `scope "src/**" matches no file`},
		{21, `runs no test at baseline`},
		{24, `does not import at baseline`},
		{27, `missing id`},
		{33, `field scope: "src/{a" is not a glob`},
		{37, `field targets: "./m.py" is not a relative path`},
	}
	for _, w := range want {
		found := false
		for _, p := range problems {
			if p.Line == w.line && strings.Contains(p.Msg, w.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem at line %d saying %q; got %+v", w.line, w.text, problems)
		}
	}
	if len(ok) != 1 || ok[0].ID != "ok" {
		t.Errorf("usable entries %+v, want only the first", ok)
	}
}

// An entry with an unknown key is still checked whole: its missing
// repository and script are said in the same pass, and a key that is a
// slip for a known one says which.
func TestManifestProblemsComeInOnePass(t *testing.T) {
	manifest := `- id: slip
  repo: /nowhere/at/all
  task: do it
  target: [m.py]
`
	file := filepath.Join(t.TempDir(), "dogfood.yaml")
	m, err := CheckManifest(context.Background(), file, []byte(manifest), ManifestCheck{NeedScript: true, RepoCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(m.Err())
	for _, want := range []string{`:4: entry "slip": unknown key "target": did you mean "targets"?`, "repository /nowhere/at/all does not exist", "no script:"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %s\ndo not say %q", got, want)
		}
	}
}

func asManifestError(err error, target **ManifestError) bool {
	m, ok := err.(*ManifestError)
	if ok {
		*target = m
	}
	return ok
}

// A dogfood manifest pointing at a real repository with a real suite — a
// copy of CPython's textwrap module and its own unittest tests — runs with
// a scripted model and records the suite counts before and after.
func TestDogfoodOnARealRepository(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"textwrap.py", "test_textwrap.py"} {
		b, err := os.ReadFile(filepath.Join("..", "harness", "testdata", "textwrap", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	repo := gitRepo(t, files)
	dir := t.TempDir()
	drafts := []string{
		"READ textwrap.py:400-430",
		"PATCH textwrap.py\nFIND:\n```\ndef shorten(text, width, **kwargs):\n```\nREPLACE:\n```\ndef shorten(text, width, **kwargs):  # collapse and truncate\n```",
		"RUN tests",
		"DONE marked shorten; the 66 tests still pass",
	}
	var script strings.Builder
	for _, d := range drafts {
		b, _ := json.Marshal(map[string]string{"content": d})
		script.Write(append(b, '\n'))
	}
	os.WriteFile(filepath.Join(dir, "textwrap.jsonl"), []byte(script.String()), 0o644)
	manifest := "entries:\n  - id: textwrap-shorten\n    repo: " + repo + "\n    task: Note in shorten() what it does\n    targets: [textwrap.py]\n    suite: \"{python} -m unittest test_textwrap\"\n    script: textwrap.jsonl\n    tags: [stdlib]\n"
	file := filepath.Join(dir, "dogfood.yaml")
	os.WriteFile(file, []byte(manifest), 0o644)
	m, err := CheckManifest(context.Background(), file, []byte(manifest), ManifestCheck{RepoCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	entries := m.Usable()
	out := t.TempDir()
	sum, err := Run(context.Background(), Options{Entries: entries, Passes: 1, OutDir: out,
		Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			m, err := scripted.New(it.Entry.Script)
			return Backend{Chat: m, Model: schemas.Model{Backend: "scripted", Name: it.Entry.ID, Options: opts}}, err
		}})
	if err != nil || sum.Worked != 1 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	for run, err := range trace.Runs(t.Context(), out) {
		if err != nil {
			t.Fatal(err)
		}
		if run.Start.Source != schemas.SourceDogfood || run.Start.CaseID != "textwrap-shorten" || run.Start.Repo.Commit == "" {
			t.Errorf("run_start %+v", run.Start)
		}
		// export --tag selects by the tags on run_start, with no manifest.
		if !slices.Equal(run.Start.Tags, []string{"stdlib"}) {
			t.Errorf("run_start tags %q, want the entry's [stdlib]", run.Start.Tags)
		}
		b, a := run.End.SuiteBefore, run.End.SuiteAfter
		if b.Ran != 66 || b.Passed != 66 || a.Ran != 66 || a.Passed != 66 {
			t.Errorf("suite before %+v after %+v, want 66 tests passing both times", b, a)
		}
		if run.End.Verdict != schemas.VerdictWorked {
			t.Errorf("verdict %s %s", run.End.Verdict, run.End.FailureClass)
		}
	}
}

// A dogfood task whose check already passes is settled by the harness with
// no model step, recorded as such, and correct.
func TestCheckThatAlreadyPassesNeedsNoModel(t *testing.T) {
	repo := gitRepo(t, map[string]string{"m.py": "def answer():\n    return 42\n",
		"test_m.py": "import unittest\nfrom m import answer\n\n\nclass T(unittest.TestCase):\n    def test_answer(self):\n        self.assertEqual(answer(), 42)\n"})
	e := Entry{ID: "already-done", Repo: repo, Dir: repo, TaskSpec: schemas.TaskSpec{Task: "make answer() return 42"}, Check: "python3 -c 'import m; assert m.answer() == 42'", Line: 1}
	out := t.TempDir()
	called := false
	sum, err := Run(context.Background(), Options{Entries: []Entry{e}, Passes: 1, OutDir: out,
		Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			m, err := scripted.NewFromReader(strings.NewReader(""), "empty")
			return Backend{Chat: chatSpy{m, &called}, Model: schemas.Model{Backend: "scripted", Name: "empty", Options: opts}}, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Worked != 1 || called {
		t.Fatalf("summary %+v, model called %v", sum, called)
	}
	for run := range trace.Runs(t.Context(), out) {
		e := run.End
		if e.StopReason != schemas.StopNoModelSteps || e.ModelSteps != 0 || e.Steps != 0 || !e.Checks.Passed || e.Verdict != schemas.VerdictWorked {
			t.Errorf("run_end %+v", e)
		}
	}
}

type chatSpy struct {
	harness.Chatter
	called *bool
}

func (c chatSpy) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	*c.called = true
	return c.Chatter.Chat(ctx, req)
}

// An entry's commit: is checked out for its runs, without writing the
// repository; a commit the repository lacks is a problem of its line.
func TestManifestCommitIsCheckedOutApart(t *testing.T) {
	repo := gitRepo(t, map[string]string{"m.py": "x = 1\n"})
	first, err := gitrun.Run(context.Background(), repo, nil, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	first = strings.TrimSpace(first)
	if err := os.WriteFile(filepath.Join(repo, "m.py"), []byte("x = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "two"}} {
		if out, err := gitrun.Run(context.Background(), repo, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	refsBefore, _ := gitrun.Run(context.Background(), repo, nil, "for-each-ref")
	manifest := filepath.Join(t.TempDir(), "m.yaml")
	data := "entries:\n  - id: old\n    repo: " + repo + "\n    commit: " + first[:10] + "\n    task: t\n  - id: missing\n    repo: " + repo + "\n    commit: deadbeef\n    task: t\n"
	m, err := CheckManifest(context.Background(), manifest, []byte(data), ManifestCheck{RepoCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ok := m.Usable()
	if len(ok) != 1 || ok[0].ID != "old" {
		t.Fatalf("resolved %v, want the entry old alone", ok)
	}
	var me *ManifestError
	if !errors.As(m.Err(), &me) || len(me.Problems) != 1 || me.Problems[0].Line != 6 || !strings.Contains(me.Problems[0].Msg, `commit "deadbeef" is not a commit`) {
		t.Fatalf("problems = %v, want the missing commit at line 6", m.Err())
	}
	got, err := os.ReadFile(filepath.Join(ok[0].Dir, "m.py"))
	if err != nil || string(got) != "x = 1\n" {
		t.Fatalf("the checkout holds %q (%v), want the first commit's m.py", got, err)
	}
	if head, _ := gitrun.Run(context.Background(), ok[0].Dir, nil, "rev-parse", "HEAD"); strings.TrimSpace(head) != first {
		t.Errorf("the checkout's HEAD is %s, want %s", head, first)
	}
	if cur, _ := os.ReadFile(filepath.Join(repo, "m.py")); string(cur) != "x = 2\n" {
		t.Errorf("the repository's m.py is now %q", cur)
	}
	if refs, _ := gitrun.Run(context.Background(), repo, nil, "for-each-ref"); refs != refsBefore {
		t.Errorf("the repository's refs changed:\n%s\nwas\n%s", refs, refsBefore)
	}
}
