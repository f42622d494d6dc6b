package suite

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Where a Result's counts were read from (Result.CountsFrom).
const (
	fromOutput     = "output"       // the runner's text output
	fromJUnitXML   = "junit-xml"    // pytest's --junitxml report
	fromGoTestJSON = "go-test-json" // go test -json events
	fromExitStatus = "exit-status"  // nothing but the exit status
)

// structuredReport is a runner's own account of a run, asked for next to
// its text output by the default commands: exact counts where the text
// has to be parsed. Custom commands and unittest have none.
type structuredReport interface {
	// command is argv with the arguments that ask for the report.
	command(argv []string) []string
	// output is what the process writes to, given the capped output.
	output(out *cappedOutput) io.Writer
	// counts is what the report says, once the process has exited; false
	// when there is no complete report (a run killed, a runner too old).
	counts() (reading, bool)
	// source names the report (fromJUnitXML, fromGoTestJSON).
	source() string
	close()
}

// structured returns the report the runner plan starts can write, or nil:
// pytest's JUnit XML file wherever pytest runs, go test's -json events
// wherever go test runs, whatever the command around them.
func structured(plan invocation) (structuredReport, error) {
	if plan.at < 0 {
		return nil, nil
	}
	switch plan.kind {
	case Pytest:
		// Outside the workspace: the suite's files are the model's.
		dir, err := os.MkdirTemp("", "pyharness-junit-")
		if err != nil {
			return nil, fmt.Errorf("create junit report dir: %w", err)
		}
		return &junitReport{dir: dir, path: filepath.Join(dir, "report.xml"), at: plan.at}, nil
	case GoTest:
		return &goJSONReport{at: plan.at}, nil
	}
	return nil, nil
}

var (
	_ structuredReport = (*junitReport)(nil)
	_ structuredReport = (*goJSONReport)(nil)
)

// junitReport is pytest's --junitxml file.
type junitReport struct {
	dir, path string
	at        int // the index of pytest's word in argv
}

// command asks for the report right after pytest's own word, before any
// argument of the user's: an option after "--" would be read as a path, and
// the command line's --junitxml comes after an addopts one, so it wins.
// A --junitxml the command has already is dropped: pytest writes one
// report, the last asked for, and the harness reads it from its own
// directory rather than from the model's workspace.
func (j *junitReport) command(argv []string) []string {
	out := slices.Clone(argv[:j.at+1])
	out = append(out, "--junitxml="+j.path)
	for i := j.at + 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return append(out, argv[i:]...)
		case a == "--junitxml" || a == "--junit-xml":
			i++ // and its value
		case strings.HasPrefix(a, "--junitxml=") || strings.HasPrefix(a, "--junit-xml="):
		default:
			out = append(out, a)
		}
	}
	return out
}

func (j *junitReport) output(out *cappedOutput) io.Writer { return out }

func (j *junitReport) counts() (reading, bool) {
	f, err := os.Open(j.path)
	if err != nil {
		return reading{}, false // pytest stopped before writing it
	}
	defer f.Close()
	rd, err := readJUnit(f)
	return rd, err == nil
}

func (j *junitReport) source() string { return fromJUnitXML }

func (j *junitReport) close() { os.RemoveAll(j.dir) }

// goJSONReport is go test -json's event stream, read as it comes.
type goJSONReport struct {
	events *goEvents
	at     int // the index of "test" in argv
}

func (g *goJSONReport) command(argv []string) []string {
	// go test's flags come before the packages: right after "test".
	return slices.Insert(slices.Clone(argv), g.at+1, "-json")
}

func (g *goJSONReport) output(out *cappedOutput) io.Writer {
	g.events = newGoEvents(out)
	return g.events
}

func (g *goJSONReport) counts() (reading, bool) {
	if g.events == nil {
		return reading{}, false
	}
	g.events.flush()
	return g.events.counts()
}

func (g *goJSONReport) source() string { return fromGoTestJSON }

func (g *goJSONReport) close() {}
