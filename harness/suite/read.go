package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// reading is what a parser found in one suite's output.
type reading struct {
	summary      bool // the runner's own summary line was found
	ran          int
	passed       int
	failed       int
	errors       int
	skipped      int
	importErrors []string // one per module or package that did not load
	failures     []Failure
	named        []junitFailure // the failing tests a JUnit report names
}

// read parses the output of a finished (or killed) run into res, by the
// runner that ran (kind). The counts come from structured, the runner's own
// report, when there is one; the failures' files and messages always come
// from the text. The output of a command whose runner is unknown is read
// by the runner report it holds, or not at all: then only its exit status
// is (Counts.ExitStatusOnly).
func read(kind Kind, res *Result, dir string, structured *reading) {
	text := normalizeOutput(res.Output)
	rp := newRepoPaths(dir)
	finished := !res.Counts.TimedOut && !res.Cancelled
	var rd reading
	switch kind {
	case Unittest:
		rd = readUnittest(text, rp, finished)
	case Pytest:
		rd = readPytest(text, rp)
	case GoTest:
		rd = readGoTest(text, rp, modulePath(dir))
	case unknown:
		// The command did not say what it runs; a runner's own closing
		// report in its output does ("Ran 3 tests" and "OK", "1 failed,
		// 2 passed"). Without one, the exit status is all there is.
		if rd = readPytest(text, rp); !rd.summary {
			rd = readUnittest(text, rp, finished)
		}
		if !rd.summary && structured == nil {
			res.Counts.ExitStatusOnly = true
			res.CountsFrom = fromExitStatus
			return
		}
	}
	if structured != nil {
		rd.summary = structured.summary
		rd.ran, rd.passed, rd.failed, rd.errors, rd.skipped = structured.ran, structured.passed, structured.failed, structured.errors, structured.skipped
		// A quiet run (-qq, --tb=no, -rN) prints no failure to read: the
		// report still names each one.
		for _, f := range structured.named {
			id := f.nodeID(rp.roots)
			if !slices.ContainsFunc(rd.failures, func(g Failure) bool { return g.Test == id }) {
				rd.failures = append(rd.failures, Failure{Test: id, Message: rp.clean(firstLine(f.message))})
			}
		}
	}
	c := &res.Counts
	c.Ran, c.Passed, c.Failed, c.Errors, c.Skipped = rd.ran, max(rd.passed, 0), rd.failed, rd.errors, rd.skipped
	switch n := len(rd.importErrors); n {
	case 0:
	case 1:
		c.ImportError = rd.importErrors[0]
	default:
		c.ImportError = fmt.Sprintf("%s; and %d more", rd.importErrors[0], n-1)
	}
	res.Failures = rd.failures
	// Nothing ran and nothing explains why: the runner said so, or it
	// exited 0 without saying anything we recognise. Either way not a pass.
	if finished && c.Ran == 0 && c.ImportError == "" && (rd.summary || c.ExitCode == 0) {
		c.NoTests = true
	}
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func normalizeOutput(s string) string {
	s = ansiEscape.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// repoPaths decides which paths in the output belong to the repository and
// says them relative to it, with forward slashes.
type repoPaths struct {
	roots []string // the directory as given (absolute) and with symlinks resolved
}

func newRepoPaths(dir string) repoPaths {
	var rp repoPaths
	if abs, err := filepath.Abs(dir); err == nil {
		rp.roots = append(rp.roots, filepath.Clean(abs))
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		if real, err = filepath.Abs(real); err == nil && (len(rp.roots) == 0 || real != rp.roots[0]) {
			rp.roots = append(rp.roots, filepath.Clean(real))
		}
	}
	return rp
}

// rel returns p relative to the repository, or false when p is outside it
// or inside an installed package (a virtualenv kept in the repository is
// not the code under test).
func (rp repoPaths) rel(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "<") {
		return "", false
	}
	var rel string
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
		for _, root := range rp.roots {
			if r, err := filepath.Rel(root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				rel = r
				break
			}
		}
		if rel == "" {
			return "", false
		}
	} else {
		rel = filepath.Clean(p)
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
	}
	rel = filepath.ToSlash(rel)
	if strings.Contains("/"+rel, "/site-packages/") || strings.Contains("/"+rel, "/dist-packages/") {
		return "", false
	}
	return rel, true
}

// clean says the repository's absolute paths in a message relative to it.
func (rp repoPaths) clean(msg string) string {
	for _, root := range rp.roots {
		msg = strings.ReplaceAll(msg, root+string(filepath.Separator), "")
	}
	return strings.TrimSpace(msg)
}

// frame is one "file, line" a traceback passed through.
type frame struct {
	file string
	line int
}

// lastInRepo is the deepest frame inside the repository: the code the
// failure is really about, not the stdlib or the test runner.
func (rp repoPaths) lastInRepo(frames []frame) (string, int) {
	for i := len(frames) - 1; i >= 0; i-- {
		if rel, ok := rp.rel(frames[i].file); ok {
			return rel, frames[i].line
		}
	}
	return "", 0
}

var (
	pyFrame = regexp.MustCompile(`^\s*File "(.+)", line (\d+)`)
	// An exception line: a capitalised class name, maybe dotted, then ": "
	// or nothing ("AssertionError: 'A L' != 'A. L.'", "KeyError",
	// "wordcount.ParseError: bad").
	pyException = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?::\s.*)?$`)
)

// pythonTraceback reads the last traceback in lines: the frames it passed
// through and the first line of the exception it ended in.
func pythonTraceback(lines []string) (frames []frame, exception string) {
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "Traceback (most recent call last):" {
			start = i
		}
	}
	if start < 0 {
		for _, l := range lines {
			if strings.TrimSpace(l) != "" && !startsIndented(l) {
				return nil, strings.TrimSpace(l)
			}
		}
		return nil, ""
	}
	for _, l := range lines[start+1:] {
		if m := pyFrame.FindStringSubmatch(l); m != nil {
			frames = append(frames, frame{file: m[1], line: atoi(m[2])})
			continue
		}
		if strings.TrimSpace(l) != "" && !startsIndented(l) {
			return frames, strings.TrimSpace(l)
		}
	}
	return frames, ""
}

func startsIndented(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '\t')
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// importFailure formats one module that did not load: "test module
// tests.test_x does not import (tests/test_x.py:2): ModuleNotFoundError: ...".
func importFailure(what, verb, file string, line int, msg string) string {
	where := ""
	if file != "" {
		where = " (" + file
		if line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		where += ")"
	}
	return fmt.Sprintf("%s %s%s: %s", what, verb, where, msg)
}
