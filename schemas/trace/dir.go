package trace

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/internal/wholefile"
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

// Dir returns the folder holding the trace files of an output
// directory: DIR/runs when it exists, else DIR itself.
func Dir(dir string) string {
	if st, err := os.Stat(filepath.Join(dir, RunsDir)); err == nil && st.IsDir() {
		return filepath.Join(dir, RunsDir)
	}
	return dir
}

// ListFiles lists every trace file of a directory (see Dir), every
// attempt included, sorted by run id then attempt. List holds the same
// listing in a fraction of the memory.
func ListFiles(dir string) ([]File, error) {
	l, err := list(dir)
	if err != nil {
		return nil, err
	}
	return l.files(), nil
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
	// SetAside is how many earlier attempts of the run were set aside, when
	// the run was read as the last attempt of its run (Runs).
	SetAside int
}

// Complete reports whether the run ended with a run_end record.
func (r *Run) Complete() bool { return r.End != nil }

// ReadRun reads one trace file into a Run. Errors in the file are returned
// joined, after every good record has been kept. The file is read whole
// into a kept buffer (wholefile.Read), in one read where the buffered reader
// took several, and its lines decoded in place.
func ReadRun(f File) (*Run, error) {
	data, _, done, err := wholefile.Read(f.Path)
	if err != nil {
		// Read as a stream, which says why it cannot be.
		return readRun(f, ReadFile(f.Path))
	}
	defer done()
	return ReadRunBytes(f, data)
}

// ReadRunBytes is ReadRun of data, the bytes of f read beforehand: a
// reader that hashes a file reads it once, and decodes what it hashed.
func ReadRunBytes(f File, data []byte) (*Run, error) {
	return readRun(f, records(linesOf(data, f.Path)))
}

func readRun(f File, records iter.Seq2[schemas.Record, error]) (*Run, error) {
	run := &Run{File: f}
	var errs []error
	for rec, err := range records {
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

// ReadStart reads the run_start record of a trace file and stops there: it
// skips bad lines before it, as ReadRun does, and gives up at the first
// other record.
func ReadStart(f File) (*schemas.RunStart, error) {
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer file.Close()
	var first error
	// A small buffer: only the first line is wanted, and a pass over a
	// large corpus reads every file's.
	for rec, err := range read(file, f.Path, 4096) {
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		if rec.RunStart != nil {
			return rec.RunStart, nil
		}
		break
	}
	if first != nil {
		return nil, first
	}
	return nil, fmt.Errorf("%s: no run_start record", f.Path)
}
