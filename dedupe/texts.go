package dedupe

import (
	"errors"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// CorpusTexts serves an Index the text of a pair read again from the
// traces: the corpus keeps the few runs read last, and runs come group by
// group, so the copies a new pair is compared with are nearly always there.
type CorpusTexts struct {
	Corpus *trace.Corpus
	// Render, when set, turns a pair into the text that is keyed: export
	// keys the text it will write, tool calls in the text protocol.
	Render func([]schemas.Message, schemas.Reply) ([]schemas.Message, schemas.Reply)
}

func (t CorpusTexts) pair(ref Ref) ([]schemas.Message, schemas.Reply, error) {
	r, err := t.Corpus.ReadCached(int(ref.Run))
	if err != nil {
		return nil, schemas.Reply{}, err
	}
	if int(ref.Turn) >= len(r.Turns) || r.Prompts[ref.Turn] == nil {
		return nil, schemas.Reply{}, errors.New("no such pair in " + t.Corpus.File(int(ref.Run)).Path)
	}
	p, d := r.Prompts[ref.Turn], r.Turns[ref.Turn].Reply
	if t.Render != nil {
		p, d = t.Render(p, d)
	}
	return p, d, nil
}

// KeyText appends the exact key text of ref.
func (t CorpusTexts) KeyText(dst []byte, ref Ref) ([]byte, error) {
	p, d, err := t.pair(ref)
	if err != nil {
		return dst, err
	}
	return appendKeyText(dst, p, d), nil
}

// Shingles appends the shingles of the near-duplicate text of ref.
func (t CorpusTexts) Shingles(dst []uint64, ref Ref) ([]uint64, error) {
	p, d, err := t.pair(ref)
	if err != nil {
		return dst, err
	}
	return appendShingles(dst, AppendNearText(nil, p, d)), nil
}

var _ Texts = CorpusTexts{}

// Digests serves an Index the SHA-256 of the key texts Texts gives
// (confirmDigest), for an index of fingerprints made by MakeConfirmed or
// read from a store: they carry the digest, not the text.
type Digests struct{ Texts }

// KeyText appends the SHA-256 of the key text of ref.
func (d Digests) KeyText(dst []byte, ref Ref) ([]byte, error) {
	text, err := d.Texts.KeyText(nil, ref)
	if err != nil {
		return dst, err
	}
	return append(dst, confirmDigest(text)...), nil
}
