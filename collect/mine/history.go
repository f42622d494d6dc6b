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

	"github.com/pyharness/pyharness/schemas"
)

// maxHistoryLines bounds the code lines a history task's commit changes:
// a larger change is a project, not a task.
const maxHistoryLines = 80

// historyCandidates are the commits among the newest HistoryDepth (merges
// left out) that change code and tests together: code files only
// modified, at least one test file added or changed.
func (m *miner) historyCandidates(ctx context.Context, sum *Summary) ([]*candidate, error) {
	out, err := git(ctx, m.clone.dir, nil, "log", "--no-merges", "--format=%H %P", "-n", strconv.Itoa(m.o.HistoryDepth), "HEAD")
	if err != nil {
		return nil, fmt.Errorf("tasks: read history: %w", err)
	}
	skip := func(why string) { sum.Dropped["history: "+why]++ }
	var cands []*candidate
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue // the root commit
		}
		sha, parent := f[0], f[1]
		stat, err := git(ctx, m.clone.dir, nil, "diff-tree", "-r", "--no-renames", "--numstat", parent, sha)
		if err != nil {
			return nil, fmt.Errorf("tasks: read history: %w", err)
		}
		status, err := git(ctx, m.clone.dir, nil, "diff-tree", "-r", "--no-renames", "--name-status", parent, sha)
		if err != nil {
			return nil, fmt.Errorf("tasks: read history: %w", err)
		}
		kinds := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(status), "\n") {
			if st, p, ok := strings.Cut(l, "\t"); ok {
				kinds[p] = st
			}
		}
		var code, tests []string
		lines, bad := 0, ""
		for _, l := range strings.Split(strings.TrimSpace(stat), "\n") {
			parts := strings.SplitN(l, "\t", 3)
			if len(parts) != 3 || !strings.HasSuffix(parts[2], ".py") {
				continue
			}
			p := parts[2]
			switch {
			case isTestPath(p):
				if kinds[p] != "D" {
					tests = append(tests, p)
				}
			case m.isSourcePath(p):
				if kinds[p] != "M" {
					bad = "adds or deletes code files"
				}
				a, _ := strconv.Atoi(parts[0])
				d, _ := strconv.Atoi(parts[1])
				lines += a + d
				code = append(code, p)
			}
		}
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
		msg, err := git(ctx, m.clone.dir, nil, "log", "-1", "--format=%B", sha)
		if err != nil {
			return nil, fmt.Errorf("tasks: read history: %w", err)
		}
		cands = append(cands, &candidate{id: fmt.Sprintf("%s-history-%s", idWord(m.name), sha[:10]), kind: kindHistory,
			commit: sha, parent: parent, message: cleanMessage(msg), codeFiles: code, testFiles: tests})
	}
	return cands, nil
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
	if err := put(before); err != nil {
		return drop("error: " + err.Error())
	}
	reverted, _, err := m.tester.run(ctx, dir, c.testFiles, false)
	if why := runProblem(reverted, err); why != "" {
		return drop(why + " without the change")
	}
	if len(reverted.failing()) == 0 {
		return drop("its tests pass without the change")
	}
	if err := put(after); err != nil {
		return drop("error: " + err.Error())
	}
	at, _, err := m.tester.run(ctx, dir, c.testFiles, false)
	if why := runProblem(at, err); why != "" {
		return drop(why + " at the commit on this Python")
	}
	if f := at.failing(); len(f) > 0 {
		return drop("its tests fail at the commit on this Python")
	}
	full, _, err := m.tester.run(ctx, dir, nil, false)
	if why := runProblem(full, err); why != "" || len(full.failing()) > 0 {
		return drop("the suite fails at the commit on this Python")
	}
	if err := put(before); err != nil {
		return drop("error: " + err.Error())
	}
	broken, _, err := m.tester.run(ctx, dir, nil, false)
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
	out := m.finish(ctx, c, sha, spec, fix, "Made the change the failing tests ask for.", failing, []string{"mined", kindHistory})
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
