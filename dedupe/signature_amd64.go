package dedupe

import (
	"math"

	"golang.org/x/sys/cpu"
)

// haveSignatureAVX512 says whether signatureAVX512 can run here: it needs
// AVX-512 F (512-bit integer lanes, VPMINUQ) and DQ (VPMULLQ, 64-bit
// multiplies in lanes).
var haveSignatureAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// haveSignatureAVX2 says whether signatureAVX2 can run here: processors
// without AVX-512 take it rather than the Go version, which costs a large
// share of a dedupe (docs/performance.md).
var haveSignatureAVX2 = cpu.X86.HasAVX2

// The kernels take mix64's first step out of their loop: a xorshift
// distributes over xor, so (s ^ seed) ^ (s ^ seed) >> 30 is premix(s) ^
// premix(seed). The seeds are premixed once (premixedSeeds) and each
// shingle once per call (signatureWith), where the kernels premixed every
// shingle with every seed; the values are the same.
func premix(x uint64) uint64 { return x ^ x>>30 }

// premixedSeeds are permSeeds premixed.
var premixedSeeds = func() (s [numPerm]uint64) {
	for i, seed := range permSeeds {
		s[i] = premix(seed)
	}
	return s
}()

// signatureAVX512 folds premixed shingles into sig with the premixed
// seeds eight lanes at a time: each lane is one hash function's splitmix64
// of every shingle, kept at its least of the lane's value in sig and
// those.
//
//go:noescape
func signatureAVX512(premixed []uint64, seeds *[numPerm]uint64, sig *[numPerm]uint64)

// signatureAVX2 is signatureAVX512 four lanes at a time, for processors
// with AVX2 and no AVX-512.
//
//go:noescape
func signatureAVX2(premixed []uint64, seeds *[numPerm]uint64, sig *[numPerm]uint64)

func signature(shingles []uint64, sig *[numPerm]uint64) {
	switch {
	case haveSignatureAVX512:
		signatureWith(kernelAVX512, shingles, sig)
	case haveSignatureAVX2:
		signatureWith(kernelAVX2, shingles, sig)
	default:
		signatureGeneric(shingles, sig)
	}
}

// A kernel names an assembly kernel, for signatureWith.
type kernel uint8

const (
	kernelAVX512 kernel = iota
	kernelAVX2
)

// premixChunk is how many shingles signatureWith premixes at a time, on
// its stack.
const premixChunk = 256

// signatureWith is the signature of shingles by kernel k: the shingles
// are premixed a chunk at a time and each chunk folded into sig. It calls
// the kernels by name, not through a func value, so that the chunk stays
// on the stack.
func signatureWith(k kernel, shingles []uint64, sig *[numPerm]uint64) {
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	var buf [premixChunk]uint64
	for len(shingles) > 0 {
		chunk := buf[:copy(buf[:], shingles)]
		for i, s := range chunk {
			chunk[i] = premix(s)
		}
		if k == kernelAVX512 {
			signatureAVX512(chunk, &premixedSeeds, sig)
		} else {
			signatureAVX2(chunk, &premixedSeeds, sig)
		}
		shingles = shingles[len(chunk):]
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
