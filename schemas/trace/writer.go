package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pyharness/pyharness/schemas"
)

// RunsDir is the folder of an output directory that holds trace files.
const RunsDir = "runs"

// AttemptFileName is the file name of attempt n of a run: <run_id>.jsonl for
// the first, <run_id>.attempt-N.jsonl after it.
func AttemptFileName(runID string, n int) string {
	if n <= 1 {
		return runID + ".jsonl"
	}
	return fmt.Sprintf("%s.attempt-%d.jsonl", runID, n)
}

// Writer appends the records of one attempt of one run to its own file.
// Every Write is on disk (fsynced) before it returns.
type Writer struct {
	f       *os.File
	path    string
	runID   string
	attempt int
}

// Create opens a new trace file for runID in dir (created if missing), as
// the next attempt after any already there. It never opens an existing file:
// an earlier attempt's records are never overwritten.
func Create(dir, runID string) (*Writer, error) {
	if runID == "" || filepath.Base(runID) != runID {
		return nil, fmt.Errorf("create trace: invalid run id %q", runID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create trace directory: %w", err)
	}
	for n := 1; n < 10000; n++ {
		path := filepath.Join(dir, AttemptFileName(runID, n))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create trace: %w", err)
		}
		if err := syncDir(dir); err != nil {
			f.Close()
			return nil, fmt.Errorf("create trace: %w", err)
		}
		return &Writer{f: f, path: path, runID: runID, attempt: n}, nil
	}
	return nil, fmt.Errorf("create trace: too many attempts of run %s", runID)
}

// Path returns the file being written.
func (w *Writer) Path() string { return w.path }

// Attempt returns the attempt number this writer records (1, 2, …).
func (w *Writer) Attempt() int { return w.attempt }

// Write appends one record and syncs it to disk before returning.
func (w *Writer) Write(rec schemas.Record) error {
	if id := rec.RunID(); id != w.runID {
		return fmt.Errorf("write trace record: run id %q in the trace of %q", id, w.runID)
	}
	line, err := schemas.EncodeRecord(rec)
	if err != nil {
		return fmt.Errorf("write trace record: %w", err)
	}
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("write trace record to %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync trace %s: %w", w.path, err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close trace %s: %w", w.path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
