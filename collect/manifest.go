package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/internal/gitrun"
	"github.com/pyharness/pyharness/schemas"
)

// Entry is one dogfood repository and task of a manifest.
type Entry struct {
	ID string `yaml:"id"`
	// Repo is a local path (relative to the manifest) or a git URL.
	Repo string `yaml:"repo"`
	// Commit, when set, is the commit of Repo the task starts from (a
	// full or abbreviated hash, or any name git resolves): the entry runs
	// on a checkout of it instead of Repo's work tree.
	Commit string `yaml:"commit,omitempty"`
	// TaskSpec is what the model is asked; only the task is required.
	schemas.TaskSpec `yaml:",inline"`
	// TextBy names the model that wrote the task text (a mined task's
	// evidence rewritten as an issue by tasks --writer); empty when a
	// person or the miner wrote it.
	TextBy string `yaml:"text_by,omitempty"`
	// Check is a command run in the workspace after the agent ends; exit 0
	// means the task is done. It decides the verdict instead of the suite.
	Check string `yaml:"check,omitempty"`
	// Script is a scripted-backend draft file for this entry (relative to
	// the manifest), used with --model scripted.
	Script string   `yaml:"script,omitempty"`
	Tags   []string `yaml:"tags,omitempty"`
	// ChatTemplate is the model's chat template for this entry's runs (a
	// .jinja file, a tokenizer_config.json or a GGUF, relative to the
	// manifest), what --chat-template names; the flag wins over it, and
	// it over the template the server reports.
	ChatTemplate string `yaml:"chat_template,omitempty"`

	// Line is where the entry starts in the manifest.
	Line int `yaml:"-"`
	// Dir is the local repository the entry runs on (cloned for a URL).
	Dir string `yaml:"-"`
	// URL is set when Repo is a git URL.
	URL string `yaml:"-"`
}

// EncodeManifest writes entries as a manifest collect reads: the
// entries: list, each entry's fields in Entry's order, those not set
// left out.
func EncodeManifest(w io.Writer, entries []Entry) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	doc := struct {
		Entries []Entry `yaml:"entries"`
	}{entries}
	if doc.Entries == nil {
		doc.Entries = []Entry{}
	}
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return nil
}

// ManifestError lists every bad entry of a manifest, each with its line.
type ManifestError struct {
	File     string
	Problems []Problem
}

// Problem is one thing wrong with one entry.
type Problem struct {
	Line  int
	Entry string
	Msg   string
}

func (e *ManifestError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problem(s):", e.File, len(e.Problems))
	for _, p := range e.Problems {
		if p.Entry != "" {
			fmt.Fprintf(&b, "\n  %s:%d: entry %q: %s", e.File, p.Line, p.Entry, p.Msg)
		} else {
			fmt.Fprintf(&b, "\n  %s:%d: %s", e.File, p.Line, p.Msg)
		}
	}
	return b.String()
}

var entryKeys = []string{"id", "repo", "commit", "task", "text_by", "targets", "names", "subject", "scope", "suite", "check", "script", "tags", "chat_template"}

// parseManifest reads a manifest: a YAML list of entries (or a mapping
// with an `entries` list). It checks the shape of every entry — keys,
// required fields, unique ids — and reports every problem with its line;
// the entries it returns are those with none.
func parseManifest(file string, data []byte) ([]Entry, error) {
	checked, problems, err := parseEntries(file, data)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, c := range checked {
		if !c.bad {
			entries = append(entries, c.Entry)
		}
	}
	if len(problems) > 0 {
		return entries, &ManifestError{File: file, Problems: problems}
	}
	return entries, nil
}

// checkedEntry is an entry of a manifest and whether a problem was found
// with it; an entry with one is still checked for the others.
type checkedEntry struct {
	Entry
	bad      bool
	resolved bool // its repository is on disk (Dir)
}

// parseEntries decodes every entry of a manifest and checks its shape,
// returning every entry that decodes, bad or not, and every problem. An
// error is a manifest that cannot be read as a list of entries at all.
func parseEntries(file string, data []byte) ([]*checkedEntry, []Problem, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var problems []Problem
	if len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("%s: the manifest is empty", file)
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var found *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			if list.Content[i].Value == "entries" {
				found = list.Content[i+1]
			} else {
				problems = append(problems, Problem{Line: list.Content[i].Line, Msg: fmt.Sprintf("unknown top-level key %q (want a list of entries, or entries:)", list.Content[i].Value)})
			}
		}
		if found == nil {
			problems = append(problems, Problem{Line: list.Line, Msg: "no entries: list"})
			return nil, problems, nil
		}
		list = found
	}
	if list.Kind != yaml.SequenceNode {
		return nil, nil, fmt.Errorf("%s:%d: want a list of entries", file, list.Line)
	}
	var entries []*checkedEntry
	seen := map[string]int{}
	for _, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			problems = append(problems, Problem{Line: item.Line, Msg: "an entry must be a mapping (id:, repo:, task:, …)"})
			continue
		}
		c := &checkedEntry{}
		bad := func(line int, msg string) {
			problems = append(problems, Problem{Line: line, Entry: idOf(item), Msg: msg})
			c.bad = true
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			if k := item.Content[i].Value; !slices.Contains(entryKeys, k) {
				bad(item.Content[i].Line, unknownKey(k))
			}
		}
		// The keys it knows are decoded without the ones it does not, so
		// that the rest of the entry is checked too.
		known := *item
		known.Content = nil
		for i := 0; i+1 < len(item.Content); i += 2 {
			if slices.Contains(entryKeys, item.Content[i].Value) {
				known.Content = append(known.Content, item.Content[i], item.Content[i+1])
			}
		}
		if err := known.Decode(&c.Entry); err != nil {
			bad(item.Line, err.Error())
			continue
		}
		e := &c.Entry
		e.Line = item.Line
		for _, req := range []struct{ name, val string }{{"id", e.ID}, {"repo", e.Repo}, {"task", e.Task}} {
			if strings.TrimSpace(req.val) == "" {
				bad(e.Line, "missing "+req.name)
			}
		}
		if e.ID != "" {
			if first, dup := seen[e.ID]; dup {
				bad(e.Line, fmt.Sprintf("duplicate id (first at line %d)", first))
			}
			seen[e.ID] = e.Line
		}
		if err := e.TaskSpec.Validate(); err != nil {
			line := e.Line
			var se *schemas.TaskSpecError
			if errors.As(err, &se) {
				line = keyLine(item, se.Field, line)
			}
			bad(line, err.Error())
		}
		entries = append(entries, c)
	}
	return entries, problems, nil
}

// unknownKey says a key is not an entry's, with the known key it is
// likely a slip for ("target" for targets).
func unknownKey(k string) string {
	msg := fmt.Sprintf("unknown key %q", k)
	if near := nearestKey(k); near != "" {
		msg += fmt.Sprintf(": did you mean %q?", near)
	}
	return msg + " (known: " + strings.Join(entryKeys, ", ") + ")"
}

// nearestKey is the known key within two edits of k (a missing plural s,
// a swapped or dropped letter), or "".
func nearestKey(k string) string {
	best, bestD := "", 3
	for _, known := range entryKeys {
		if d := levenshtein.ComputeDistance(strings.ToLower(k), known); d < bestD {
			best, bestD = known, d
		}
	}
	return best
}

// keyLine is the line of key in an entry's mapping, def when it is absent.
func keyLine(item *yaml.Node, key string, def int) int {
	if i := keyIndex(item, key); i >= 0 {
		return item.Content[i].Line
	}
	return def
}

func idOf(item *yaml.Node) string {
	if i := keyIndex(item, "id"); i >= 0 {
		return item.Content[i+1].Value
	}
	return ""
}

// keyIndex is where key is among a mapping's keys, -1 when it is not.
func keyIndex(item *yaml.Node, key string) int {
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// isGitURL reports whether a repo value names a remote to clone.
func isGitURL(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "git@") || strings.HasSuffix(s, ".git") && !isLocal(s)
}

func isLocal(s string) bool {
	_, err := os.Stat(s)
	return err == nil
}

// resolveOne finds an entry's repository on disk — a local path relative
// to the manifest, or a git URL cloned (shallow) into cacheDir — and checks
// it is a git repository whose scope matches files.
// ResolveEntry is one entry made ready to run, as a manifest's entries
// are: its repository found (or cloned into cacheDir) relative to base,
// its commit checked out apart.
func ResolveEntry(ctx context.Context, base string, e Entry, cacheDir string) (Entry, error) {
	err := resolveOne(ctx, base, &e, cacheDir)
	return e, err
}

func resolveOne(ctx context.Context, base string, e *Entry, cacheDir string) error {
	if isGitURL(e.Repo) {
		h := sha256.Sum256([]byte(e.Repo))
		dir := filepath.Join(cacheDir, hex.EncodeToString(h[:8]))
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			os.RemoveAll(dir)
			if err := os.MkdirAll(cacheDir, 0o755); err != nil {
				return fmt.Errorf("clone %s: %w", e.Repo, err)
			}
			if _, err := gitrun.Run(ctx, "", nil, "clone", "--quiet", "--depth", "1", e.Repo, dir); err != nil {
				return fmt.Errorf("cannot clone %s: %v", e.Repo, err)
			}
		}
		e.Dir, e.URL = dir, e.Repo
	} else {
		dir := e.Repo
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("repository %s does not exist", e.Repo)
		}
		if !st.IsDir() {
			return fmt.Errorf("repository %s is not a directory", e.Repo)
		}
		if _, err := gitrun.Run(ctx, dir, nil, "rev-parse", "--is-inside-work-tree"); err != nil {
			return fmt.Errorf("repository %s is not a git repository (git init it, or point at a clone)", e.Repo)
		}
		e.Dir = dir
	}
	if e.Commit != "" {
		dir, err := checkoutCommit(ctx, e.Dir, e.Commit, cacheDir)
		if err != nil {
			return err
		}
		e.Dir = dir
	}
	if e.Script != "" && !filepath.IsAbs(e.Script) {
		e.Script = filepath.Join(base, e.Script)
	}
	if e.ChatTemplate != "" {
		if !filepath.IsAbs(e.ChatTemplate) {
			e.ChatTemplate = filepath.Join(base, e.ChatTemplate)
		}
		if _, err := os.Stat(e.ChatTemplate); err != nil {
			return fmt.Errorf("chat_template: %w", err)
		}
	}
	if len(e.Scope) > 0 {
		out, err := gitrun.Run(ctx, e.Dir, nil, "ls-files")
		if err != nil {
			return fmt.Errorf("list files of %s: %w", e.Repo, err)
		}
		files := strings.Split(strings.TrimSpace(out), "\n")
		for _, g := range e.Scope {
			if !slices.ContainsFunc(files, func(f string) bool { return schemas.InScope([]string{g}, f) }) {
				return fmt.Errorf("scope %q matches no file of the repository", g)
			}
		}
	}
	return nil
}

// checkoutCommit is a checkout of commit of the repository at src, made
// once under cacheDir and shared by every entry that names it: a clone
// that borrows src's objects (git clone --shared writes nothing into src),
// its HEAD detached at the commit, so that run_start records it.
func checkoutCommit(ctx context.Context, src, commit, cacheDir string) (string, error) {
	full, err := gitrun.Run(ctx, src, nil, "rev-parse", "--verify", "-q", commit+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("commit %q is not a commit of %s", commit, src)
	}
	full = strings.TrimSpace(full)
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("check out %s: %w", commit, err)
	}
	h := sha256.Sum256([]byte(abs + "\x00" + full))
	dir := filepath.Join(cacheDir, "commit-"+hex.EncodeToString(h[:8]))
	if head, err := gitrun.Run(ctx, dir, nil, "rev-parse", "HEAD"); err == nil && strings.TrimSpace(head) == full {
		return dir, nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("check out %s: %w", commit, err)
	}
	if _, err := gitrun.Run(ctx, "", nil, "clone", "--quiet", "--shared", "--no-checkout", abs, dir); err != nil {
		return "", fmt.Errorf("check out %s of %s: %v", commit, src, err)
	}
	if _, err := gitrun.Run(ctx, dir, nil, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", full); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("check out %s of %s: %v", commit, src, err)
	}
	return dir, nil
}
