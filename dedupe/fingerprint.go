package dedupe

import "github.com/pyharness/pyharness/schemas"

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
// one goroutine.
type Fingerprinter struct {
	normal map[string][]byte
}

// Make makes the fingerprint of a pair: of AppendKeyText and
// AppendNearText of prompt and draft.
func (f *Fingerprinter) Make(prompt []schemas.Message, draft schemas.Reply) Fingerprint {
	var fp Fingerprint
	keyText := appendKeyText(nil, prompt, draft, f.appendNormal)
	nearText := appendNearText(nil, prompt, draft, f.appendNormal)
	fp.reset(keyText, nearText)
	return fp
}

// appendNormal appends the normal form of s (appendNormalizedString),
// made the first time s is seen.
func (f *Fingerprinter) appendNormal(dst []byte, s string) []byte {
	if f.normal == nil {
		f.normal = map[string][]byte{}
	}
	n, ok := f.normal[s]
	if !ok {
		n = appendNormalizedString(nil, s)
		f.normal[s] = n
	}
	return append(dst, n...)
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
