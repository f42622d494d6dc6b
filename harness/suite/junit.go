package suite

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// junitMaxBytes bounds the JUnit XML file read: a report larger than this
// is not read, and the counts come from the text.
const junitMaxBytes = 64 << 20

// junitCase is one <testcase> of pytest's JUnit XML report (its junitxml
// plugin): a result element per phase that did not pass.
type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failures  []junitResult `xml:"failure"`
	Errors    []junitResult `xml:"error"`
	Skipped   []junitResult `xml:"skipped"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
}

// junitDoc is the document: <testsuites><testsuite> since pytest 5.1, a
// bare <testsuite> before.
type junitDoc struct {
	Suites []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
	Cases []junitCase `xml:"testcase"`
}

// The messages pytest's junitxml gives the <error> of a module that did not
// collect, and of a test whose teardown failed.
const (
	junitCollectionFailure = "collection failure"
	junitTeardownPrefix    = "failed on teardown"
)

// readJUnit counts pytest's JUnit XML report the way readPytest counts the
// closing line: failures, errors (a module that did not collect is an
// error, not a test that ran), skips and xfails as skipped, and as passed
// every test that did not fail, error or skip in its call (a teardown error
// after a pass is both, as pytest's own summary says "1 passed, 1 error").
func readJUnit(r io.Reader) (reading, error) {
	var doc junitDoc
	data, err := io.ReadAll(io.LimitReader(r, junitMaxBytes+1))
	if err != nil {
		return reading{}, fmt.Errorf("read junit xml: %w", err)
	}
	if len(data) > junitMaxBytes {
		return reading{}, fmt.Errorf("read junit xml: larger than %d bytes", junitMaxBytes)
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return reading{}, fmt.Errorf("read junit xml: %w", err)
	}
	cases := doc.Cases
	for _, s := range doc.Suites {
		cases = append(cases, s.Cases...)
	}
	rd := reading{summary: true}
	collection := 0
	for _, c := range cases {
		callPassed := len(c.Failures) == 0 && len(c.Skipped) == 0
		for _, e := range c.Errors {
			rd.errors++
			switch {
			case e.Message == junitCollectionFailure:
				collection++
				callPassed = false
			case !strings.HasPrefix(e.Message, junitTeardownPrefix):
				callPassed = false
			}
		}
		for _, f := range c.Failures {
			rd.named = append(rd.named, junitFailure{classname: c.Classname, name: c.Name, message: f.Message})
		}
		for _, e := range c.Errors {
			if e.Message != junitCollectionFailure {
				rd.named = append(rd.named, junitFailure{classname: c.Classname, name: c.Name, message: e.Message})
			}
		}
		switch {
		case len(c.Failures) > 0:
			rd.failed++
		case len(c.Skipped) > 0:
			rd.skipped++
		case callPassed:
			rd.passed++
		}
	}
	rd.ran = rd.passed + rd.failed + rd.skipped + rd.errors - collection
	return rd, nil
}

// junitFailure is a failing or erroring <testcase> as the report names it:
// its classname ("tests.test_calc", "tests.test_calc.TestK") and name.
type junitFailure struct {
	classname, name, message string
}

// nodeID is the pytest node id of the test ("tests/test_calc.py::TestK::
// test_k"): the longest leading part of the classname that is a Python file
// under one of roots is the module, the rest its classes. Without one, the
// dotted name is kept as it is.
func (f junitFailure) nodeID(roots []string) string {
	parts := strings.Split(f.classname, ".")
	for n := len(parts); n > 0; n-- {
		file := strings.Join(parts[:n], "/") + ".py"
		for _, root := range roots {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err == nil {
				return strings.Join(append(append([]string{file}, parts[n:]...), f.name), "::")
			}
		}
	}
	if f.classname == "" {
		return f.name
	}
	return f.classname + "::" + f.name
}

// firstLine is the message's first line.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
