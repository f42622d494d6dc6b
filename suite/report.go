package suite

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Where a Result's counts were read from (Result.CountsFrom).
const (
	fromOutput     = "output"       // the runner's text output
	fromJUnitXML   = "junit-xml"    // pytest's --junitxml report
	fromGoTestJSON = "go-test-json" // go test -json events
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

// structured returns the report the default command of kind offers, or
// nil.
func (r Runner) structured(kind Kind) (structuredReport, error) {
	if r.Command != "" {
		return nil, nil
	}
	switch kind {
	case Pytest:
		// Outside the workspace: the suite's files are the model's.
		dir, err := os.MkdirTemp("", "pyharness-junit-")
		if err != nil {
			return nil, fmt.Errorf("create junit report dir: %w", err)
		}
		return &junitReport{dir: dir, path: filepath.Join(dir, "report.xml")}, nil
	case GoTest:
		return &goJSONReport{}, nil
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
}

func (j *junitReport) command(argv []string) []string {
	return append(slices.Clone(argv), "--junitxml="+j.path)
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
}

func (g *goJSONReport) command(argv []string) []string {
	// go test's flags come before the packages: right after "test".
	out := slices.Clone(argv)
	if i := slices.Index(out, "test"); i >= 0 {
		return slices.Insert(out, i+1, "-json")
	}
	return out
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
