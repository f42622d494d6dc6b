package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/suite"
)

// Item is one planned run: a case and a pass.
type Item struct {
	Case datasets.Case
	Pass int
}

// Variant picks the scripted variant of a (case, pass) by a deterministic
// hash of the two, so every pass mixes variants the way a real model's
// passes differ, and the same plan always picks the same.
func Variant(caseID string, pass int, variants []string) string {
	if len(variants) == 0 {
		return ""
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", caseID, pass)))
	return variants[binary.BigEndian.Uint64(h[:8])%uint64(len(variants))]
}

// RunID names a run by its content: the item, the pass, the model and its
// options, and the harness version. The same plan always gives the same ids,
// so resume and shards agree on them.
func RunID(source, itemID string, pass int, m schemas.Model, harnessVersion string) string {
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

// HiddenChecks runs a case's hidden checks on the workspace after the
// agent has ended. The checks are copied from the binary into a directory
// of their own, outside the workspace, so the model can never read, copy or
// edit them.
type HiddenChecks struct {
	Case    datasets.Case
	Python  string
	Timeout time.Duration
}

var _ harness.Checker = HiddenChecks{}

// Check runs the hidden unittest module with the workspace first on the
// import path.
func (h HiddenChecks) Check(ctx context.Context, workspace string) (schemas.Checks, error) {
	dir, err := os.MkdirTemp("", "pyharness-check-")
	if err != nil {
		return schemas.Checks{}, fmt.Errorf("hidden checks: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := datasets.CopyFS(dir, h.Case.Check()); err != nil {
		return schemas.Checks{}, fmt.Errorf("hidden checks: %w", err)
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return schemas.Checks{}, err
	}
	r := suite.Runner{
		Kind:    suite.Unittest,
		Command: fmt.Sprintf("{python} -m unittest discover -s %s -t %s", dir, dir),
		Python:  h.Python,
		Timeout: h.Timeout,
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
