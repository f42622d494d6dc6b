package export

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/pyharness/pyharness/dedupe"
)

// pairSpill keeps the SFT pairs chosen by the dedupe index in a temporary
// file until they are written, so that an export's memory does not grow
// with the number of pairs: 28 bytes a pair on disk, none in memory.
type pairSpill struct {
	f   *os.File
	w   *bufio.Writer
	n   int
	rec [spillRecord]byte
}

// spillRecord is the size of one pair on disk: run, turn, group (int32),
// key (uint64), multiplicity and cluster turns (int32).
const spillRecord = 4 + 4 + 4 + 8 + 4 + 4

func newPairSpill() (*pairSpill, error) {
	f, err := os.CreateTemp("", "pyharness-export-pairs-*")
	if err != nil {
		return nil, fmt.Errorf("export: create the pairs spill file: %w", err)
	}
	return &pairSpill{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends a pair of the group numbered group (r.group is not kept).
func (s *pairSpill) add(r pairRow, group int) error {
	b := s.rec[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(r.ref.Run))
	b = binary.LittleEndian.AppendUint32(b, uint32(r.ref.Turn))
	b = binary.LittleEndian.AppendUint32(b, uint32(group))
	b = binary.LittleEndian.AppendUint64(b, r.key)
	b = binary.LittleEndian.AppendUint32(b, uint32(r.mult))
	b = binary.LittleEndian.AppendUint32(b, uint32(r.cluster))
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("export: write the pairs spill file: %w", err)
	}
	s.n++
	return nil
}

// rows reads every pair back, in the order they were added; names names
// the group numbers given to add. The pair yielded is reused.
func (s *pairSpill) rows(names []string) iter.Seq2[*pairRow, error] {
	return func(yield func(*pairRow, error) bool) {
		if err := s.w.Flush(); err != nil {
			yield(nil, fmt.Errorf("export: write the pairs spill file: %w", err))
			return
		}
		r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, int64(s.n)*spillRecord), 64<<10)
		var row pairRow
		for range s.n {
			if _, err := io.ReadFull(r, s.rec[:]); err != nil {
				yield(nil, fmt.Errorf("export: read the pairs spill file back: %w", err))
				return
			}
			b := s.rec[:]
			g := int(binary.LittleEndian.Uint32(b[8:]))
			row = pairRow{
				ref:     dedupe.Ref{Run: int32(binary.LittleEndian.Uint32(b[0:])), Turn: int32(binary.LittleEndian.Uint32(b[4:]))},
				group:   names[g],
				gnum:    int32(g),
				key:     binary.LittleEndian.Uint64(b[12:]),
				mult:    int(int32(binary.LittleEndian.Uint32(b[20:]))),
				cluster: int(int32(binary.LittleEndian.Uint32(b[24:]))),
			}
			if !yield(&row, nil) {
				return
			}
		}
	}
}

// remove closes and deletes the spill file.
func (s *pairSpill) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}
