package collect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// CaseScript plays a benchmark case's own scripted drafts, as --model
// scripted and the demo do: one of its scripts, picked by a hash of the
// case and the pass, so passes mix variants the way a real model's differ.
func CaseScript(c datasets.Case, pass int, opts schemas.Options) (Backend, error) {
	name := variant(c.ID, pass, c.Scripts())
	raw, err := c.Script(name)
	if err != nil {
		return Backend{}, fmt.Errorf("script %s of %s: %w", name, c.ID, err)
	}
	m, err := scripted.NewFromReader(bytes.NewReader(raw), c.Dir+"/scripts/"+name+".jsonl")
	if err != nil {
		return Backend{}, err
	}
	return Backend{Chat: m, Model: schemas.Model{Backend: schemas.BackendScripted, Name: c.ID + "/" + name, Options: opts}}, nil
}

// variant picks the scripted variant of a (case, pass) by a deterministic
// hash of the two, so every pass mixes variants the way a real model's
// passes differ, and the same plan always picks the same.
func variant(caseID string, pass int, variants []string) string {
	if len(variants) == 0 {
		return ""
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", caseID, pass)))
	return variants[binary.BigEndian.Uint64(h[:8])%uint64(len(variants))]
}

// runID names a run by its content: the item, the pass, the model and its
// options, and the harness version. The same plan always gives the same ids,
// so resume and shards agree on them.
func runID(source, itemID string, pass int, m schemas.Model, harnessVersion string) string {
	opts := fmt.Sprintf("%d/%g/%d/%d", m.Options.Seed, m.Options.Temperature, m.Options.NumCtx, m.Options.NumPredict)
	if m.Options.Think {
		// Only when asked, so the ids of runs without it stay as they were.
		opts += "/think"
	}
	key := strings.Join([]string{source, itemID, fmt.Sprint(pass), m.Backend, m.Name, opts, harnessVersion}, "\x00")
	h := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s-%s-p%d-%s", source, safeID(itemID), pass, hex.EncodeToString(h[:6]))
}

func safeID(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// prepareCase writes a case's fixture repository to a temporary directory
// for a run; cleanup removes it.
func prepareCase(c datasets.Case) (string, func(), error) {
	repo, err := os.MkdirTemp("", "pyharness-case-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(repo) }
	if err := datasets.CopyFS(repo, c.Repo()); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copy fixture of %s: %w", c.ID, err)
	}
	return repo, cleanup, nil
}

// caseConfig is the harness configuration of a case's run on repo (its
// prepared fixture): the task, targets, names, scope, suite and hidden
// checks. The caller fills in the run id, output, model and budget.
func caseConfig(c datasets.Case, pass int, repo, python string) harness.Config {
	return harness.Config{
		Source: schemas.SourceBench, CaseID: c.ID, Tier: c.Tier, Pass: pass,
		Repo: repo, RepoLabel: c.Dir + "/repo", TaskSpec: c.TaskSpec, Python: python,
		Checks: hiddenChecks{c: c, python: python},
	}
}

// hiddenChecks runs a case's hidden checks on the workspace after the
// agent has ended. The checks are copied from the binary into a directory
// of their own, outside the workspace, so the model can never read, copy or
// edit them.
type hiddenChecks struct {
	c      datasets.Case
	python string
}

var _ harness.Checker = hiddenChecks{}

// Check runs the hidden unittest module with the workspace first on the
// import path.
func (h hiddenChecks) Check(ctx context.Context, workspace string) (schemas.Checks, error) {
	dir, err := os.MkdirTemp("", "pyharness-check-")
	if err != nil {
		return schemas.Checks{}, fmt.Errorf("hidden checks: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := datasets.CopyFS(dir, h.c.HiddenChecks()); err != nil {
		return schemas.Checks{}, fmt.Errorf("hidden checks: %w", err)
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return schemas.Checks{}, err
	}
	r := suite.Runner{
		Kind:    suite.Unittest,
		Command: fmt.Sprintf("{python} -m unittest discover -s %s -t %s", dir, dir),
		Python:  h.python,
		Env:     []string{"PYTHONPATH=" + abs},
	}
	res, err := r.Run(ctx, abs)
	if err != nil {
		return schemas.Checks{}, fmt.Errorf("hidden checks: %w", err)
	}
	c := schemas.Checks{Ran: true, Passed: res.Passed()}
	if !c.Passed {
		c.FirstFailure = res.FirstFailure()
	}
	return c, nil
}
