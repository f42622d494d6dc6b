package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/gitrun"
)

// runBaselines runs each entry's suite once on a copy of its repository, before
// anything else: a suite that cannot judge a run (harness.Baseline.Check:
// it does not import, runs no test, times out, starts an interpreter
// without pytest, or fails when nothing but its exit status is read) is a
// problem with the entry's line, saying what the suite printed and what to
// do; failing tests are allowed (a "fix the failing test" task) and noted.
//
// A suite found usable is remembered under cacheDir (when not "") by the
// repository's commit and the suite's command, so that a --resume, or
// another collection over the same repositories, does not run it again; a
// repository with changes not committed is run every time. A cancelled ctx
// stops it with ctx's error, and nothing of a suite cut short is reported.
func runBaselines(ctx context.Context, entries []Entry, python, cacheDir string) (ok []Entry, problems []Problem, notes []string, err error) {
	for _, e := range entries {
		key := baselineKey(ctx, e, python)
		if note, hit := readBaseline(cacheDir, key); hit {
			if note != "" {
				notes = append(notes, note)
			}
			ok = append(ok, e)
			continue
		}
		b, err := baselineOne(ctx, e, python)
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		if err != nil {
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: err.Error()})
			continue
		}
		if err := b.Check(); err != nil {
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: err.Error()})
			continue
		}
		note := ""
		if res := b.Result; !res.Passed() {
			note = fmt.Sprintf("%s: the suite has failing tests at baseline (%d failed, %d errors of %d): a run is judged against them, and must fix only those its task names", e.ID, res.Counts.Failed, res.Counts.Errors, res.Counts.Ran)
			notes = append(notes, note)
		}
		writeBaseline(cacheDir, key, note)
		ok = append(ok, e)
	}
	return ok, problems, notes, nil
}

// baselineKey names an entry's baseline by what decides it: the
// repository's commit, the suite's command and the interpreter asked for;
// "" when the repository has changes not committed, or no commit.
func baselineKey(ctx context.Context, e Entry, python string) string {
	commit, err := gitrun.Run(ctx, e.Dir, nil, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	if status, err := gitrun.Run(ctx, e.Dir, nil, "status", "--porcelain"); err != nil || strings.TrimSpace(status) != "" {
		return ""
	}
	h := sha256.Sum256([]byte(strings.Join([]string{strings.TrimSpace(commit), e.Suite, python}, "\x00")))
	return hex.EncodeToString(h[:12])
}

// cachedBaseline is a usable baseline as the cache keeps it.
type cachedBaseline struct {
	// Note is what the baseline noted (failing tests), "" for none.
	Note string `json:"note"`
}

func readBaseline(cacheDir, key string) (note string, hit bool) {
	if cacheDir == "" || key == "" {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(cacheDir, key+".json"))
	if err != nil {
		return "", false
	}
	var c cachedBaseline
	if json.Unmarshal(b, &c) != nil {
		return "", false
	}
	return c.Note, true
}

// writeBaseline remembers a usable baseline; a cache that cannot be
// written costs a suite run next time, nothing else.
func writeBaseline(cacheDir, key, note string) {
	if cacheDir == "" || key == "" {
		return
	}
	if os.MkdirAll(cacheDir, 0o755) != nil {
		return
	}
	_ = writeJSONAtomic(filepath.Join(cacheDir, key+".json"), cachedBaseline{Note: note})
}

func baselineOne(ctx context.Context, e Entry, python string) (*harness.Baseline, error) {
	dir, err := os.MkdirTemp("", "pyharness-baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := harness.CopyRepo(e.Dir, dir); err != nil {
		return nil, fmt.Errorf("copy repository: %w", err)
	}
	kind := suite.KindOf(e.Suite, dir)
	r := suite.Runner{Kind: kind, Command: e.Suite}
	if kind != suite.GoTest {
		py, err := suite.FindPython(ctx, python, kind == suite.Pytest)
		if err != nil {
			return nil, err
		}
		r.Python = py
	}
	res, err := r.Run(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("the suite cannot run: %w", err)
	}
	return &harness.Baseline{Result: res, Given: e.Suite, Detected: suite.Detect(dir), Python: r.Python}, nil
}
