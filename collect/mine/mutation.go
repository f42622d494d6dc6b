package mine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/internal/gitrun"
	"github.com/pyharness/pyharness/schemas"
)

// isTestPath reports whether a repository path is a test file or lives
// among the tests: such files are the judge, never the edited code.
func isTestPath(p string) bool {
	base := path.Base(p)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" || base == "tests.py" {
		return true
	}
	for _, part := range strings.Split(path.Dir(p), "/") {
		if part == "tests" || part == "test" || part == "testing" {
			return true
		}
	}
	return false
}

// isSourcePath reports whether a tracked file is code to mutate: Python,
// not a test, not the packaging script, not documentation or examples.
func (m *miner) isSourcePath(p string) bool {
	if !strings.HasSuffix(p, ".py") || isTestPath(p) || path.Base(p) == "setup.py" {
		return false
	}
	if len(m.o.Scope) > 0 {
		return schemas.InScope(m.o.Scope, p)
	}
	top, _, _ := strings.Cut(p, "/")
	switch top {
	case "docs", "doc", "examples", "example", "benchmarks", "benchmark", "bench", "scripts", "tools":
		return false
	}
	return true
}

// site is one mutation as pyharness_mine.py sites prints it.
type site struct {
	File      string `json:"file"`
	Function  string `json:"function"`
	Top       string `json:"top"`
	FirstLine int    `json:"first_line"`
	Kind      string `json:"kind"`
	Line      int    `json:"line"`
	Find      string `json:"find"`
	Replace   string `json:"replace"`
}

// mutationCandidates are the mutation sites of the source files in
// functions some passing test runs.
func (m *miner) mutationCandidates(ctx context.Context, sum *Summary) ([]*candidate, error) {
	out, err := gitrun.Run(ctx, m.clone.dir, nil, "ls-files", "-z", "--", "*.py")
	if err != nil {
		return nil, fmt.Errorf("tasks: list files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" && m.isSourcePath(f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	cmd := exec.CommandContext(ctx, m.o.Python, append([]string{filepath.Join(m.work, pluginName+".py"), "sites", m.clone.dir}, files...)...)
	cmd.Dir = m.clone.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("tasks: find mutation sites: %w: %s", err, lastLines(stderr.String(), 5))
	}
	var sites []site
	if err := json.Unmarshal(stdout.Bytes(), &sites); err != nil {
		return nil, fmt.Errorf("tasks: read mutation sites: %w", err)
	}
	var cands []*candidate
	for _, s := range sites {
		if !m.wantKind(s.Kind) {
			continue
		}
		key := s.File + ":" + strconv.Itoa(s.FirstLine)
		if len(m.coveredBy[key]) == 0 {
			sum.Dropped["function no passing test runs"]++
			continue
		}
		if strings.Contains(s.Find, "```") || strings.Contains(s.Replace, "```") {
			continue
		}
		if _, ok := m.sources[s.File]; !ok {
			data, err := os.ReadFile(filepath.Join(m.clone.dir, s.File))
			if err != nil {
				return nil, fmt.Errorf("tasks: %w", err)
			}
			m.sources[s.File] = data
		}
		id := fmt.Sprintf("%s-%s-%s-%s-%d", idWord(m.name), idWord(strings.TrimSuffix(strings.TrimPrefix(s.File, "src/"), ".py")), idWord(s.Function), s.Kind, s.Line)
		cands = append(cands, &candidate{id: id, kind: s.Kind, file: s.File, function: s.Function, top: s.Top,
			funcKey: key, line: s.Line, find: s.Find, replace: s.Replace})
	}
	return cands, nil
}

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.]+`)

// idWord is s as part of an entry id: letters, digits, _ and . only.
func idWord(s string) string {
	return strings.Trim(idUnsafe.ReplaceAllString(strings.ReplaceAll(s, "/", "."), "_"), "_.")
}

// tryMutation applies a mutation in jobDir, runs the tests that ran its
// function, then the whole suite, and last the harness.
func (m *miner) tryMutation(ctx context.Context, jobDir string, c *candidate) outcome {
	drop := func(why string) outcome { return outcome{c: c, drop: why} }
	if why := m.taken(c, ""); why != "" {
		return drop(why)
	}
	orig := m.sources[c.file]
	if bytes.Count(orig, []byte(c.replace)) != 1 {
		return drop("mutation is not unique in its file")
	}
	mutated := bytes.Replace(orig, []byte(c.replace), []byte(c.find), 1)
	target := filepath.Join(jobDir, c.file)
	if err := os.WriteFile(target, mutated, 0o644); err != nil {
		return drop("error: " + err.Error())
	}
	defer os.WriteFile(target, orig, 0o644)
	selected := m.coveredBy[c.funcKey]
	rep, err := m.runTests(ctx, stepSelected, jobDir, selected)
	if why := runProblem(rep, err); why != "" {
		return drop(why)
	}
	m.mu.Lock()
	m.saved += m.suiteSize - len(rep.Tests)
	m.mu.Unlock()
	failing := rep.failing()
	switch {
	case len(failing) == 0:
		return drop("no test fails")
	case len(failing) > m.o.MaxFailing:
		return drop("too many tests fail")
	}
	if why := m.taken(c, strings.Join(failing, "\n")); why != "" {
		return drop(why)
	}
	fix := []fileFix{{path: c.file, blocks: []block{{Find: c.find, Replace: c.replace}}}}
	forbidden := fixLines(c.find, c.replace)
	text, ok := taskText(failing, rep, forbidden)
	if !ok {
		return drop("task text would quote the fix")
	}
	spec := schemas.TaskSpec{Task: text, Targets: []string{c.file}, Names: []string{c.top}}
	if !strings.Contains(c.function, ".") {
		spec.Subject = c.function
	}
	sha, err := m.clone.commit(ctx, m.head, c.id, "pyharness task "+c.id+"\n", map[string][]byte{c.file: mutated})
	if err != nil {
		return drop("error: " + err.Error())
	}
	summary := fmt.Sprintf("Fixed %s in %s; %s again.", c.function, c.file, plural(len(failing), "the failing test passes", "the failing tests pass"))
	// The harness runs the whole suite at the task's start: when its
	// counts say that only the selected failing tests fail, the task is
	// what the selection saw; otherwise the whole suite runs here to tell.
	confirm := func(before schemas.SuiteCounts) string {
		if before.Failed+before.Errors == len(failing) && before.Passed == m.suiteSize-len(failing) {
			m.mu.Lock()
			m.saved += m.suiteSize
			m.mu.Unlock()
			return ""
		}
		full, err := m.runTests(ctx, stepSuite, jobDir, nil)
		if why := runProblem(full, err); why != "" {
			return why
		}
		if !slices.Equal(full.failing(), failing) {
			return "tests the selection left out fail"
		}
		return ""
	}
	out := m.finish(ctx, c, sha, spec, fix, summary, failing, []string{"mined", "mutation", c.kind}, confirm)
	out.fix = forbidden
	return out
}

// runProblem says why a test run cannot judge a candidate, "" when it can.
func runProblem(rep *testReport, err error) string {
	switch {
	case errors.Is(err, errTimeout):
		return "tests time out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case err != nil:
		return "tests did not run"
	case len(rep.CollectErrors) > 0:
		return "tests no longer collect or import"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
