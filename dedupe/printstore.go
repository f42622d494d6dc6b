package dedupe

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"

	"github.com/pyharness/pyharness/runpack"
	"github.com/pyharness/pyharness/trace"
)

// printsDir is the directory of a dataset that holds the fingerprints
// classify made of each run (runPrints), one pack file per classify.
const printsDir = "fingerprints"

// printsHeader opens every pack file. It names everything a fingerprint
// depends on: a pack made by a build that keys, confirms or shingles
// otherwise is not read (its runs are decoded again), never misread.
// Version 2 holds each run's group (GroupOf of its run_start) in the
// index; version 3's digests are of the confirm text (appendConfirmText),
// earlier versions' were of the key text; version 4's index holds the
// stamp of each trace (runpack.Source).
var printsHeader = fmt.Sprintf("pyharness.dedupe.prints/v4 %s %s bands=%d rows=%d shingle=%d\n", keyVersion, confirmVersion, Bands, Rows, ShingleSize)

// printsTrailer ends every pack file, after the offset, length and
// checksum of its index: a pack cut short has none and is not read.
const printsTrailer = "PRINTS1\n"

// A pack file is runpack's: the header, the entries (appendRunPrints of
// each run), the index (each run's label is its group), and the trailer.
var printsFormat = runpack.Format{Header: printsHeader, Trailer: printsTrailer}

// PrintsWriter writes the pack file of one classify: the fingerprints of
// the runs it read, each keyed by its trace file's size and content hash.
// It writes to a temporary name; Commit gives the pack its name.
type PrintsWriter struct{ w *runpack.Writer }

// NewPrintsWriter starts the pack file of classify batch n in the dataset
// dir, and removes what an earlier classify that did not commit left.
func NewPrintsWriter(dataset string, n int) (*PrintsWriter, error) {
	dir := filepath.Join(dataset, printsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write fingerprints: %w", err)
	}
	if tmps, err := filepath.Glob(filepath.Join(dir, "*.tmp")); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	w, err := runpack.Create(filepath.Join(dir, fmt.Sprintf("batch-%06d.bin", n)), printsFormat)
	if err != nil {
		return nil, fmt.Errorf("write fingerprints: %w", err)
	}
	return &PrintsWriter{w: w}, nil
}

// Add adds the entry (RunPrints) of the run read from f as src,
// whose group (GroupOf of its run_start) is group.
func (pw *PrintsWriter) Add(f trace.File, group string, src runpack.Source, entry []byte) error {
	if err := pw.w.Add(f, group, src, entry); err != nil {
		return fmt.Errorf("write fingerprints: %w", err)
	}
	return nil
}

// Commit writes the index and gives the pack its name.
func (pw *PrintsWriter) Commit() error {
	if err := pw.w.Commit(); err != nil {
		return fmt.Errorf("write fingerprints: %w", err)
	}
	return nil
}

// Abort drops the pack.
func (pw *PrintsWriter) Abort() { pw.w.Abort() }

// printStore reads the fingerprints classify stored in a dataset. It
// gives a run's only when its trace file is the one classify read (its
// stamp unchanged, or its bytes of the same size and xxhash64) and the
// entry's own checksum holds: a run added, grown or edited since, or an
// entry damaged, is decoded from its trace as if there were no store.
type printStore struct{ *runpack.Store }

// openPrints opens the fingerprints of the dataset dir. A dataset without
// them is an empty store; a pack that cannot be read is left out.
func openPrints(dataset string) (*printStore, error) {
	names, err := runpack.Glob(filepath.Join(dataset, printsDir), "batch-*.bin")
	if err == nil {
		var s *runpack.Store
		if s, err = runpack.Open(names, printsFormat); err == nil {
			return &printStore{s}, nil
		}
	}
	return nil, fmt.Errorf("open fingerprints: %w", err)
}

// group is the group the store holds for the run in f: the group of the
// run as classify read it, which its trace may no longer hold (lookup
// tells). It is safe on several goroutines at once.
func (s *printStore) group(f trace.File) (string, bool) { return s.Label(f) }

// lookup returns the fingerprints of the run in f, whose bytes are data,
// when the store holds them for exactly these bytes. It is safe on
// several goroutines at once.
func (s *printStore) lookup(f trace.File, data []byte) (*runPrints, bool) {
	return firstPrints(s.Entries(f, data))
}

// lookupByStamp returns the fingerprints of the run in f, whose stamp is
// now stamp, when the store holds them for the file as it was with this
// very stamp: without reading the trace. It is safe on several goroutines
// at once.
func (s *printStore) lookupByStamp(f trace.File, stamp trace.Stamp) (*runPrints, bool) {
	return firstPrints(s.EntriesByStamp(f, stamp))
}

// firstPrints reads the first of entries that reads whole.
func firstPrints(entries iter.Seq[[]byte]) (*runPrints, bool) {
	for b := range entries {
		if p, err := readRunPrints(b); err == nil {
			return p, true
		}
	}
	return nil, false
}
