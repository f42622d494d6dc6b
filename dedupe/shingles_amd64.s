#include "textflag.h"

// func shinglesAVX512(tokens []uint64, out []uint64)
//
// hashShingle of tokens[i:i+5] into out[i] for every i < len(out), eight
// at a time (len(out) a multiple of eight, len(tokens) at least
// len(out)+4): xxhash64 of the five words, one stripe and one word after
// it, in eight lanes.
TEXT ·shinglesAVX512(SB), NOSPLIT, $0-48
	MOVQ tokens_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	MOVQ $0x9e3779b185ebca87, AX
	VPBROADCASTQ AX, Z20 // prime1
	MOVQ $0xc2b2ae3d27d4eb4f, AX
	VPBROADCASTQ AX, Z21 // prime2
	MOVQ $0x165667b19e3779f9, AX
	VPBROADCASTQ AX, Z22 // prime3
	MOVQ $0x85ebca77c2b2ae63, AX
	VPBROADCASTQ AX, Z23 // prime4
	MOVQ $0x60ea27eeadc0b5d6, AX
	VPBROADCASTQ AX, Z24 // the first lane's start, prime1 + prime2
	MOVQ $0x61c8864e7a143579, AX
	VPBROADCASTQ AX, Z25 // the fourth lane's start, -prime1
	MOVQ $40, AX
	VPBROADCASTQ AX, Z26 // the length, 8 * 5
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 8(SI), Z1
	VMOVDQU64 16(SI), Z2
	VMOVDQU64 24(SI), Z3
	VMOVDQU64 32(SI), Z4

	// The four lanes: v = rotl(v + word * prime2, 31) * prime1.
	VPMULLQ Z21, Z0, Z5
	VPADDQ Z24, Z5, Z5
	VPROLQ $31, Z5, Z5
	VPMULLQ Z20, Z5, Z5 // v1
	VPMULLQ Z21, Z1, Z6
	VPADDQ Z21, Z6, Z6
	VPROLQ $31, Z6, Z6
	VPMULLQ Z20, Z6, Z6 // v2
	VPMULLQ Z21, Z2, Z7
	VPROLQ $31, Z7, Z7
	VPMULLQ Z20, Z7, Z7 // v3
	VPMULLQ Z21, Z3, Z8
	VPADDQ Z25, Z8, Z8
	VPROLQ $31, Z8, Z8
	VPMULLQ Z20, Z8, Z8 // v4

	// h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18).
	VPROLQ $1, Z5, Z9
	VPROLQ $7, Z6, Z10
	VPADDQ Z10, Z9, Z9
	VPROLQ $12, Z7, Z10
	VPADDQ Z10, Z9, Z9
	VPROLQ $18, Z8, Z10
	VPADDQ Z10, Z9, Z9

	// Merge each lane: h = (h ^ rotl(v * prime2, 31) * prime1) * prime1 + prime4.
	VPMULLQ Z21, Z5, Z10
	VPROLQ $31, Z10, Z10
	VPMULLQ Z20, Z10, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z20, Z9, Z9
	VPADDQ Z23, Z9, Z9
	VPMULLQ Z21, Z6, Z10
	VPROLQ $31, Z10, Z10
	VPMULLQ Z20, Z10, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z20, Z9, Z9
	VPADDQ Z23, Z9, Z9
	VPMULLQ Z21, Z7, Z10
	VPROLQ $31, Z10, Z10
	VPMULLQ Z20, Z10, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z20, Z9, Z9
	VPADDQ Z23, Z9, Z9
	VPMULLQ Z21, Z8, Z10
	VPROLQ $31, Z10, Z10
	VPMULLQ Z20, Z10, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z20, Z9, Z9
	VPADDQ Z23, Z9, Z9

	// The length, then the fifth word: h ^= rotl(e * prime2, 31) *
	// prime1; h = rotl(h, 27) * prime1 + prime4.
	VPADDQ Z26, Z9, Z9
	VPMULLQ Z21, Z4, Z10
	VPROLQ $31, Z10, Z10
	VPMULLQ Z20, Z10, Z10
	VPXORQ Z10, Z9, Z9
	VPROLQ $27, Z9, Z9
	VPMULLQ Z20, Z9, Z9
	VPADDQ Z23, Z9, Z9

	// The avalanche.
	VPSRLQ $33, Z9, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z21, Z9, Z9
	VPSRLQ $29, Z9, Z10
	VPXORQ Z10, Z9, Z9
	VPMULLQ Z22, Z9, Z9
	VPSRLQ $32, Z9, Z10
	VPXORQ Z10, Z9, Z9

	VMOVDQU64 Z9, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ loop

done:
	VZEROUPPER
	RET
