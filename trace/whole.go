package trace

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// ReadWhole reads the file at path whole, as os.ReadFile does, into a
// buffer kept for the next call: the stages that hash a trace before
// decoding it (classify, and dedupe and export on classify's store) read
// every trace of a corpus once each, and a fresh buffer per file, zeroed
// and faulted in, cost about as much as the read itself on the machines
// measured (docs/performance.md). The bytes are valid until done is
// called, which gives the buffer back; nothing decoded from them keeps
// them (ReadRunBytes copies what it keeps).
//
// stamp is the file's stamp as it was before the read, when the file had
// not changed for a while before it (settled) and the bytes read are as
// many as it said; otherwise the zero Stamp. A stage that stores what it
// made of the bytes with the stamp lets a later one take it while the
// file's stamp stays the same, without reading the file.
func ReadWhole(path string) (data []byte, stamp Stamp, done func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Stamp{}, func() {}, err
	}
	defer f.Close()
	bp := wholeBuffers.Get().(*[]byte)
	b := (*bp)[:0]
	now := time.Now()
	if info, err := f.Stat(); err == nil {
		stamp = settled(stampOf(info), now)
		if int(info.Size()) >= cap(b) {
			// One byte more than the file, so that the read that finds
			// its end needs no room of its own.
			b = make([]byte, 0, info.Size()+512)
		}
	}
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			wholeBuffers.Put(bp)
			return nil, Stamp{}, func() {}, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since: more room
		}
	}
	if int64(len(b)) != stamp.Size {
		stamp = Stamp{} // it changed while it was read
	}
	return b, stamp, func() { *bp = b; wholeBuffers.Put(bp) }, nil
}

// wholeBuffers are ReadWhole's buffers, grown to the largest file each has
// read.
var wholeBuffers = sync.Pool{New: func() any { return new([]byte) }}
