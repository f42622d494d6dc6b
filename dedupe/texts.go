package dedupe

import "github.com/pyharness/pyharness/trace"

// corpusTexts serves an Index the text of a pair read again from the
// traces: the corpus keeps the few runs read last, and runs come group by
// group, so the copies a new pair is compared with are nearly always there.
type corpusTexts struct{ c *trace.Corpus }

// KeyText appends the exact key text of ref.
func (t corpusTexts) KeyText(dst []byte, ref Ref) ([]byte, error) {
	p, d, err := t.c.Pair(int(ref.Run), int(ref.Turn))
	if err != nil {
		return dst, err
	}
	return AppendKeyText(dst, p, d), nil
}

// NearText appends the near-duplicate text of ref.
func (t corpusTexts) NearText(dst []byte, ref Ref) ([]byte, error) {
	p, d, err := t.c.Pair(int(ref.Run), int(ref.Turn))
	if err != nil {
		return dst, err
	}
	return AppendNearText(dst, p, d), nil
}

var _ Texts = corpusTexts{}
