package dedupe

import (
	"crypto/sha256"
	"encoding"
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

// maxArena is the most an arena of normal forms grows to at a time.
const maxArena = 64 << 10

// reset forgets the texts of the run before, keeping the buffers.
func (f *Fingerprinter) reset() {
	f.key.forget()
	clear(f.normal)
	clear(f.byData)
	f.arena = f.arena[:0] // nothing made of the last run points into it
}

// Make makes the fingerprint of a pair: of appendKeyText and
// AppendNearText of prompt and draft.
func (f *Fingerprinter) Make(prompt []schemas.Message, draft schemas.Reply) Fingerprint {
	var fp Fingerprint
	fp.KeyText = appendKeyTextNorm(nil, prompt, draft, f.appendNormal)
	fp.Key = Key(fp.KeyText)
	fp.Bands = f.nearPrint(prompt, draft)
	fp.Shingles = slices.Clone(f.shingles)
	return fp
}

// MakeConfirmed is Make with KeyText the pair's confirmDigest in place of
// the key text. It is the fingerprint a store keeps, and an index given it
// confirms equal keys by digest (Digests).
func (f *Fingerprinter) MakeConfirmed(prompt []schemas.Message, draft schemas.Reply) Fingerprint {
	var fp Fingerprint
	fp.Key, fp.KeyText = f.confirmedKey(nil, prompt, draft)
	fp.Bands = f.nearPrint(prompt, draft)
	fp.Shingles = slices.Clone(f.shingles)
	return fp
}

// confirmedKey returns the exact key of the pair and appends its
// confirmDigest to digest. The key text is laid out in f.key.text, the
// prompt's messages kept there for the next turn: a prompt that starts
// with the last one's messages (trace.Rebuild appends each turn's messages
// to one conversation) adds only its own, and the SHA-256 of the confirm
// text goes on from where the last one's messages left it. Each message is
// normalised, laid out and hashed for the digest once a run, instead of
// once a turn after it; the key's xxhash64 reads the whole text.
func (f *Fingerprinter) confirmedKey(digest []byte, prompt []schemas.Message, draft schemas.Reply) (uint64, []byte) {
	k := &f.key
	n := k.resume(prompt)
	from := len(k.text)
	for _, m := range prompt[n:] {
		k.text = appendMessage(k.text, m, f.appendNormal)
	}
	k.sha.Write(k.text[from:])
	k.save(prompt)
	binary.LittleEndian.PutUint32(k.text[k.countAt:], uint32(len(prompt)))
	end := len(k.text)
	k.text = appendDraft(k.text, draft, f.appendNormal)
	key := xxhash.Sum64(k.text)
	k.sha.Write(k.text[end:])
	k.sha.Write(binary.LittleEndian.AppendUint32(k.word[:0], uint32(len(prompt))))
	k.text = k.text[:end]
	return key, k.sha.Sum(digest)
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

// keyHasher keeps the key text of the last prompt's messages and the
// state of the confirm text's SHA-256 after them, for a prompt that starts
// with the same messages (confirmedKey).
type keyHasher struct {
	// text is the key text (appendKeyTextNorm) up to the end of prompt's
	// messages; countAt is where its number of messages goes.
	text    []byte
	countAt int
	// sha is the SHA-256 of the confirm text (appendConfirmText), its
	// state after prompt's messages marshalled in saved.
	sha   hash.Hash
	saved []byte
	// prompt is a copy of the last prompt's messages: a caller may reuse
	// its slice.
	prompt []schemas.Message
	word   [4]byte
}

// resume readies text and sha for prompt, and returns how many of its
// messages they already hold: those of the last prompt when prompt starts
// with the same messages, else none.
func (k *keyHasher) resume(prompt []schemas.Message) int {
	if k.sha == nil {
		k.sha = sha256.New()
	}
	if n := len(k.prompt); n > 0 && n <= len(prompt) && sameMessages(k.prompt, prompt[:n]) &&
		k.sha.(encoding.BinaryUnmarshaler).UnmarshalBinary(k.saved) == nil {
		return n
	}
	k.sha.Reset()
	k.sha.Write(appendField(k.word[:0:0], confirmVersion, nil))
	k.text = appendField(k.text[:0], keyVersion, nil)
	k.countAt = len(k.text)
	k.text = append(k.text, 0, 0, 0, 0)
	return 0
}

// save keeps the state after prompt's messages.
func (k *keyHasher) save(prompt []schemas.Message) {
	var err error
	k.prompt = k.prompt[:0]
	if k.saved, err = k.sha.(encoding.BinaryAppender).AppendBinary(k.saved[:0]); err == nil {
		k.prompt = append(k.prompt, prompt...)
	}
}

// forget drops the last prompt, so that the next starts anew.
func (k *keyHasher) forget() {
	clear(k.prompt)
	k.prompt = k.prompt[:0]
}

// sameMessages reports whether a and b hold the same messages as far as a
// key text reads them. Texts are compared as strings, which costs nothing
// for the strings a rebuilt run's prompts share; tool calls count as the
// same only when they are the very same slice, which a rebuilt run's
// prompts share too: calls that are equal but not shared resume nothing,
// which costs time, never a wrong key (a run's recorded calls do not
// change once read).
func sameMessages(a, b []schemas.Message) bool {
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Role != y.Role || x.Content != y.Content || len(x.ToolCalls) != len(y.ToolCalls) ||
			len(x.ToolCalls) > 0 && &x.ToolCalls[0] != &y.ToolCalls[0] {
			return false
		}
	}
	return true
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
		// The arena doubles from 4 KiB up to 64 KiB: a Fingerprinter
		// used for one pair (export's, a run's training text) took a
		// 64 KiB arena and cleared it for a few kilobytes of text.
		if cap(f.arena)-len(f.arena) < len(s)+64 {
			f.arena = make([]byte, 0, max(min(2*cap(f.arena), maxArena), 4<<10, len(s)+64))
		}
		start := len(f.arena)
		if len(s) < minCachedText || len(s) > maxCachedText {
			f.arena = appendNormalizedString(f.arena, s)
		} else {
			h := textHash(s)
			if f.arena, ok = recentNormals.lookup(s, h, f.arena); !ok {
				f.arena = appendNormalizedString(f.arena, s)
				recentNormals.add(s, h, f.arena[start:])
			}
		}
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
