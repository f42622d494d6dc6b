package mine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/internal/gitrun"
	"github.com/pyharness/pyharness/schemas"
)

// maxHistoryLines bounds the code lines a history task's commit changes:
// a larger change is a project, not a task.
const maxHistoryLines = 80

// historyCandidates are the commits among the newest HistoryDepth (merges
// left out) that change code and tests together: code files only
// modified, at least one test file added or changed.
func (m *miner) historyCandidates(ctx context.Context, sum *Summary) ([]*candidate, error) {
	// One git log for every commit's files: numstat for the lines changed,
	// summary for the files created or deleted.
	out, err := gitrun.Run(ctx, m.clone.dir, nil, "log", "--no-merges", "--format=%x00%H %P", "--numstat", "--summary", "--no-renames",
		"-n", strconv.Itoa(m.o.HistoryDepth), "HEAD")
	if err != nil {
		return nil, fmt.Errorf("tasks: read history: %w", err)
	}
	skip := func(why string) { sum.Dropped["history: "+why]++ }
	var cands []*candidate
	for _, rec := range strings.Split(out, "\x00") {
		head, body, _ := strings.Cut(rec, "\n")
		f := strings.Fields(head)
		if len(f) != 2 {
			continue // the root commit, or before the first record
		}
		sha, parent := f[0], f[1]
		addedOrDeleted := map[string]bool{}
		type change struct {
			path  string
			lines int
		}
		var changes []change
		for _, l := range strings.Split(body, "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "create mode ") || strings.HasPrefix(t, "delete mode ") {
				if parts := strings.SplitN(t, " ", 4); len(parts) == 4 {
					addedOrDeleted[parts[3]] = true
				}
				continue
			}
			parts := strings.SplitN(l, "\t", 3)
			if len(parts) != 3 || !strings.HasSuffix(parts[2], ".py") {
				continue
			}
			a, _ := strconv.Atoi(parts[0])
			d, _ := strconv.Atoi(parts[1])
			changes = append(changes, change{parts[2], a + d})
		}
		var code, tests []string
		lines, bad := 0, ""
		for _, ch := range changes {
			switch {
			case isTestPath(ch.path):
				tests = append(tests, ch.path)
			case m.isSourcePath(ch.path):
				if addedOrDeleted[ch.path] {
					bad = "adds or deletes code files"
				}
				lines += ch.lines
				code = append(code, ch.path)
			}
		}
		// A test file the commit deleted is no test of it.
		tests = slices.DeleteFunc(tests, func(p string) bool { return addedOrDeleted[p] && !m.existsAt(ctx, sha, p) })
		switch {
		case len(code) == 0 || len(tests) == 0:
			continue // not a change of code and tests together
		case bad != "":
			skip(bad)
			continue
		case lines > maxHistoryLines:
			skip("code change too large")
			continue
		}
		msg, err := gitrun.Run(ctx, m.clone.dir, nil, "log", "-1", "--format=%B", sha)
		if err != nil {
			return nil, fmt.Errorf("tasks: read history: %w", err)
		}
		cands = append(cands, &candidate{id: fmt.Sprintf("%s-history-%s", idWord(m.name), sha[:10]), kind: kindHistory,
			commit: sha, parent: parent, message: cleanMessage(msg), codeFiles: code, testFiles: tests})
	}
	return cands, nil
}

// existsAt reports whether path is a file of commit.
func (m *miner) existsAt(ctx context.Context, commit, path string) bool {
	_, err := gitrun.Run(ctx, m.clone.dir, nil, "cat-file", "-e", commit+":"+path)
	return err == nil
}

// cleanMessage is a commit message without its trailers (Signed-off-by,
// Co-authored-by) and the pull request number GitHub appends.
func cleanMessage(msg string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		t := strings.ToLower(strings.TrimSpace(l))
		if strings.HasPrefix(t, "signed-off-by:") || strings.HasPrefix(t, "co-authored-by:") || strings.HasPrefix(t, "reviewed-by:") {
			continue
		}
		keep = append(keep, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// tryHistory undoes a commit's code change on top of the commit and keeps
// it when the commit's tests fail because of it, and only they.
func (m *miner) tryHistory(ctx context.Context, c *candidate) outcome {
	drop := func(why string) outcome { return outcome{c: c, drop: "history: " + why} }
	dir := filepath.Join(m.work, "history-"+c.commit[:12])
	defer os.RemoveAll(dir)
	if err := m.clone.extract(ctx, c.commit, dir); err != nil {
		return drop("error: " + err.Error())
	}
	before, after := map[string][]byte{}, map[string][]byte{}
	for _, f := range c.codeFiles {
		old, err := m.clone.show(ctx, c.parent, f)
		if err != nil {
			return drop("error: " + err.Error())
		}
		cur, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return drop("error: " + err.Error())
		}
		before[f], after[f] = old, cur
	}
	put := func(files map[string][]byte) error {
		for p, data := range files {
			if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	// The commit first: a commit whose own code does not import or pass
	// its tests on this Python (old code meets a newer interpreter) is
	// no task, whatever undoing its change does.
	at, err := m.runTests(ctx, stepHistoryTests, dir, c.testFiles)
	if why := runProblem(at, err); why != "" {
		return drop(why + " at the commit on this Python")
	}
	if f := at.failing(); len(f) > 0 {
		return drop("its tests fail at the commit on this Python")
	}
	if err := put(before); err != nil {
		return drop("error: " + err.Error())
	}
	reverted, err := m.runTests(ctx, stepHistoryTests, dir, c.testFiles)
	if why := runProblem(reverted, err); why != "" {
		return drop(why + " without the change")
	}
	if len(reverted.failing()) == 0 {
		return drop("its tests pass without the change")
	}
	// That the whole suite passes at the commit on this Python, the
	// harness's reference run tells below: it ends worked only when the
	// check passes there.
	broken, err := m.runTests(ctx, stepHistorySuite, dir, nil)
	if why := runProblem(broken, err); why != "" {
		return drop(why + " without the change")
	}
	failing := broken.failing()
	switch {
	case len(failing) == 0:
		return drop("its tests pass without the change")
	case len(failing) > m.o.MaxFailing:
		return drop("too many tests fail without the change")
	}
	if why := m.taken(c, strings.Join(failing, "\n")); why != "" {
		return drop(why)
	}
	var fix []fileFix
	var forbidden []string
	for _, f := range c.codeFiles {
		blocks, err := m.hunks(ctx, before[f], after[f])
		if err != nil {
			return drop("error: " + err.Error())
		}
		ff := fileFix{path: f, blocks: blocks}
		if len(blocks) == 0 || slices.ContainsFunc(blocks, func(b block) bool {
			return strings.Contains(b.Find, "```") || strings.Contains(b.Replace, "```")
		}) {
			ff = fileFix{path: f, whole: after[f]}
		}
		fix = append(fix, ff)
		forbidden = append(forbidden, fixLines(string(before[f]), string(after[f]))...)
	}
	text := c.message + "\n\nThese tests fail now:\n\n" + evidence(failing, broken, forbidden)
	if quotes(text, forbidden) {
		return drop("the message quotes the fix")
	}
	sha, err := m.clone.commit(ctx, c.commit, c.id, "pyharness task "+c.id+": undo the code of "+c.commit[:10]+"\n", before)
	if err != nil {
		return drop("error: " + err.Error())
	}
	spec := schemas.TaskSpec{Task: text, Targets: slices.Clone(c.codeFiles)}
	out := m.finish(ctx, c, sha, spec, fix, "Made the change the failing tests ask for.", failing, []string{"mined", kindHistory}, nil)
	out.fix = forbidden
	if out.drop != "" && !strings.HasPrefix(out.drop, "history: ") {
		out.drop = "history: " + out.drop
	}
	return out
}

// hunks are the FIND/REPLACE blocks that turn old into new, from
// pyharness_mine.py hunks; none when it could not make them unique.
func (m *miner) hunks(ctx context.Context, old, new []byte) ([]block, error) {
	tmp, err := os.MkdirTemp("", "pyharness-mine-hunks-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	a, b := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	if err := os.WriteFile(a, old, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(b, new, 0o644); err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, m.o.Python, filepath.Join(m.work, pluginName+".py"), "hunks", a, b).Output()
	if err != nil {
		return nil, fmt.Errorf("make fix blocks: %w", err)
	}
	var blocks []block
	if err := json.Unmarshal(out, &blocks); err != nil {
		return nil, fmt.Errorf("make fix blocks: %w", err)
	}
	return blocks, nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
