package collect

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

// Manifest is a manifest checked entry by entry, every entry whole: what
// costs nothing first (CheckManifest: keys, fields, scripts, repositories,
// chat templates), then what runs a suite (Manifest.Baseline), so that one
// pass finds every problem of every entry before any run.
type Manifest struct {
	file     string
	entries  []*checkedEntry
	problems []Problem
}

// ManifestCheck is what CheckManifest asks of every entry beyond its shape.
type ManifestCheck struct {
	// NeedScript asks every entry for a script: (plain --model scripted).
	NeedScript bool
	// ChatTemplates loads each entry's chat_template: (when no
	// --chat-template overrides them), so that one that does not load is
	// said now, not at its first run.
	ChatTemplates bool
	// RepoCache is where a repository given as a git URL is cloned.
	RepoCache string
}

// CheckManifest reads a manifest and checks every entry for everything
// that runs no suite; an error is a manifest that cannot be read as a list
// of entries at all. An entry with a problem is still checked for the
// others; Err lists them all.
func CheckManifest(ctx context.Context, file string, data []byte, o ManifestCheck) (*Manifest, error) {
	entries, problems, err := parseEntries(file, data)
	if err != nil {
		return nil, err
	}
	m := &Manifest{file: file, entries: entries, problems: problems}
	base := filepath.Dir(file)
	for _, c := range entries {
		bad := func(msg string) {
			m.problems = append(m.problems, Problem{Line: c.Line, Entry: c.ID, Msg: msg})
			c.bad = true
		}
		if o.NeedScript && c.Script == "" {
			bad("no script: with --model scripted every entry needs script: (a JSON Lines file of drafts), or give --model scripted:FILE")
		}
		if c.Repo == "" {
			continue // said: missing repo
		}
		if err := resolveOne(ctx, base, &c.Entry, o.RepoCache); err != nil {
			bad(err.Error())
			continue
		}
		c.resolved = true
		if o.ChatTemplates && c.ChatTemplate != "" {
			if _, err := chattemplate.Load(c.ChatTemplate); err != nil {
				bad("chat_template: " + err.Error())
			}
		}
	}
	return m, nil
}

// Usable is the entries with no problem found so far, in manifest order.
func (m *Manifest) Usable() []Entry {
	var ok []Entry
	for _, c := range m.entries {
		if !c.bad {
			ok = append(ok, c.Entry)
		}
	}
	return ok
}

// Baseline runs the suite of every entry whose repository is on disk,
// the bad ones too (their problems are said in the same pass), except
// usable entries that need reports false for (a --resume's entries whose
// runs are all complete). Its notes are the failing tests of usable
// entries; see runBaselines for the cache and for ctx.
func (m *Manifest) Baseline(ctx context.Context, python, cacheDir string, need func(Entry) bool) (notes []string, err error) {
	for _, c := range m.entries {
		if !c.resolved || !c.bad && need != nil && !need(c.Entry) {
			continue
		}
		_, problems, n, err := runBaselines(ctx, []Entry{c.Entry}, python, cacheDir)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			c.bad = true
			m.problems = append(m.problems, problems...)
		}
		if !c.bad {
			notes = append(notes, n...)
		}
	}
	return notes, nil
}

// Err is every problem found, in the order of their lines, as a
// *ManifestError; nil when there is none.
func (m *Manifest) Err() error {
	if len(m.problems) == 0 {
		return nil
	}
	problems := slices.Clone(m.problems)
	slices.SortStableFunc(problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	return &ManifestError{File: m.file, Problems: problems}
}
