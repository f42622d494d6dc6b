package suite

import (
	"regexp"
	"strings"
)

var (
	utRan        = regexp.MustCompile(`^Ran (\d+) tests?(?: in |$)`) // quietVolatile drops the duration
	utOK         = regexp.MustCompile(`^OK(?: \((.*)\))?$`)
	utFailed     = regexp.MustCompile(`^FAILED \((.*)\)$`)
	utNoTests    = regexp.MustCompile(`^NO TESTS RAN(?: \((.*)\))?$`)
	utBlockHead  = regexp.MustCompile(`^(FAIL|ERROR|UNEXPECTED SUCCESS): (.+)$`)
	utTestName   = regexp.MustCompile(`^(\S+) \((\S+?)\)(.*)$`)
	utImportFail = regexp.MustCompile(`^ImportError: Failed to import test module: (\S+)`)
)

// readUnittest reads "python -m unittest" output: the failure blocks
// between "=====" rules, "Ran N tests" and the status line after it
// ("OK (skipped=1)", "FAILED (failures=1, errors=2)", "NO TESTS RAN").
func readUnittest(text string, rp repoPaths, finished bool) reading {
	var rd reading
	lines := strings.Split(text, "\n")
	sawRan := false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if m := utRan.FindStringSubmatch(l); m != nil {
			// The last "Ran" wins: a test may print one of its own.
			rd.ran, rd.failed, rd.errors, rd.skipped = atoi(m[1]), 0, 0, 0
			sawRan = true
			continue
		}
		if sawRan {
			if m := utOK.FindStringSubmatch(l); m != nil {
				rd.summary = true
				unittestStatus(&rd, m[1])
				continue
			}
			if m := utFailed.FindStringSubmatch(l); m != nil {
				rd.summary = true
				unittestStatus(&rd, m[1])
				continue
			}
			if m := utNoTests.FindStringSubmatch(l); m != nil {
				rd.summary = true
				unittestStatus(&rd, m[1])
				continue
			}
		}
		if !isRule(l, '=') || i+1 >= len(lines) {
			continue
		}
		m := utBlockHead.FindStringSubmatch(strings.TrimRight(lines[i+1], " \t"))
		if m == nil {
			continue
		}
		j := i + 2
		if j < len(lines) && isRule(lines[j], '-') {
			j++
		}
		body := j
		for j < len(lines) && !isRule(lines[j], '=') && !isRule(lines[j], '-') {
			j++
		}
		f, module := unittestBlock(m[1], m[2], lines[body:j], rp)
		rd.failures = append(rd.failures, f)
		if module != "" {
			rd.importErrors = append(rd.importErrors, importFailure("test module "+module, "does not import", f.File, f.Line, f.Message))
		}
		i = j - 1
	}
	if sawRan {
		rd.summary = true
		rd.passed = rd.ran - rd.failed - rd.errors - rd.skipped
	} else if finished && strings.Contains(text, "Traceback (most recent call last):") {
		// The runner died before running anything (python tests/test_x.py
		// whose imports fail): that is a suite that does not load.
		frames, exc := pythonTraceback(lines)
		file, line := rp.lastInRepo(frames)
		rd.importErrors = append(rd.importErrors, importFailure("the test suite", "does not load", file, line, rp.clean(exc)))
	}
	return rd
}

// unittestStatus reads "failures=1, errors=2, skipped=1, expected
// failures=1, unexpected successes=1". An unexpected success fails the run
// (Python 3.11+), so it counts as a failure; an expected failure is neither
// run-and-passed nor failed, and counts with the skipped.
func unittestStatus(rd *reading, extras string) {
	for _, part := range strings.Split(extras, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		n := atoi(val)
		switch key {
		case "failures", "unexpected successes":
			rd.failed += n
		case "errors":
			rd.errors += n
		case "skipped", "expected failures":
			rd.skipped += n
		}
	}
}

// unittestBlock reads one "FAIL: test_x (pkg.mod.Class.test_x)" block. For
// a module that did not import it also returns the module's name.
func unittestBlock(kind, head string, body []string, rp repoPaths) (f Failure, importModule string) {
	f.Test = head
	failedImport := false
	if m := utTestName.FindStringSubmatch(head); m != nil {
		name, id, rest := m[1], m[2], strings.TrimSpace(m[3])
		switch {
		case strings.Contains(id, "_FailedTest"):
			f.Test = name
			failedImport = true
		case strings.HasSuffix(id, "."+name):
			f.Test = id
		default:
			f.Test = id + "." + name
		}
		if rest != "" {
			f.Test += " " + rest
		}
	}
	for _, l := range body {
		if m := utImportFail.FindStringSubmatch(l); m != nil {
			importModule = m[1]
			break
		}
	}
	if !failedImport {
		importModule = ""
	}
	frames, exc := pythonTraceback(body)
	f.File, f.Line = rp.lastInRepo(frames)
	f.Message = rp.clean(exc)
	if f.Message == "" && kind == "UNEXPECTED SUCCESS" {
		f.Message = "unexpected success"
	}
	return f, importModule
}

// isRule reports whether l is a horizontal rule of c, as unittest prints
// between blocks (70 of them; at least 20 is enough to be sure).
func isRule(l string, c byte) bool {
	l = strings.TrimRight(l, " \t")
	if len(l) < 20 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if l[i] != c {
			return false
		}
	}
	return true
}
