package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/classify/dataset"
)

// Where the commands read and write, one rule (the README's "Where things
// go" says it to users): the commands that record runs (run, bench,
// collect, demo) write under --out, ./pyharness-out unless told (the demo's
// is ./pyharness-out/demo); the commands that read runs (classify, stats,
// report, show, dedupe, export, bench compare) read --in, ./pyharness-out
// unless told, and write what they make inside it: IN/dataset,
// IN/report.html with IN/report-runs, IN/export/FORMAT.

// readInput checks the trace directory a reading command was given before
// anything is read, and returns the directory to read: in itself, or, for
// a command that also reads a classified dataset (withDataset), in/dataset
// when in holds a dataset and no traces. A directory that does not exist
// or holds no runs is a configuration error (exitUsage), and the message
// names the directories near it that do hold runs.
func readInput(cmd, flag, in string, withDataset bool) (string, error) {
	named := strings.TrimSpace(flag + " " + in)
	st, err := os.Stat(in)
	switch {
	case err != nil:
		return "", &exitError{code: exitUsage, msg: fmt.Sprintf("%s: %s: no such directory%s", cmd, named, whereRunsAre(cmd, in))}
	case !st.IsDir():
		return "", &exitError{code: exitUsage, msg: fmt.Sprintf("%s: %s: not a directory (a trace directory holds runs/*.jsonl)", cmd, named)}
	}
	if withDataset && dataset.IsDataset(in) {
		return in, nil
	}
	if traceFiles(in) > 0 {
		return in, nil
	}
	if ds := filepath.Join(in, "dataset"); withDataset && dataset.IsDataset(ds) {
		return ds, nil
	}
	what := "no trace files (*.jsonl) in " + in + " or " + filepath.Join(in, "runs")
	if withDataset {
		what += ", and no classified dataset"
	}
	return "", &exitError{code: exitUsage, msg: fmt.Sprintf("%s: %s%s", cmd, what, whereRunsAre(cmd, in))}
}

// traceFiles counts the trace files of a trace directory.
func traceFiles(dir string) int {
	n := 0
	for _, pattern := range []string{"*.jsonl", filepath.Join("runs", "*.jsonl")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		n += len(m)
	}
	return n
}

// whereRunsAre names the trace directories (those holding runs/*.jsonl)
// under in, under ./pyharness-out and in the working directory, nearest
// first, with the command to read the first: "; runs are in
// pyharness-out/demo (15 trace files): pyharness stats --in pyharness-out/demo".
func whereRunsAre(cmd, in string) string {
	var dirs []string
	seen := map[string]bool{filepath.Clean(in): true}
	consider := func(d string) {
		d = filepath.Clean(d)
		if seen[d] {
			return
		}
		seen[d] = true
		if runFiles(d) > 0 {
			dirs = append(dirs, d)
		}
	}
	for _, parent := range []string{in, defaultOut, "."} {
		consider(parent)
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if e.IsDir() {
				consider(filepath.Join(parent, e.Name()))
			}
		}
	}
	if len(dirs) == 0 {
		return fmt.Sprintf("; no trace directory here either (run, bench, collect and demo write one, under %s unless --out says)", defaultOut)
	}
	var named []string
	for _, d := range dirs[:min(len(dirs), 4)] {
		named = append(named, fmt.Sprintf("%s (%d trace files)", d, runFiles(d)))
	}
	more := ""
	if len(dirs) > 4 {
		more = fmt.Sprintf(" and %d more", len(dirs)-4)
	}
	flag := "--in " + dirs[0]
	switch cmd {
	case "bench compare":
		flag = dirs[0] + " …"
	case "validate":
		flag = dirs[0]
	}
	return fmt.Sprintf("; runs are in %s%s: pyharness %s %s", strings.Join(named, ", "), more, cmd, flag)
}

// runFiles counts the trace files under dir/runs.
func runFiles(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	return len(m)
}
