package dedupe

// shinglesAVX512 is hashShingle of tokens[i:i+5] into out[i] for every
// i < len(out), eight at a time: len(out) is a multiple of eight and
// len(tokens) at least len(out)+4. It needs what signatureAVX512 does
// (VPMULLQ, and VPROLQ of AVX-512 F).
//
//go:noescape
func shinglesAVX512(tokens []uint64, out []uint64)

// haveShinglesAVX512 says whether shinglesAVX512 can run here.
var haveShinglesAVX512 = haveSignatureAVX512

// hashShingles appends hashShingle of every five tokens in a row.
func hashShingles(dst, tokens []uint64) []uint64 {
	m := len(tokens) - ShingleSize + 1
	if m <= 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, make([]uint64, m)...)
	out := dst[start:]
	k := 0
	if haveShinglesAVX512 {
		k = m / 8 * 8
		if k > 0 {
			shinglesAVX512(tokens[:k+ShingleSize-1], out[:k])
		}
	}
	for i := k; i < m; i++ {
		out[i] = hashShingle(tokens[i], tokens[i+1], tokens[i+2], tokens[i+3], tokens[i+4])
	}
	return dst
}
