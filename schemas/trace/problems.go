package trace

import (
	"fmt"
	"io"
	"strings"
)

// maxProblems is how many bad lines of trace files a report (dedupe's,
// export's) lists one by one.
const maxProblems = 50

// Problems are the bad lines of trace files a stage met and read past,
// each "file:line: what" as the trace reader words it. Every stage that
// reads traces keeps its list as Problems, so a bad line reads the same
// in classify's, stats', dedupe's and export's reports.
type Problems []string

// Add appends the bad lines of a read error: the reader joins a file's bad
// lines into one error (ReadRun), and each becomes one entry here.
func (p *Problems) Add(err error) {
	*p = appendLines(*p, err, -1, nil)
}

// AddAtMost appends the bad lines of a read error as Add does while the
// list is shorter than most, and returns how many lines it left out.
func (p *Problems) AddAtMost(err error, most int) (left int) {
	*p = appendLines(*p, err, most, &left)
	return left
}

// appendLines appends err's lines to list: a joined error is its errors,
// each error's text its non-blank lines. Past most (when most >= 0) the
// lines are counted in left instead.
func appendLines(list []string, err error, most int, left *int) []string {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			list = appendLines(list, e, most, left)
		}
		return list
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if most >= 0 && len(list) >= most {
			*left++
			continue
		}
		list = append(list, line)
	}
	return list
}

// write prints the bad lines a report met in files trace files, and says
// how many more (left) it did not list.
func (p Problems) write(w io.Writer, files, left int) {
	fmt.Fprintf(w, "%d trace file(s) have bad lines; their good records were used:\n", files)
	for _, line := range p {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if left > 0 {
		fmt.Fprintf(w, "  ... and %d more (pyharness validate lists them all)\n", left)
	}
}

// BadLines is what a report that reads past bad lines (dedupe's, export's)
// says of them: how many trace files had them, and the lines themselves,
// at most maxProblems listed and the rest counted. Embedded, its fields
// are the report's own in JSON.
type BadLines struct {
	// FilesWithErrors are trace files with bad lines; their good records
	// were used.
	FilesWithErrors int `json:"files_with_errors"`
	// Problems are the bad lines of those files, each as file:line: what
	// (at most maxProblems; ProblemsLeft counts the rest).
	Problems     Problems `json:"problems,omitempty"`
	ProblemsLeft int      `json:"problems_left,omitempty"`
}

// AddFile counts a trace file read in part and lists its bad lines (the
// reader's error for the file).
func (b *BadLines) AddFile(err error) {
	b.FilesWithErrors++
	b.ProblemsLeft += b.Problems.AddAtMost(err, maxProblems)
}

// WriteBadLines prints the bad lines, as Problems.write does, when there
// were any.
func (b BadLines) WriteBadLines(w io.Writer) {
	if b.FilesWithErrors > 0 {
		b.Problems.write(w, b.FilesWithErrors, b.ProblemsLeft)
	}
}
