package dedupe

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"slices"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/schemas"
)

// Fingerprint is what the index keys a turn by: its exact key text and
// key, and the shingles and band hashes of its near text. Making it (the
// normalising, hashing and MinHash signature) is most of what a turn
// costs the index, and needs nothing of the index or of other turns.
type Fingerprint struct {
	KeyText []byte
	Key     uint64
	// Shingles are the sorted, distinct shingles of the near text, and
	// Bands its band hashes folded to the 32 bits the band table keys.
	Shingles []uint64
	Bands    [Bands]uint32
}

// Fingerprinter makes the fingerprints of the turns of one run. A turn's
// prompt repeats the messages of the turn before it, and its last message
// and its draft are in the next turn's prompt, so normalising every
// message of every prompt normalised each text about as many times as the
// run had turns after it. A Fingerprinter normalises each text once and
// copies it after. It keeps every text's normal form: use one per run, in
// one goroutine (or reset it between runs).
type Fingerprinter struct {
	// normal holds the normal form of every text seen, by its content;
	// byData the same by where the string's bytes are, which finds the
	// texts a run's prompts share (trace.Rebuild appends to one
	// conversation) without hashing kilobytes per lookup.
	normal map[string][]byte
	byData map[textAt][]byte
	// arena holds the normal forms, so that each is not a slice of its
	// own grown from nothing.
	arena []byte

	// Buffers kept from one turn to the next.
	sh       shingler
	near     []byte
	shingles []uint64
	key      keyHasher
	entry    []byte // encodeRunPrints's
}

// textAt names a string by its bytes' address and length: strings do not
// change, and the map holding the address keeps the bytes alive.
type textAt struct {
	p *byte
	n int
}

// reset forgets the texts of the run before, keeping the buffers.
func (f *Fingerprinter) reset() {
	clear(f.normal)
	clear(f.byData)
	f.arena = f.arena[:0] // nothing made of the last run points into it
}

// Make makes the fingerprint of a pair: of AppendKeyText and
// AppendNearText of prompt and draft.
func (f *Fingerprinter) Make(prompt []schemas.Message, draft schemas.Reply) Fingerprint {
	var fp Fingerprint
	fp.KeyText = appendKeyText(nil, prompt, draft, f.appendNormal)
	fp.Key = Key(fp.KeyText)
	fp.Bands = f.nearPrint(prompt, draft)
	fp.Shingles = slices.Clone(f.shingles)
	return fp
}

// MakeConfirmed is Make with KeyText the SHA-256 of the key text
// (confirmDigest), the key text hashed piece by piece instead of laid out:
// it is the whole prompt, a copy of kilobytes per turn that only the
// hashes read. It is the fingerprint a store keeps, and an index given it
// confirms equal keys by digest (Digests).
func (f *Fingerprinter) MakeConfirmed(prompt []schemas.Message, draft schemas.Reply) Fingerprint {
	var fp Fingerprint
	fp.Key, fp.KeyText = f.confirmedKey(nil, prompt, draft)
	fp.Bands = f.nearPrint(prompt, draft)
	fp.Shingles = slices.Clone(f.shingles)
	return fp
}

// confirmedKey returns the exact key of the pair and appends the SHA-256
// of its key text to digest.
func (f *Fingerprinter) confirmedKey(digest []byte, prompt []schemas.Message, draft schemas.Reply) (uint64, []byte) {
	k := &f.key
	k.xx.Reset()
	if k.sha == nil {
		k.sha = sha256.New()
	}
	k.sha.Reset()
	k.n = 0
	k.fieldString(keyVersion)
	k.write(binary.LittleEndian.AppendUint32(k.word[:0], uint32(len(prompt))))
	for _, m := range prompt {
		k.fieldString(m.Role)
		k.field(f.normalOf(m.Content))
		k.calls = appendCallText(k.calls[:0], m.ToolCalls)
		k.field(k.calls)
	}
	k.field(f.normalOf(draft.Content))
	k.calls = appendCallText(k.calls[:0], draft.ToolCalls)
	k.field(k.calls)
	k.flush()
	return k.xx.Sum64(), k.sha.Sum(digest)
}

// nearPrint makes the shingles of the pair's near text, in f.shingles
// until the next call, and returns their band hashes; a near text
// fingerprinted a moment ago (recentNears) is copied.
func (f *Fingerprinter) nearPrint(prompt []schemas.Message, draft schemas.Reply) (bands [Bands]uint32) {
	f.near = appendNearText(f.near[:0], prompt, draft, f.appendNormal)
	h := nearHash(f.near)
	var ok bool
	if f.shingles, bands, ok = recentNears.lookup(f.near, h, f.shingles[:0]); ok {
		return bands
	}
	f.shingles = f.sh.appendShingles(f.shingles[:0], f.near)
	sig := signatureOf(f.shingles)
	for b, h := range bandHashes(&sig) {
		bands[b] = fold32(h)
	}
	recentNears.add(f.near, h, f.shingles, bands)
	return bands
}

// keyHasher hashes a key text (appendKeyText's layout) with the key's
// xxhash64 and SHA-256 as it is given, gathering small pieces so that the
// hashes are not called per length word.
type keyHasher struct {
	xx    xxhash.Digest
	sha   hash.Hash
	buf   [4096]byte
	n     int
	calls []byte
	word  [4]byte
}

// field writes b with its 4-byte length before it, as appendField lays
// it out.
func (k *keyHasher) field(b []byte) {
	if k.n+4 > len(k.buf) {
		k.flush()
	}
	// Written in place: a word of its own would be moved to the heap, as
	// write may hand its argument to the hashes.
	binary.LittleEndian.PutUint32(k.buf[k.n:], uint32(len(b)))
	k.n += 4
	k.write(b)
}

// fieldString is field of a string, without converting it to a slice.
func (k *keyHasher) fieldString(s string) {
	k.field(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (k *keyHasher) write(b []byte) {
	if k.n+len(b) <= len(k.buf) {
		k.n += copy(k.buf[k.n:], b)
		return
	}
	k.flush()
	if len(b) > len(k.buf)/2 {
		k.xx.Write(b)
		k.sha.Write(b)
		return
	}
	k.n = copy(k.buf[:], b)
}

func (k *keyHasher) flush() {
	k.xx.Write(k.buf[:k.n])
	k.sha.Write(k.buf[:k.n])
	k.n = 0
}

// normalOf is the normal form of s (appendNormalizedString), made the
// first time s is seen; the Fingerprinter's own, not to be changed.
func (f *Fingerprinter) normalOf(s string) []byte {
	at := textAt{unsafe.StringData(s), len(s)}
	if n, ok := f.byData[at]; ok {
		return n
	}
	if f.normal == nil {
		f.normal, f.byData = map[string][]byte{}, map[textAt][]byte{}
	}
	n, ok := f.normal[s]
	if !ok {
		// Room for the text and a few placeholders longer than what they
		// replace; a longer normal form grows out of the arena, as right.
		if cap(f.arena)-len(f.arena) < len(s)+64 {
			f.arena = make([]byte, 0, max(64<<10, len(s)+64))
		}
		start := len(f.arena)
		f.arena = appendNormalizedString(f.arena, s)
		n = f.arena[start:len(f.arena):len(f.arena)]
		f.normal[s] = n
	}
	f.byData[at] = n
	return n
}

// appendNormal appends the normal form of s (appendNormalizedString),
// made the first time s is seen.
func (f *Fingerprinter) appendNormal(dst []byte, s string) []byte {
	return append(dst, f.normalOf(s)...)
}

// reset makes fp the fingerprint of keyText and nearText, reusing its
// shingle slice. fp keeps keyText, not nearText.
func (fp *Fingerprint) reset(keyText, nearText []byte) {
	fp.KeyText = keyText
	fp.Key = Key(keyText)
	fp.Shingles = appendShingles(fp.Shingles[:0], nearText)
	sig := signatureOf(fp.Shingles)
	for b, h := range bandHashes(&sig) {
		fp.Bands[b] = fold32(h)
	}
}
