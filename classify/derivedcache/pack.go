package derivedcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/internal/binfmt"
	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas/trace"
)

// format names a kind of pack: header opens every pack file and names
// everything its entries depend on, so that a pack made by a build that
// encodes them otherwise is not read, never misread; trailer ends it,
// after the index, so that a pack cut short is not read either.
type format struct {
	header, trailer string
}

// packTrailer ends every pack.
const packTrailer = "DERIVED1\n"

// formatOf is the format of d's packs.
func formatOf(d Deriver) format {
	return format{header: fmt.Sprintf("pyharness.derived/v1 %s %s\n", d.Name, d.Version), trailer: packTrailer}
}

// A pack file is the header, the entries, the index (per entry: run id,
// attempt, the trace file's size and xxhash64 when it was read, its
// stamp then (a byte, 1 when there is one, and the stamp's five fields),
// the run's group, the entry's offset, length and xxhash64), then three
// little-endian uint64 (the index's offset, length and xxhash64) and the
// trailer.

// source is the trace file an entry was made of, as it was read: the size
// and xxhash64 of its bytes, and its stamp then (wholefile.Read; the zero
// Stamp when it had changed too recently to be trusted).
type source struct {
	Size  int64
	Hash  uint64
	Stamp wholefile.Stamp
}

// sourceOf is the source of an entry made of data, read with stamp.
func sourceOf(data []byte, stamp wholefile.Stamp) source {
	return source{Size: int64(len(data)), Hash: xxhash.Sum64(data), Stamp: stamp}
}

// packWriter writes one pack file to a temporary name; commit gives it its
// name.
type packWriter struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	off   int64
	index []byte
	err   error
	// trailer is the format's, written by Commit.
	trailer string
}

// createPack starts the pack file path of format ft. A reader never sees
// it before commit.
func createPack(path string, ft format) (*packWriter, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	pw := &packWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	pw.write([]byte(ft.header))
	pw.trailer = ft.trailer
	return pw, nil
}

func (pw *packWriter) write(b []byte) {
	if pw.err != nil {
		return
	}
	_, pw.err = pw.w.Write(b)
	pw.off += int64(len(b))
}

// add adds the entry of the run read from f as src. group is kept in the
// index, where a reader finds it without reading the entry or the trace
// (Store.Group).
func (pw *packWriter) add(f trace.File, group string, src source, entry []byte) error {
	x := pw.index
	x = binary.AppendUvarint(x, uint64(len(f.RunID)))
	x = append(x, f.RunID...)
	x = binary.AppendUvarint(x, uint64(f.Attempt))
	x = binary.AppendUvarint(x, uint64(src.Size))
	x = binary.LittleEndian.AppendUint64(x, src.Hash)
	x = appendStamp(x, src.Stamp)
	x = binary.AppendUvarint(x, uint64(len(group)))
	x = append(x, group...)
	x = binary.AppendUvarint(x, uint64(pw.off))
	x = binary.AppendUvarint(x, uint64(len(entry)))
	x = binary.LittleEndian.AppendUint64(x, xxhash.Sum64(entry))
	pw.index = x
	pw.write(entry)
	return pw.err
}

// commit writes the index and gives the pack its name.
func (pw *packWriter) commit() error {
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

// abort drops the pack.
func (pw *packWriter) abort() {
	pw.f.Close()
	os.Remove(pw.path + ".tmp")
}

// appendStamp appends st to the index: a zero byte for the zero Stamp,
// else a one and its fields.
func appendStamp(x []byte, st wholefile.Stamp) []byte {
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
func readStamp(r *binfmt.Reader) wholefile.Stamp {
	if r.Byte() == 0 {
		return wholefile.Stamp{}
	}
	return wholefile.Stamp{Size: int64(r.Uvarint()), Mtime: r.Varint(), Ctime: r.Varint(), Ino: r.Uvarint(), Dev: r.Uvarint()}
}

// Store reads the entries one deriver made, from every pack of its in a
// dataset. It gives a run's entry only when its trace file is the one the
// entry was made of, and the entry's own checksum holds: a run added,
// grown or edited since, or an entry damaged, has none. A trace is the
// one read when its bytes have the same size and xxhash64 (entries), or,
// unread, when its stamp is the one it had then (entriesByStamp).
type Store struct {
	packs []*os.File
	runs  map[string][]entry
}

type entry struct {
	pack      int32
	attempt   int32
	size      int64
	hash      uint64
	stamp     wholefile.Stamp
	group     string
	off, n    int64
	entryHash uint64
}

// openPacks opens the pack files named, those of format ft. A file that is
// gone is skipped, and so is one that is not a whole pack of ft (another
// build's, or cut short): its runs have no entries.
func openPacks(names []string, ft format) (*Store, error) {
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

// readIndex reads the index of pack f into s, or nothing and false when
// the pack is not one of ft this build reads whole.
func (s *Store) readIndex(f *os.File, pack int32, ft format) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	tail := int64(24 + len(ft.trailer))
	if st.Size() < int64(len(ft.header))+tail {
		return false
	}
	head := make([]byte, len(ft.header))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != ft.header {
		return false
	}
	t := make([]byte, tail)
	if _, err := f.ReadAt(t, st.Size()-tail); err != nil || string(t[24:]) != ft.trailer {
		return false
	}
	at, n, sum := binary.LittleEndian.Uint64(t), binary.LittleEndian.Uint64(t[8:]), binary.LittleEndian.Uint64(t[16:])
	if at < uint64(len(ft.header)) || n > uint64(st.Size()) || at+n != uint64(st.Size()-tail) {
		return false
	}
	x := make([]byte, n)
	if _, err := f.ReadAt(x, int64(at)); err != nil || xxhash.Sum64(x) != sum {
		return false
	}
	add := map[string][]entry{}
	r := binfmt.NewReader(x)
	for r.Len() > 0 && !r.Short() {
		id := string(r.Bytes(int(r.Uvarint())))
		e := entry{pack: pack, attempt: int32(r.Uvarint()), size: int64(r.Uvarint()), hash: r.Uint64()}
		e.stamp = readStamp(r)
		e.group = string(r.Bytes(int(r.Uvarint())))
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

// Len is the number of runs the store holds entries of; a nil Store
// holds none.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return len(s.runs)
}

// has reports whether the store holds an entry of f's run id at all: a
// run it does not is not worth hashing.
func (s *Store) has(f trace.File) bool { return s != nil && len(s.runs[f.RunID]) > 0 }

// storedGroup is the group (trace.GroupOf) the store holds for the run in f,
// when every entry of its run id and attempt has the same: the group of
// the run when classify read it, which its trace may no longer have
// (Lookup.Load tells). It is safe on several goroutines at once.
func (s *Store) storedGroup(f trace.File) (string, bool) {
	g, ok := "", false
	for _, e := range s.runs[f.RunID] {
		if int(e.attempt) != f.Attempt {
			continue
		}
		if ok && e.group != g {
			return "", false
		}
		g, ok = e.group, true
	}
	return g, ok
}

// entries yields the entries of the run in f, whose bytes are data, made
// of exactly these bytes and whose checksum holds, the oldest pack's
// first. It is safe on several goroutines at once.
func (s *Store) entries(f trace.File, data []byte) iter.Seq[[]byte] {
	if len(s.runs[f.RunID]) == 0 {
		return func(func([]byte) bool) {}
	}
	hash := xxhash.Sum64(data)
	return s.matching(f, func(e *entry) bool { return e.size == int64(len(data)) && e.hash == hash })
}

// entriesByStamp yields the entries of the run in f, whose stamp is now
// stamp, made of the file when it had this very stamp, and whose checksum
// holds, the oldest pack's first: those of a trace unchanged since, which
// it need not read. The zero Stamp has none. It is safe on several
// goroutines at once.
func (s *Store) entriesByStamp(f trace.File, stamp wholefile.Stamp) iter.Seq[[]byte] {
	return s.matching(f, func(e *entry) bool { return !stamp.IsZero() && e.stamp == stamp })
}

// matching yields the entries of the run in f that match says are of its
// trace and whose checksum holds.
func (s *Store) matching(f trace.File, match func(*entry) bool) iter.Seq[[]byte] {
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
	if s == nil {
		return nil
	}
	var errs []error
	for _, f := range s.packs {
		errs = append(errs, f.Close())
	}
	s.packs = nil
	return errors.Join(errs...)
}
