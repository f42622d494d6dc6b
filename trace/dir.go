package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// File is one trace file: one attempt of one run.
type File struct {
	RunID   string
	Attempt int
	Path    string
}

// ParseFileName reads the run id and attempt from a trace file name.
func ParseFileName(name string) (runID string, attempt int, ok bool) {
	base, found := strings.CutSuffix(name, ".jsonl")
	if !found || base == "" {
		return "", 0, false
	}
	if i := strings.LastIndex(base, ".attempt-"); i > 0 {
		n, err := strconv.Atoi(base[i+len(".attempt-"):])
		if err == nil && n >= 2 {
			return base[:i], n, true
		}
	}
	return base, 1, true
}

// TraceDir returns the folder holding the trace files of an output
// directory: DIR/runs when it exists, else DIR itself.
func TraceDir(dir string) string {
	if st, err := os.Stat(filepath.Join(dir, RunsDir)); err == nil && st.IsDir() {
		return filepath.Join(dir, RunsDir)
	}
	return dir
}

// ListFiles lists every trace file of a directory (see TraceDir), every
// attempt included, sorted by run id then attempt.
func ListFiles(dir string) ([]File, error) {
	tdir := TraceDir(dir)
	entries, err := os.ReadDir(tdir)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	var files []File
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		id, n, ok := ParseFileName(e.Name())
		if !ok {
			continue
		}
		files = append(files, File{RunID: id, Attempt: n, Path: filepath.Join(tdir, e.Name())})
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].RunID != files[j].RunID {
			return files[i].RunID < files[j].RunID
		}
		return files[i].Attempt < files[j].Attempt
	})
	return files, nil
}

// LatestAttempts keeps the last attempt of each run id and says how many
// earlier attempts it set aside. files must be sorted as ListFiles sorts.
func LatestAttempts(files []File) (latest []File, setAside int) {
	for i, f := range files {
		if i+1 < len(files) && files[i+1].RunID == f.RunID {
			setAside++
			continue
		}
		latest = append(latest, f)
	}
	return latest, setAside
}

// Run is the records of one attempt of one run, read whole (a run is small;
// a dataset is not, and is streamed run by run).
type Run struct {
	File  File
	Start *schemas.RunStart
	Turns []*schemas.Turn
	End   *schemas.RunEnd
	// Warnings are problems that did not stop the reading, such as a torn
	// last line.
	Warnings []error
}

// Complete reports whether the run ended with a run_end record.
func (r *Run) Complete() bool { return r.End != nil }

// ErrIncomplete marks a run whose trace has no run_end record.
var ErrIncomplete = errors.New("incomplete run: no run_end record")

// ReadRun reads one trace file into a Run. Errors in the file are returned
// joined, after every good record has been kept.
func ReadRun(f File) (*Run, error) {
	run := &Run{File: f}
	var errs []error
	for rec, err := range ReadFile(f.Path) {
		if err != nil {
			if IsWarning(err) {
				run.Warnings = append(run.Warnings, err)
			} else {
				errs = append(errs, err)
			}
			continue
		}
		switch {
		case rec.RunStart != nil:
			run.Start = rec.RunStart
		case rec.Turn != nil:
			run.Turns = append(run.Turns, rec.Turn)
		case rec.RunEnd != nil:
			run.End = rec.RunEnd
		}
	}
	if run.Start == nil && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no run_start record", f.Path))
	}
	return run, errors.Join(errs...)
}

// Runs streams the last attempt of every run in a trace directory. A run
// whose file has errors is yielded with them; the stream goes on.
func Runs(dir string) iter.Seq2[*Run, error] {
	return func(yield func(*Run, error) bool) {
		files, err := ListFiles(dir)
		if err != nil {
			yield(nil, err)
			return
		}
		latest, _ := LatestAttempts(files)
		for _, f := range latest {
			run, err := ReadRun(f)
			if !yield(run, err) {
				return
			}
		}
	}
}

// IsTraceDir reports whether dir holds trace files (DIR/runs/*.jsonl or
// DIR/*.jsonl).
func IsTraceDir(dir string) bool {
	files, err := ListFiles(dir)
	return err == nil && len(files) > 0 && !errors.Is(err, fs.ErrNotExist)
}
