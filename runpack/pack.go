package runpack

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/trace"
)

// Format names a kind of pack: Header opens every pack file and names
// everything its entries depend on, so that a pack made by a build that
// encodes them otherwise is not read, never misread; Trailer ends it,
// after the index, so that a pack cut short is not read either.
type Format struct {
	Header, Trailer string
}

// A pack file is the header, the entries, the index (per entry: run id,
// attempt, the trace file's size and xxhash64 when it was read, its
// stamp then (a byte, 1 when there is one, and the stamp's five fields),
// the run's label, the entry's offset, length and xxhash64), then three
// little-endian uint64 (the index's offset, length and xxhash64) and the
// trailer.

// Source is the trace file an entry was made of, as it was read: the size
// and xxhash64 of its bytes, and its stamp then (trace.ReadWhole; the zero
// Stamp when it had changed too recently to be trusted).
type Source struct {
	Size  int64
	Hash  uint64
	Stamp trace.Stamp
}

// SourceOf is the source of an entry made of data, read with stamp.
func SourceOf(data []byte, stamp trace.Stamp) Source {
	return Source{Size: int64(len(data)), Hash: xxhash.Sum64(data), Stamp: stamp}
}

// Writer writes one pack file to a temporary name; Commit gives it its
// name.
type Writer struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	off   int64
	index []byte
	err   error
	// trailer is the format's, written by Commit.
	trailer string
}

// Create starts the pack file path of format ft. A reader never sees it
// before Commit.
func Create(path string, ft Format) (*Writer, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	pw := &Writer{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	pw.write([]byte(ft.Header))
	pw.trailer = ft.Trailer
	return pw, nil
}

func (pw *Writer) write(b []byte) {
	if pw.err != nil {
		return
	}
	_, pw.err = pw.w.Write(b)
	pw.off += int64(len(b))
}

// Add adds the entry of the run read from f as src. label is kept in the
// index, where a reader finds it without reading the entry or the trace
// (Store.Label); it may be empty.
func (pw *Writer) Add(f trace.File, label string, src Source, entry []byte) error {
	x := pw.index
	x = binary.AppendUvarint(x, uint64(len(f.RunID)))
	x = append(x, f.RunID...)
	x = binary.AppendUvarint(x, uint64(f.Attempt))
	x = binary.AppendUvarint(x, uint64(src.Size))
	x = binary.LittleEndian.AppendUint64(x, src.Hash)
	x = appendStamp(x, src.Stamp)
	x = binary.AppendUvarint(x, uint64(len(label)))
	x = append(x, label...)
	x = binary.AppendUvarint(x, uint64(pw.off))
	x = binary.AppendUvarint(x, uint64(len(entry)))
	x = binary.LittleEndian.AppendUint64(x, xxhash.Sum64(entry))
	pw.index = x
	pw.write(entry)
	return pw.err
}

// Commit writes the index and gives the pack its name.
func (pw *Writer) Commit() error {
	at := pw.off
	pw.write(pw.index)
	var t []byte
	t = binary.LittleEndian.AppendUint64(t, uint64(at))
	t = binary.LittleEndian.AppendUint64(t, uint64(len(pw.index)))
	t = binary.LittleEndian.AppendUint64(t, xxhash.Sum64(pw.index))
	pw.write(append(t, pw.trailer...))
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
		return pw.err
	}
	return nil
}

// Abort drops the pack.
func (pw *Writer) Abort() {
	pw.f.Close()
	os.Remove(pw.path + ".tmp")
}

// appendStamp appends st to the index: a zero byte for the zero Stamp,
// else a one and its fields.
func appendStamp(x []byte, st trace.Stamp) []byte {
	if st.IsZero() {
		return append(x, 0)
	}
	x = append(x, 1)
	x = binary.AppendUvarint(x, uint64(st.Size))
	x = binary.AppendVarint(x, st.Mtime)
	x = binary.AppendVarint(x, st.Ctime)
	x = binary.AppendUvarint(x, st.Ino)
	return binary.AppendUvarint(x, st.Dev)
}

// readStamp reads what appendStamp wrote.
func readStamp(r *Reader) trace.Stamp {
	if r.Byte() == 0 {
		return trace.Stamp{}
	}
	return trace.Stamp{Size: int64(r.Uvarint()), Mtime: r.Varint(), Ctime: r.Varint(), Ino: r.Uvarint(), Dev: r.Uvarint()}
}

// Store reads the pack files of one format. It gives a run's entry only
// when its trace file is the one the entry was made of, and the entry's
// own checksum holds: a run added, grown or edited since, or an entry
// damaged, has none. A trace is the one read when its bytes have the same
// size and xxhash64 (Entries), or, unread, when its stamp is the one it
// had then (EntriesByStamp).
type Store struct {
	packs []*os.File
	runs  map[string][]entry
}

type entry struct {
	pack      int32
	attempt   int32
	size      int64
	hash      uint64
	stamp     trace.Stamp
	label     string
	off, n    int64
	entryHash uint64
}

// Open opens the pack files named, those of format ft. A file that is
// gone is skipped, and so is one that is not a whole pack of ft (another
// build's, or cut short): its runs have no entries.
func Open(names []string, ft Format) (*Store, error) {
	s := &Store{runs: map[string][]entry{}}
	for _, name := range names {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		if !s.readIndex(f, int32(len(s.packs)), ft) {
			f.Close()
			continue
		}
		s.packs = append(s.packs, f)
	}
	return s, nil
}

// Glob lists the pack files of dir whose names match pattern, in name
// order.
func Glob(dir, pattern string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	return names, nil
}

// readIndex reads the index of pack f into s, or nothing and false when
// the pack is not one of ft this build reads whole.
func (s *Store) readIndex(f *os.File, pack int32, ft Format) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	tail := int64(24 + len(ft.Trailer))
	if st.Size() < int64(len(ft.Header))+tail {
		return false
	}
	head := make([]byte, len(ft.Header))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != ft.Header {
		return false
	}
	t := make([]byte, tail)
	if _, err := f.ReadAt(t, st.Size()-tail); err != nil || string(t[24:]) != ft.Trailer {
		return false
	}
	at, n, sum := binary.LittleEndian.Uint64(t), binary.LittleEndian.Uint64(t[8:]), binary.LittleEndian.Uint64(t[16:])
	if at < uint64(len(ft.Header)) || n > uint64(st.Size()) || at+n != uint64(st.Size()-tail) {
		return false
	}
	x := make([]byte, n)
	if _, err := f.ReadAt(x, int64(at)); err != nil || xxhash.Sum64(x) != sum {
		return false
	}
	add := map[string][]entry{}
	r := NewReader(x)
	for r.Len() > 0 && !r.Short() {
		id := string(r.Bytes(int(r.Uvarint())))
		e := entry{pack: pack, attempt: int32(r.Uvarint()), size: int64(r.Uvarint()), hash: r.Uint64()}
		e.stamp = readStamp(r)
		e.label = string(r.Bytes(int(r.Uvarint())))
		e.off, e.n, e.entryHash = int64(r.Uvarint()), int64(r.Uvarint()), r.Uint64()
		if e.off+e.n > int64(at) {
			return false
		}
		add[id] = append(add[id], e)
	}
	if r.Short() {
		return false
	}
	for id, es := range add {
		s.runs[id] = append(s.runs[id], es...)
	}
	return true
}

// Len is the number of runs the store holds entries of.
func (s *Store) Len() int { return len(s.runs) }

// Has reports whether the store holds an entry of f's run id at all: a
// run it does not is not worth hashing.
func (s *Store) Has(f trace.File) bool { return len(s.runs[f.RunID]) > 0 }

// Label is the label the store holds for the run in f, when every entry
// of its run id and attempt has the same: the label given when the run
// was read, which its trace may no longer hold (Entries tells). It is
// safe on several goroutines at once.
func (s *Store) Label(f trace.File) (string, bool) {
	l, ok := "", false
	for _, e := range s.runs[f.RunID] {
		if int(e.attempt) != f.Attempt {
			continue
		}
		if ok && e.label != l {
			return "", false
		}
		l, ok = e.label, true
	}
	return l, ok
}

// Entries yields the entries of the run in f, whose bytes are data, made
// of exactly these bytes and whose checksum holds, the oldest pack's
// first. It is safe on several goroutines at once.
func (s *Store) Entries(f trace.File, data []byte) iter.Seq[[]byte] {
	if len(s.runs[f.RunID]) == 0 {
		return func(func([]byte) bool) {}
	}
	hash := xxhash.Sum64(data)
	return s.entries(f, func(e *entry) bool { return e.size == int64(len(data)) && e.hash == hash })
}

// EntriesByStamp yields the entries of the run in f, whose stamp is now
// stamp, made of the file when it had this very stamp, and whose checksum
// holds, the oldest pack's first: those of a trace unchanged since, which
// it need not read. The zero Stamp has none. It is safe on several
// goroutines at once.
func (s *Store) EntriesByStamp(f trace.File, stamp trace.Stamp) iter.Seq[[]byte] {
	return s.entries(f, func(e *entry) bool { return !stamp.IsZero() && e.stamp == stamp })
}

// entries yields the entries of the run in f that match says are of its
// trace and whose checksum holds.
func (s *Store) entries(f trace.File, match func(*entry) bool) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		es := s.runs[f.RunID]
		for i := range es {
			e := &es[i]
			if int(e.attempt) != f.Attempt || !match(e) {
				continue
			}
			b := make([]byte, e.n)
			if _, err := s.packs[e.pack].ReadAt(b, e.off); err != nil || xxhash.Sum64(b) != e.entryHash {
				continue
			}
			if !yield(b) {
				return
			}
		}
	}
}

// Close closes the pack files.
func (s *Store) Close() error {
	var errs []error
	for _, f := range s.packs {
		errs = append(errs, f.Close())
	}
	s.packs = nil
	return errors.Join(errs...)
}
