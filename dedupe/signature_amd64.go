package dedupe

import "golang.org/x/sys/cpu"

// haveSignatureAVX512 says whether signatureAVX512 can run here: it needs
// AVX-512 F (512-bit integer lanes, VPMINUQ) and DQ (VPMULLQ, 64-bit
// multiplies in lanes).
var haveSignatureAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// haveSignatureAVX2 says whether signatureAVX2 can run here: processors
// without AVX-512 take it rather than the Go version, which costs a large
// share of a dedupe (docs/performance.md).
var haveSignatureAVX2 = cpu.X86.HasAVX2

// signatureAVX512 computes the signature of shingles with the seeds eight
// lanes at a time: each lane is one hash function's splitmix64 of every
// shingle, kept at its least.
//
//go:noescape
func signatureAVX512(shingles []uint64, seeds *[numPerm]uint64, sig *[numPerm]uint64)

// signatureAVX2 is signatureAVX512 four lanes at a time, for processors
// with AVX2 and no AVX-512.
//
//go:noescape
func signatureAVX2(shingles []uint64, seeds *[numPerm]uint64, sig *[numPerm]uint64)

func signature(shingles []uint64, sig *[numPerm]uint64) {
	switch {
	case haveSignatureAVX512:
		signatureAVX512(shingles, &permSeeds, sig)
	case haveSignatureAVX2:
		signatureAVX2(shingles, &permSeeds, sig)
	default:
		signatureGeneric(shingles, sig)
	}
}

// The assembly computes exactly 112 hash functions, seven times sixteen.
var _ = [1]struct{}{}[numPerm-112]

// signatureKernel names the code Signature runs here.
func signatureKernel() string {
	switch {
	case haveSignatureAVX512:
		return "AVX-512, eight hash functions at a time"
	case haveSignatureAVX2:
		return "AVX2, four hash functions at a time"
	}
	return "Go"
}
