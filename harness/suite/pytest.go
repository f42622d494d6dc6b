package suite

import (
	"regexp"
	"strings"
)

var (
	// "4 failed, 2 passed, 1 skipped, 1 error in 0.03s", with or without
	// the "====" around it, "no tests ran in 0.01s".
	// The duration is optional: quietVolatile drops it from the output
	// a run keeps, which is read again (a recorded run, the tests).
	ptSummary     = regexp.MustCompile(`^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|warnings?|deselected|xfailed|xpassed|rerun)(?:, )?)+|no tests ran)(?: in [\d.]+s(?: \([^)]*\))?)?\s*=*$`)
	ptCount       = regexp.MustCompile(`(\d+) ([a-z]+)`)
	ptSectionHead = regexp.MustCompile(`^_+ (.+?) _+$`)
	ptRule        = regexp.MustCompile(`^(?:={3,}|!{3,})(?: .* (?:={3,}|!{3,}))?$`)
	ptCaptured    = regexp.MustCompile(`^-+ Captured .* -+$`)
	ptLocation    = regexp.MustCompile(`^([^\s>][^:]*\.py):(\d+):(?: (.*))?$`)
	ptELine       = regexp.MustCompile(`^E(?:\s+(.*))?$`)
	ptShort       = regexp.MustCompile(`^(FAILED|ERROR) (\S+)(?: - (.*))?$`)
	ptConftest    = regexp.MustCompile(`^ImportError while loading conftest '(.+)'\.?$`)
	ptInterrupted = regexp.MustCompile(`Interrupted: \d+ errors? during collection`)
)

// ptSection is one "____ test_x ____" block of pytest's report.
type ptSection struct {
	title      string
	collection string // the module, when it is "ERROR collecting <module>"
	file       string
	line       int
	message    string
	used       bool
}

// readPytest reads pytest output run with -q -rfE: the failure and error
// sections, the short summary ("FAILED tests/test_a.py::test_x - ...") and
// the closing count line.
func readPytest(text string, rp repoPaths) reading {
	var rd reading
	lines := strings.Split(text, "\n")
	var (
		sections    []*ptSection
		shorts      [][]string
		counts      map[string]int
		interrupted bool
	)
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if m := ptSummary.FindStringSubmatch(l); m != nil {
			counts = map[string]int{}
			for _, c := range ptCount.FindAllStringSubmatch(m[1], -1) {
				counts[strings.TrimSuffix(c[2], "s")] += atoi(c[1])
			}
			continue
		}
		if ptInterrupted.MatchString(l) {
			interrupted = true
			continue
		}
		if m := ptShort.FindStringSubmatch(l); m != nil {
			shorts = append(shorts, m)
			continue
		}
		title, collection := "", ""
		if m := ptSectionHead.FindStringSubmatch(l); m != nil && strings.Trim(m[1], "_ ") != "" {
			title = m[1]
			collection, _ = strings.CutPrefix(title, "ERROR collecting ")
			if collection == title {
				collection = ""
			}
		} else if m := ptConftest.FindStringSubmatch(l); m != nil {
			title = "conftest"
			collection = m[1]
			if rel, ok := rp.rel(m[1]); ok {
				collection = rel
			}
		} else {
			continue
		}
		j := i + 1
		for j < len(lines) && !ptRule.MatchString(lines[j]) && !isPtSectionHead(lines[j]) && !ptSummary.MatchString(lines[j]) {
			j++
		}
		s := pytestSection(title, lines[i+1:j], rp)
		s.collection = collection
		sections = append(sections, s)
		i = j - 1
	}

	collectionErrors := 0
	for _, s := range sections {
		if s.collection == "" {
			continue
		}
		collectionErrors++
		rd.importErrors = append(rd.importErrors, importFailure("test module "+s.collection, "does not import", s.file, s.line, s.message))
		rd.failures = append(rd.failures, Failure{Test: s.collection, File: s.file, Line: s.line, Message: s.message})
		s.used = true
	}
	// The short summary names each failure by node id, in pytest's order;
	// its message is cut to the terminal width, so the section's is better.
	for _, m := range shorts {
		nodeID, msg := m[2], strings.TrimSpace(m[3])
		if !strings.Contains(nodeID, "::") {
			continue // a collection error, reported above
		}
		f := Failure{Test: nodeID, Message: rp.clean(msg)}
		for _, s := range sections {
			if !s.used && sameTest(nodeID, s.title) {
				s.used = true
				f.File, f.Line = s.file, s.line
				if s.message != "" {
					f.Message = s.message
				}
				break
			}
		}
		rd.failures = append(rd.failures, f)
	}
	for _, s := range sections {
		if !s.used {
			rd.failures = append(rd.failures, Failure{Test: testOfTitle(s.title), File: s.file, Line: s.line, Message: s.message})
		}
	}

	if counts != nil {
		rd.summary = true
		rd.passed = counts["passed"] + counts["xpassed"]
		rd.failed = counts["failed"]
		rd.errors = counts["error"]
		rd.skipped = counts["skipped"] + counts["xfailed"]
		testErrors := rd.errors - collectionErrors
		if interrupted || testErrors < 0 {
			testErrors = 0
		}
		rd.ran = rd.passed + rd.failed + rd.skipped + testErrors
	}
	return rd
}

func isPtSectionHead(l string) bool {
	m := ptSectionHead.FindStringSubmatch(strings.TrimRight(l, " \t"))
	return m != nil && strings.Trim(m[1], "_ ") != ""
}

// pytestSection reads a section's body: the locations ("path.py:12: in f",
// "wordcount.py:4: ValueError"), the "E   " lines, and the frames a
// SyntaxError shows inside them.
func pytestSection(title string, body []string, rp repoPaths) *ptSection {
	s := &ptSection{title: title}
	var (
		frames  []frame
		group   []string // the current run of E lines
		lastE   []string // the last complete run
		lastExc string   // the exception name of the last location line
		inGroup bool
	)
	for _, l := range body {
		l = strings.TrimRight(l, " \t")
		if ptCaptured.MatchString(l) {
			break // the test's own output follows; not part of the traceback
		}
		if m := ptELine.FindStringSubmatch(l); m != nil {
			if !inGroup {
				group, inGroup = nil, true
			}
			group = append(group, m[1])
			if fm := pyFrame.FindStringSubmatch(m[1]); fm != nil {
				frames = append(frames, frame{file: fm[1], line: atoi(fm[2])})
			}
			continue
		}
		if inGroup {
			lastE, inGroup = group, false
		}
		if m := ptLocation.FindStringSubmatch(l); m != nil {
			frames = append(frames, frame{file: m[1], line: atoi(m[2])})
			if exc := strings.TrimSpace(m[3]); exc != "" && !strings.HasPrefix(exc, "in ") {
				lastExc = exc
			}
		}
	}
	if inGroup {
		lastE = group
	}
	s.file, s.line = rp.lastInRepo(frames)
	for _, e := range lastE {
		if pyException.MatchString(e) {
			s.message = rp.clean(e)
			break
		}
	}
	if s.message == "" && len(lastE) > 0 {
		s.message = rp.clean(lastE[0])
		if lastExc != "" && pyException.MatchString(lastExc) {
			s.message = lastExc + ": " + s.message
		}
	}
	return s
}

// testOfTitle is the test a section title names: "T.test_x",
// "ERROR at setup of test_x" → "test_x".
func testOfTitle(title string) string {
	for _, p := range []string{"ERROR at setup of ", "ERROR at teardown of ", "ERROR at call of "} {
		if t, ok := strings.CutPrefix(title, p); ok {
			return t
		}
	}
	return title
}

// sameTest matches a node id ("tests/test_a.py::T::test_x[1.5]") with a
// section title ("T.test_x[1.5]") by the test's own name.
func sameTest(nodeID, title string) bool {
	name := testOfTitle(title)
	base := name
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.HasSuffix(nodeID, "::"+name)
}
