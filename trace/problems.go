package trace

import (
	"fmt"
	"io"
	"strings"
)

// MaxProblems is how many bad lines of trace files a report (dedupe's,
// export's) lists one by one.
const MaxProblems = 50

// AddProblems appends the lines of a read error (each "file:line: what",
// as the trace reader words them) to a report's list, counting those past
// MaxProblems instead of listing them.
func AddProblems(list []string, left int, err error) ([]string, int) {
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if len(list) < MaxProblems {
			list = append(list, line)
		} else {
			left++
		}
	}
	return list, left
}

// WriteProblems prints the bad lines a report met in files trace files,
// as AddProblems listed them, and says how many more it left out.
func WriteProblems(w io.Writer, files int, list []string, left int) {
	fmt.Fprintf(w, "%d trace file(s) have bad lines; their good records were used:\n", files)
	for _, p := range list {
		fmt.Fprintf(w, "  %s\n", p)
	}
	if left > 0 {
		fmt.Fprintf(w, "  ... and %d more (pyharness validate lists them all)\n", left)
	}
}
