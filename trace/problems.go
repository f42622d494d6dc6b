package trace

import "strings"

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
