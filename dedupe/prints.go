package dedupe

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pyharness/pyharness/internal/binfmt"
	"github.com/pyharness/pyharness/schemas/trace"
)

// runPrints is all dedupe needs of one run: whether it worked, and for
// every turn whether it is a pair, its time, and the fingerprint of a
// pair. classify makes it while it has the run decoded and stores it in
// the dataset (package derivedcache), so that dedupe takes it from there instead
// of decoding the trace again (Deriver).
type runPrints struct {
	Worked bool
	Turns  []turnPrint
}

// turnPrint is what dedupe needs of one turn.
type turnPrint struct {
	What turnWhat
	// Time is the turn's moment (trace.RebuiltRun.Time).
	Time int64
	// Print is a pair's fingerprint, its KeyText the SHA-256 of the
	// confirm text (confirmDigest): what equal keys are confirmed by,
	// without the text.
	Print Fingerprint
}

// turnWhat says whether a turn is a pair, or why not.
type turnWhat uint8

const (
	turnNoModel    turnWhat = iota // settled without the model: no draft
	turnNotRebuilt                 // its prompt did not rebuild to its prompt_hash
	turnPair
)

// makeRunPrints fingerprints every model turn of run whose prompt was
// rebuilt, confirming keys by digest (confirmDigest).
func makeRunPrints(run *trace.RebuiltRun) *runPrints {
	p := &runPrints{Worked: run.Worked(), Turns: make([]turnPrint, len(run.Turns))}
	var f Fingerprinter
	for i, t := range run.Turns {
		tp := &p.Turns[i]
		tp.What, tp.Time = turnWhatOf(run, i), run.Time(i)
		if tp.What == turnPair {
			tp.Print = f.MakeConfirmed(run.Prompts[i], t.Reply)
		}
	}
	return p
}

// turnWhatOf says whether turn i of run is a pair, or why not.
func turnWhatOf(run *trace.RebuiltRun, i int) turnWhat {
	switch {
	case !run.Turns[i].ModelStep:
		return turnNoModel
	case run.Prompts[i] == nil:
		return turnNotRebuilt
	}
	return turnPair
}

// confirmDigest is what equal keys are confirmed by when the text is not
// kept: the SHA-256 of the pair's confirm text (appendConfirmText), made
// from its key text (appendKeyText's, which it must be) by moving the
// number of messages from the head to the end. Two different texts with
// the same 64-bit key and the same SHA-256 are not known to exist.
func confirmDigest(keyText []byte) []byte {
	head := 4 + len(keyVersion) // the version's field
	h := sha256.New()
	h.Write(appendField(nil, confirmVersion, nil))
	h.Write(keyText[head+4:])
	h.Write(keyText[head : head+4])
	return h.Sum(nil)
}

// appendRunPrints appends the binary form of p that readRunPrints reads:
// varints and fixed-size little-endian words, no field names.
func appendRunPrints(dst []byte, p *runPrints) []byte {
	dst = appendRunHead(dst, p.Worked, len(p.Turns))
	for i := range p.Turns {
		dst = appendTurnPrint(dst, &p.Turns[i])
	}
	return dst
}

func appendRunHead(dst []byte, worked bool, turns int) []byte {
	w := byte(0)
	if worked {
		w = 1
	}
	dst = append(dst, w)
	return binary.AppendUvarint(dst, uint64(turns))
}

func appendTurnPrint(dst []byte, t *turnPrint) []byte {
	dst = append(dst, byte(t.What))
	dst = binary.AppendVarint(dst, t.Time)
	if t.What != turnPair {
		return dst
	}
	return AppendFingerprint(dst, &t.Print)
}

// AppendFingerprint appends a fingerprint whose KeyText is the digest
// (MakeConfirmed) as a store keeps it: the key, the digest, the band
// hashes and the shingles, in fixed-size little-endian words.
// ReadFingerprint reads it.
func AppendFingerprint(dst []byte, fp *Fingerprint) []byte {
	dst = slices.Grow(dst, 8+len(fp.KeyText)+4*Bands+binary.MaxVarintLen64+8*len(fp.Shingles))
	dst = binary.LittleEndian.AppendUint64(dst, fp.Key)
	dst = append(dst, fp.KeyText...) // sha256.Size bytes
	for _, b := range fp.Bands {
		dst = binary.LittleEndian.AppendUint32(dst, b)
	}
	dst = binary.AppendUvarint(dst, uint64(len(fp.Shingles)))
	for _, s := range fp.Shingles {
		dst = binary.LittleEndian.AppendUint64(dst, s)
	}
	return dst
}

// ReadFingerprint reads what AppendFingerprint wrote. A shingle count
// larger than the bytes left is an error; any other shortage the reader
// remembers (binfmt.Reader.Short).
func ReadFingerprint(r *binfmt.Reader) (Fingerprint, error) {
	var fp Fingerprint
	fp.Key = r.Uint64()
	fp.KeyText = r.Bytes(sha256.Size)
	for k := range fp.Bands {
		fp.Bands[k] = r.Uint32()
	}
	ns := r.Uvarint()
	if ns > uint64(r.Len()/8) {
		return fp, errShortPrints
	}
	fp.Shingles = make([]uint64, ns)
	for k := range fp.Shingles {
		fp.Shingles[k] = r.Uint64()
	}
	return fp, nil
}

// encodeRunPrints is appendRunPrints(nil, makeRunPrints(run)) written as
// each turn is fingerprinted: no turn's shingles or digest outlive it.
func encodeRunPrints(run *trace.RebuiltRun) []byte {
	entry, _, release := runPrintsEntry(run)
	release()
	return entry
}

// runPrintsEntry fingerprints the turns of run and returns its entry,
// and lends the caller the Fingerprinter the entry was made with until
// release (PrintsOf).
func runPrintsEntry(run *trace.RebuiltRun) (entry []byte, f *Fingerprinter, release func()) {
	f = fingerprinters.Get().(*Fingerprinter)
	dst := appendRunHead(f.entry[:0], run.Worked(), len(run.Turns))
	var tp turnPrint
	var digest [sha256.Size]byte
	for i, t := range run.Turns {
		tp.What, tp.Time = turnWhatOf(run, i), run.Time(i)
		if tp.What == turnPair {
			tp.Print.Key, tp.Print.KeyText = f.confirmedKey(digest[:0], run.Prompts[i], t.Reply)
			tp.Print.Bands = f.nearPrint(run.Prompts[i], t.Reply)
			tp.Print.Shingles = f.shingles
		}
		dst = appendTurnPrint(dst, &tp)
	}
	// Built in the kept buffer and copied once: grown from nothing, the
	// entry (kilobytes a turn) was copied about as often as it doubled.
	f.entry = dst
	return bytes.Clone(dst), f, func() {
		f.reset()
		fingerprinters.Put(f)
	}
}

// PairPrintBytes returns the bytes of every pair's fingerprint in a run's
// entry (PrintsOf), by turn, in AppendFingerprint's form (the entry's own
// bytes, not copies), nil for a turn that is no pair: an export's training
// text is most turns' pair text, and export's deriver copies these rather
// than fingerprint the same text twice.
func PairPrintBytes(entry []byte) ([][]byte, error) {
	r := binfmt.NewReader(entry)
	r.Byte()
	n := r.Uvarint()
	if n > uint64(len(entry)) {
		return nil, errShortPrints
	}
	out := make([][]byte, n)
	for i := range out {
		what := turnWhat(r.Byte())
		r.Varint()
		switch what {
		case turnNoModel, turnNotRebuilt:
			continue
		case turnPair:
		default:
			return nil, fmt.Errorf("fingerprints: turn %d: unknown kind %d", i, what)
		}
		rest := r.Len()
		r.Bytes(8 + sha256.Size + 4*Bands)
		ns := r.Uvarint()
		if ns > uint64(r.Len()/8) {
			return nil, errShortPrints
		}
		r.Bytes(8 * int(ns))
		start := len(entry) - rest
		out[i] = entry[start : start+rest-r.Len() : start+rest-r.Len()]
	}
	if r.Short() {
		return nil, errShortPrints
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("fingerprints: %d bytes after the last turn", r.Len())
	}
	return out, nil
}

// fingerprinters keeps Fingerprinters, with their buffers, from one run
// to the next. Each starts with the largest arena (normalOf), which it
// keeps: a collection empties the pool, and an arena grown from 4 KiB
// again after each cost more allocations than it saved.
var fingerprinters = sync.Pool{New: func() any { return &Fingerprinter{arena: make([]byte, 0, maxArena)} }}

var errShortPrints = errors.New("fingerprints cut short")

// readRunPrints reads what appendRunPrints wrote. It checks every length
// against the bytes there are, so that a damaged entry is an error, never
// a wrong fingerprint taken for a right one (the store checks a checksum
// first).
func readRunPrints(b []byte) (*runPrints, error) {
	r := binfmt.NewReader(b)
	p := &runPrints{Worked: r.Byte() == 1}
	n := r.Uvarint()
	if n > uint64(len(b)) {
		return nil, errShortPrints
	}
	p.Turns = make([]turnPrint, n)
	for i := range p.Turns {
		t := &p.Turns[i]
		t.What = turnWhat(r.Byte())
		t.Time = r.Varint()
		switch t.What {
		case turnNoModel, turnNotRebuilt:
			continue
		case turnPair:
		default:
			return nil, fmt.Errorf("fingerprints: turn %d: unknown kind %d", i, t.What)
		}
		var err error
		if t.Print, err = ReadFingerprint(r); err != nil {
			return nil, err
		}
	}
	if r.Short() {
		return nil, errShortPrints
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("fingerprints: %d bytes after the last turn", r.Len())
	}
	return p, nil
}
