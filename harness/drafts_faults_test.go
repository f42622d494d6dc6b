package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// replies is a model that answers with these drafts, byte for byte — what
// no wire protocol can carry (invalid UTF-8), to see the harness hold
// against it anyway.
type replies struct {
	drafts []string
	n      int
}

func (r *replies) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	if r.n >= len(r.drafts) {
		return model.Reply{}, model.NewError(model.CodeScriptExhausted, "no more drafts", nil)
	}
	r.n++
	return model.Reply{Reply: schemas.Reply{Content: r.drafts[r.n-1], FinishReason: "stop"}, Attempts: []schemas.Attempt{{N: 1}}}, nil
}

const outsideSecret = "OUTSIDE-THE-WORKSPACE-b7f3"

// The draft rows of the fault matrix: paths and contents a model may send
// that must never reach outside the workspace or past the guards. Each
// hostile draft comes at step 1 of the initials task; it must be refused
// with a stable code and recorded as it was sent, the files outside the
// repository must be as they were (and their contents never shown to the
// model), and the run must go on to work with the drafts after it.
func TestHostileDrafts(t *testing.T) {
	unique := fmt.Sprintf("escape-%d-%d", os.Getpid(), time.Now().UnixNano())
	outsideFile := "secret.py"
	tests := []struct {
		name string
		// draft is sent at step 1; extra drafts may follow before the
		// good ones.
		draft string
		extra []string
		// links are planted in the repository: name → target, where
		// "OUTSIDE" in a target is replaced by the outside directory.
		links    map[string]string
		files    map[string]string
		targets  []string
		step     int // the step that is refused (1 when 0)
		wantCode schemas.Code
		// leaked are paths (with OUTSIDE and TMP replaced) that must not
		// exist after the run.
		leaked []string
	}{
		{name: "a path with ../", draft: "WRITE ../" + unique + ".py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"TMP/" + unique + ".py"}},
		{name: "a path that climbs out through a folder", draft: "WRITE tests/../../" + unique + ".py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"TMP/" + unique + ".py"}},
		{name: "an absolute path", draft: "WRITE OUTSIDE/abs.py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"OUTSIDE/abs.py"}},
		{name: "a backslash path that climbs out", draft: "WRITE ..\\" + unique + ".py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"TMP/" + unique + ".py"}},
		{name: "an absolute device path", draft: "READ /dev/zero", wantCode: schemas.CodeOutsideScope},
		{name: "reading the version-control data", draft: "READ .git/config", files: map[string]string{".git/config": "[core]\n"}, wantCode: schemas.CodeOutsideScope},
		{name: "writing the harness's own baseline repository", draft: "WRITE .pyharness-git/HEAD\n```\nref: refs/heads/evil\n```", wantCode: schemas.CodeOutsideScope},
		{
			name: "a planted symlink to a file outside, written", links: map[string]string{"config.py": "OUTSIDE/" + outsideFile},
			draft: "WRITE config.py\n```python\nOVERWRITTEN = True\n```", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted symlink to a file outside, read", links: map[string]string{"config.py": "OUTSIDE/" + outsideFile},
			draft: "READ config.py", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted relative symlink to a file outside, outlined", links: map[string]string{"config.py": "../../../../../../../../OUTSIDE/" + outsideFile},
			draft: "SKILL outline config.py", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted symlink to a folder outside, written under", links: map[string]string{"vendor": "OUTSIDE"},
			draft: "WRITE vendor/new.py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"OUTSIDE/new.py"},
		},
		{
			name: "a planted symlink to a folder outside, patched through", links: map[string]string{"vendor": "OUTSIDE"},
			draft: "PATCH vendor/" + outsideFile + "\nFIND:\n```\nSECRET\n```\nREPLACE:\n```\nPATCHED\n```", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted symlink to a device", links: map[string]string{"data.bin": "/dev/zero"},
			draft: "READ data.bin", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted module that is a symlink to a device", links: map[string]string{"zero.py": "/dev/zero"},
			draft: "READ zero.py", wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a planted dangling symlink that points outside", links: map[string]string{"later.py": "OUTSIDE/not-yet.py"},
			draft: "WRITE later.py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope, leaked: []string{"OUTSIDE/not-yet.py"},
		},
		{
			name: "a pipe the suite made in the workspace, read", step: 2,
			draft: "WRITE test_pipe.py\n```python\nimport os\nif not os.path.exists('pipe.txt'):\n    os.mkfifo('pipe.txt')\n```",
			extra: []string{"READ pipe.txt"}, wantCode: schemas.CodeOutsideScope,
		},
		{
			name: "a pipe the suite made in the workspace, written", step: 2,
			draft: "WRITE test_pipe.py\n```python\nimport os\nif not os.path.exists('pipe.txt'):\n    os.mkfifo('pipe.txt')\n```",
			extra: []string{"WRITE pipe.txt\n```\nblocks a writer forever\n```"}, wantCode: schemas.CodeOutsideScope,
		},
		{name: "a file named like a Windows device", draft: "WRITE CON\n```\nx\n```", wantCode: schemas.CodeOutsideScope},
		{name: "a module named like a Windows device", draft: "WRITE lib/aux.py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope},
		{name: "a 20 MB WRITE", draft: "WRITE initials.py\n```python\n" + strings.Repeat("# filler line of a huge module\n", 20<<20/31) + "```", targets: []string{"initials.py"}, wantCode: schemas.CodeTooLarge},
		{name: "NUL bytes in a path", draft: "READ greet.py\x00.txt", wantCode: schemas.CodeParseFailed},
		{name: "NUL bytes in a body", draft: "WRITE initials.py\n```python\ndef initials(name):\n    return '\x00'\n```", targets: []string{"initials.py"}, wantCode: schemas.CodeNotText},
		{name: "invalid UTF-8 in a path", draft: "WRITE init\xffals.py\n```python\nx = 1\n```", wantCode: schemas.CodeOutsideScope},
		{name: "invalid UTF-8 in a body", draft: "WRITE initials.py\n```python\ndef initials(name):\n    return 'caf\xe9'\n```", targets: []string{"initials.py"}, wantCode: schemas.CodeNotText},
		{
			name: "a PATCH whose FIND appears twice", files: map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n\n\ndef shout(name):\n    return \"Hello, \" + name\n"},
			draft: readGreet, extra: []string{"PATCH greet.py\nFIND:\n```\n    return \"Hello, \" + name\n```\nREPLACE:\n```\n    return \"Hi, \" + name\n```"},
			step: 2, wantCode: schemas.CodeFindAmbiguous,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := t.TempDir()
			secretPath := filepath.Join(outside, outsideFile)
			if err := os.WriteFile(secretPath, []byte("SECRET = '"+outsideSecret+"'\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshotTree(t, outside)
			subst := strings.NewReplacer("OUTSIDE", outside, "TMP", os.TempDir())

			repo := t.TempDir()
			writeTree(t, repo, fixture)
			writeTree(t, repo, tt.files)
			for name, target := range tt.links {
				if err := os.Symlink(subst.Replace(target), filepath.Join(repo, name)); err != nil {
					t.Fatal(err)
				}
			}
			drafts := []string{subst.Replace(tt.draft)}
			for _, d := range tt.extra {
				drafts = append(drafts, subst.Replace(d))
			}
			drafts = append(drafts, writeInitOK, runTests, doneSummary)
			out := t.TempDir()
			cfg := Config{RunID: "hostile", OutDir: out, Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials(name) to initials.py", Targets: tt.targets, Names: []string{"initials"}},
				SuiteTimeout: time.Minute,
				Model:        schemas.Model{Backend: "scripted", Name: "hostile"}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := Run(ctx, cfg, &replies{drafts: drafts})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if ctx.Err() != nil {
				t.Fatal("the run hung on the hostile draft")
			}
			run, err := trace.ReadRun(trace.File{RunID: "hostile", Path: res.TracePath})
			if err != nil {
				t.Fatal(err)
			}
			step := max(tt.step, 1)
			if len(run.Turns) < step {
				t.Fatalf("the run took %d steps, want at least %d (stop %s)", len(run.Turns), step, res.End.StopReason)
			}
			turn := run.Turns[step-1]
			if turn.Outcome.Status != schemas.StatusRefused || turn.Outcome.Code != tt.wantCode {
				t.Errorf("step %d outcome %+v, want refused %s", step, turn.Outcome, tt.wantCode)
			}
			if len(turn.Outcome.FilesChanged) != 0 {
				t.Errorf("the refused step changed %v", turn.Outcome.FilesChanged)
			}
			if sent := strings.ToValidUTF8(drafts[step-1], "\uFFFD"); turn.Reply.Content != sent {
				t.Errorf("the draft was recorded as %d bytes, not as sent (%d bytes)", len(turn.Reply.Content), len(sent))
			}
			if res.End.Verdict != schemas.VerdictWorked {
				t.Errorf("verdict %s (%s, stop %s): the run did not go on past the refusal", res.End.Verdict, res.End.FailureClass, res.End.StopReason)
			}
			after := snapshotTree(t, outside)
			if len(after) != len(before) || !bytes.Equal(after[outsideFile], before[outsideFile]) {
				t.Errorf("the directory outside the workspace changed: %d files before, %d after", len(before), len(after))
			}
			for _, p := range tt.leaked {
				if _, err := os.Lstat(subst.Replace(p)); err == nil {
					os.Remove(subst.Replace(p))
					t.Errorf("%s was written outside the workspace", subst.Replace(p))
				}
			}
			raw, err := os.ReadFile(res.TracePath)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(outsideSecret)) {
				t.Error("the contents of a file outside the workspace reached the trace")
			}
			if !utf8.Valid(raw) {
				t.Error("the trace is not valid UTF-8")
			}
			checkTraceValid(t, res.TracePath, true)
		})
	}
}
