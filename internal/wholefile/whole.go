package wholefile

import (
	"sync"
)

// Read reads the file at path whole, as os.ReadFile does, into a buffer
// kept for the next call: a pass over a corpus reads every trace once, and
// a fresh buffer per file, zeroed and faulted in, costs about as much as
// the read. The bytes are valid until done is called, which gives the
// buffer back.
//
// stamp is the file's stamp as it was before the read, when the file had
// settled (SettleTime) and the bytes read are as many as it said;
// otherwise the zero Stamp.
func Read(path string) (data []byte, stamp Stamp, done func(), err error) {
	bp := wholeBuffers.Get().(*[]byte)
	b, stamp, err := readWhole(path, (*bp)[:0])
	if err != nil {
		wholeBuffers.Put(bp)
		return nil, Stamp{}, func() {}, err
	}
	if int64(len(b)) != stamp.Size {
		stamp = Stamp{} // it changed while it was read
	}
	return b, stamp, func() { *bp = b; wholeBuffers.Put(bp) }, nil
}

// wholeBuffers are Read's buffers, grown to the largest file each has
// read.
var wholeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// room returns b, or a buffer of its length with room for size bytes
// more and one: the read that finds the end of a file of size bytes then
// needs no room of its own.
func room(b []byte, size int64) []byte {
	if int64(cap(b)-len(b)) > size {
		return b
	}
	return append(make([]byte, 0, int64(len(b))+size+512), b...)
}
