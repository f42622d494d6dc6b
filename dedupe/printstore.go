package dedupe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/trace"
)

// printsDir is the directory of a dataset that holds the fingerprints
// classify made of each run (runPrints), one pack file per classify.
const printsDir = "fingerprints"

// printsHeader opens every pack file. It names everything a fingerprint
// depends on: a pack made by a build that keys or shingles otherwise is
// not read (its runs are decoded again), never misread. Version 2 holds
// each run's group (GroupOf) in the index; a version 1 pack (printsHeaderV1,
// the same length) is read without them.
var (
	printsHeader   = fmt.Sprintf("pyharness.dedupe.prints/v2 %s bands=%d rows=%d shingle=%d\n", keyVersion, Bands, Rows, ShingleSize)
	printsHeaderV1 = fmt.Sprintf("pyharness.dedupe.prints/v1 %s bands=%d rows=%d shingle=%d\n", keyVersion, Bands, Rows, ShingleSize)
)

// printsTrailer ends every pack file, after the offset, length and
// checksum of its index: a pack cut short has none and is not read.
const printsTrailer = "PRINTS1\n"

// A pack file is the header, the entries (appendRunPrints of each run),
// the index (per entry: run id, attempt, the trace file's size and xxhash64
// when it was read, the run's group, the entry's offset, length and
// xxhash64), then three
// little-endian uint64 (the index's offset, length and xxhash64) and the
// trailer.

// PrintsWriter writes the pack file of one classify: the fingerprints of
// the runs it read, each keyed by its trace file's size and content hash.
// It writes to a temporary name; Commit gives the pack its name.
type PrintsWriter struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	off   int64
	index []byte
	err   error
}

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
	path := filepath.Join(dir, fmt.Sprintf("batch-%06d.bin", n))
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, fmt.Errorf("write fingerprints: %w", err)
	}
	pw := &PrintsWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	pw.write([]byte(printsHeader))
	return pw, nil
}

func (pw *PrintsWriter) write(b []byte) {
	if pw.err != nil {
		return
	}
	_, pw.err = pw.w.Write(b)
	pw.off += int64(len(b))
}

// EncodeRunPrints fingerprints the turns of run and returns the entry Add
// takes: made on the worker that read the run, it leaves the writer only
// the copy.
func EncodeRunPrints(run *trace.RebuiltRun) []byte { return encodeRunPrints(run) }

// Add adds the entry (EncodeRunPrints) of the run read from f, whose
// bytes were size long with xxhash64 hash, and whose group (GroupOf of its
// run_start) is group.
func (pw *PrintsWriter) Add(f trace.File, group string, size int64, hash uint64, entry []byte) error {
	x := pw.index
	x = binary.AppendUvarint(x, uint64(len(f.RunID)))
	x = append(x, f.RunID...)
	x = binary.AppendUvarint(x, uint64(f.Attempt))
	x = binary.AppendUvarint(x, uint64(size))
	x = binary.LittleEndian.AppendUint64(x, hash)
	x = binary.AppendUvarint(x, uint64(len(group)))
	x = append(x, group...)
	x = binary.AppendUvarint(x, uint64(pw.off))
	x = binary.AppendUvarint(x, uint64(len(entry)))
	x = binary.LittleEndian.AppendUint64(x, xxhash.Sum64(entry))
	pw.index = x
	pw.write(entry)
	if pw.err != nil {
		return fmt.Errorf("write fingerprints: %w", pw.err)
	}
	return nil
}

// Commit writes the index and gives the pack its name.
func (pw *PrintsWriter) Commit() error {
	at := pw.off
	pw.write(pw.index)
	var t []byte
	t = binary.LittleEndian.AppendUint64(t, uint64(at))
	t = binary.LittleEndian.AppendUint64(t, uint64(len(pw.index)))
	t = binary.LittleEndian.AppendUint64(t, xxhash.Sum64(pw.index))
	pw.write(append(t, printsTrailer...))
	if pw.err == nil {
		pw.err = pw.w.Flush()
	}
	if err := pw.f.Close(); pw.err == nil {
		pw.err = err
	}
	if pw.err == nil {
		pw.err = os.Rename(pw.path+".tmp", pw.path)
	}
	if pw.err != nil {
		os.Remove(pw.path + ".tmp")
		return fmt.Errorf("write fingerprints: %w", pw.err)
	}
	return nil
}

// Abort drops the pack.
func (pw *PrintsWriter) Abort() {
	pw.f.Close()
	os.Remove(pw.path + ".tmp")
}

// printStore reads the fingerprints classify stored in a dataset. It
// gives a run's only when its trace file is byte for byte the one
// classify read (same size, same xxhash64, and the entry's own checksum
// holds): a run added, grown or edited since, or an entry damaged, is
// decoded from its trace as if there were no store.
type printStore struct {
	packs []*os.File
	runs  map[string][]printEntry
}

type printEntry struct {
	pack      int32
	attempt   int32
	size      int64
	hash      uint64
	off, n    int64
	entryHash uint64
	// group is the run's group, when grouped (a version 2 pack).
	group   string
	grouped bool
}

// openPrints opens the fingerprints of the dataset dir. A dataset without
// them is an empty store; a pack that cannot be read is left out.
func openPrints(dataset string) (*printStore, error) {
	s := &printStore{runs: map[string][]printEntry{}}
	names, err := filepath.Glob(filepath.Join(dataset, printsDir, "batch-*.bin"))
	if err != nil {
		return nil, fmt.Errorf("open fingerprints: %w", err)
	}
	for _, name := range names {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("open fingerprints: %w", err)
		}
		if !s.readIndex(f, int32(len(s.packs))) {
			f.Close()
			continue
		}
		s.packs = append(s.packs, f)
	}
	return s, nil
}

// readIndex reads the index of pack f into s, or nothing and false when
// the pack is not one this build reads whole.
func (s *printStore) readIndex(f *os.File, pack int32) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	tail := int64(24 + len(printsTrailer))
	if st.Size() < int64(len(printsHeader))+tail {
		return false
	}
	head := make([]byte, len(printsHeader))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != printsHeader && string(head) != printsHeaderV1 {
		return false
	}
	grouped := string(head) == printsHeader
	t := make([]byte, tail)
	if _, err := f.ReadAt(t, st.Size()-tail); err != nil || string(t[24:]) != printsTrailer {
		return false
	}
	at, n, sum := binary.LittleEndian.Uint64(t), binary.LittleEndian.Uint64(t[8:]), binary.LittleEndian.Uint64(t[16:])
	if at < uint64(len(printsHeader)) || n > uint64(st.Size()) || at+n != uint64(st.Size()-tail) {
		return false
	}
	x := make([]byte, n)
	if _, err := f.ReadAt(x, int64(at)); err != nil || xxhash.Sum64(x) != sum {
		return false
	}
	add := map[string][]printEntry{}
	r := printReader{b: x}
	for len(r.b) > 0 && !r.short {
		id := string(r.take(int(r.uvarint())))
		e := printEntry{pack: pack, attempt: int32(r.uvarint()), size: int64(r.uvarint()), hash: r.uint64(), grouped: grouped}
		if grouped {
			e.group = string(r.take(int(r.uvarint())))
		}
		e.off, e.n, e.entryHash = int64(r.uvarint()), int64(r.uvarint()), r.uint64()
		if e.off+e.n > int64(at) {
			return false
		}
		add[id] = append(add[id], e)
	}
	if r.short {
		return false
	}
	for id, es := range add {
		s.runs[id] = append(s.runs[id], es...)
	}
	return true
}

// len is the number of runs the store holds fingerprints of.
func (s *printStore) len() int { return len(s.runs) }

// group is the group the store holds for the run in f, when every entry
// of its run id and attempt has one and it is the same: the group of the
// run as classify read it, which its trace may no longer hold (lookup
// tells). It is safe on several goroutines at once.
func (s *printStore) group(f trace.File) (string, bool) {
	g, ok := "", false
	for _, e := range s.runs[f.RunID] {
		if int(e.attempt) != f.Attempt {
			continue
		}
		if !e.grouped || ok && e.group != g {
			return "", false
		}
		g, ok = e.group, true
	}
	return g, ok
}

// lookup returns the fingerprints of the run in f, whose bytes are data,
// when the store holds them for exactly these bytes. It is safe on
// several goroutines at once.
func (s *printStore) lookup(f trace.File, data []byte) (*runPrints, bool) {
	es := s.runs[f.RunID]
	if len(es) == 0 {
		return nil, false
	}
	hash := xxhash.Sum64(data)
	for _, e := range es {
		if int(e.attempt) != f.Attempt || e.size != int64(len(data)) || e.hash != hash {
			continue
		}
		b := make([]byte, e.n)
		if _, err := s.packs[e.pack].ReadAt(b, e.off); err != nil || xxhash.Sum64(b) != e.entryHash {
			continue
		}
		if p, err := readRunPrints(b); err == nil {
			return p, true
		}
	}
	return nil, false
}

// Close closes the pack files.
func (s *printStore) Close() error {
	var errs []error
	for _, f := range s.packs {
		errs = append(errs, f.Close())
	}
	s.packs = nil
	return errors.Join(errs...)
}
