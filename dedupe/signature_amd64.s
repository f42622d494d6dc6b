#include "textflag.h"

// func signatureAVX512(shingles []uint64, seeds *[112]uint64, sig *[112]uint64)
//
// mix64 (the splitmix64 finaliser) of shingle ^ seed for 16 seeds at once
// (two registers of eight lanes), the least of each lane over every
// shingle, seven times over: 112 hash functions.
TEXT ·signatureAVX512(SB), NOSPLIT, $0-40
	MOVQ shingles_base+0(FP), SI
	MOVQ shingles_len+8(FP), CX
	MOVQ seeds+24(FP), DI
	MOVQ sig+32(FP), R8
	MOVQ $0xbf58476d1ce4e5b9, AX
	VPBROADCASTQ AX, Z30
	MOVQ $0x94d049bb133111eb, AX
	VPBROADCASTQ AX, Z31
	MOVQ $-1, AX
	VPBROADCASTQ AX, Z29
	MOVQ $7, R9

block:
	VMOVDQU64 (DI), Z0
	VMOVDQU64 64(DI), Z1
	VMOVDQA64 Z29, Z2
	VMOVDQA64 Z29, Z3
	MOVQ SI, R10
	MOVQ CX, R11
	TESTQ R11, R11
	JZ store

shingle:
	VPBROADCASTQ (R10), Z4
	VPXORQ Z0, Z4, Z5
	VPXORQ Z1, Z4, Z6
	VPSRLQ $30, Z5, Z7
	VPSRLQ $30, Z6, Z8
	VPXORQ Z7, Z5, Z5
	VPXORQ Z8, Z6, Z6
	VPMULLQ Z30, Z5, Z5
	VPMULLQ Z30, Z6, Z6
	VPSRLQ $27, Z5, Z7
	VPSRLQ $27, Z6, Z8
	VPXORQ Z7, Z5, Z5
	VPXORQ Z8, Z6, Z6
	VPMULLQ Z31, Z5, Z5
	VPMULLQ Z31, Z6, Z6
	VPSRLQ $31, Z5, Z7
	VPSRLQ $31, Z6, Z8
	VPXORQ Z7, Z5, Z5
	VPXORQ Z8, Z6, Z6
	VPMINUQ Z5, Z2, Z2
	VPMINUQ Z6, Z3, Z3
	ADDQ $8, R10
	DECQ R11
	JNZ shingle

store:
	VMOVDQU64 Z2, (R8)
	VMOVDQU64 Z3, 64(R8)
	ADDQ $128, DI
	ADDQ $128, R8
	DECQ R9
	JNZ block
	VZEROUPPER
	RET

// MUL64 multiplies the four lanes of Y4 by the multiplier in C (its high
// half in CHI), into Y4. AVX2 has no 64-bit multiply, so x * c is
// lo(x)lo(c) + (hi(x)lo(c) + lo(x)hi(c)) << 32.
#define MUL64(C, CHI) \
	VPMULUDQ C, Y4, Y5; \
	VPSRLQ $32, Y4, Y6; \
	VPMULUDQ C, Y6, Y6; \
	VPMULUDQ CHI, Y4, Y7; \
	VPADDQ Y7, Y6, Y6; \
	VPSLLQ $32, Y6, Y6; \
	VPADDQ Y6, Y5, Y4

// XORSHIFT is Y4 ^= Y4 >> n.
#define XORSHIFT(n) \
	VPSRLQ n, Y4, Y5; \
	VPXOR Y5, Y4, Y4

// HASH_MIN folds mix64(shingle ^ seed) of four seeds at off(DI) into the
// running least M. Y8 holds the shingle in every lane; Y11 and Y13 the
// multipliers, Y12 and Y14 their high halves. AVX2 has no unsigned
// compare, so the least is kept with the top bit flipped (Y15) and
// compared signed.
#define HASH_MIN(off, M) \
	VPXOR off(DI), Y8, Y4; \
	XORSHIFT($30); \
	MUL64(Y11, Y12); \
	XORSHIFT($27); \
	MUL64(Y13, Y14); \
	XORSHIFT($31); \
	VPXOR Y15, Y4, Y4; \
	VPCMPGTQ Y4, M, Y5; \
	VPBLENDVB Y5, Y4, M, M

// func signatureAVX2(shingles []uint64, seeds *[112]uint64, sig *[112]uint64)
//
// signatureAVX512 for processors with AVX2 only: 16 seeds at once (four
// registers of four lanes), seven times over.
TEXT ·signatureAVX2(SB), NOSPLIT, $0-40
	MOVQ shingles_base+0(FP), SI
	MOVQ shingles_len+8(FP), CX
	MOVQ seeds+24(FP), DI
	MOVQ sig+32(FP), R8
	MOVQ $0xbf58476d1ce4e5b9, AX
	VMOVQ AX, X11
	VPBROADCASTQ X11, Y11
	MOVQ $0xbf58476d, AX
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $0x94d049bb133111eb, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	MOVQ $0x94d049bb, AX
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	MOVQ $0x8000000000000000, AX
	VMOVQ AX, X15
	VPBROADCASTQ X15, Y15
	MOVQ $0x7fffffffffffffff, AX
	VMOVQ AX, X9
	VPBROADCASTQ X9, Y9
	MOVQ $7, R9

block2:
	VMOVDQA Y9, Y0
	VMOVDQA Y9, Y1
	VMOVDQA Y9, Y2
	VMOVDQA Y9, Y3
	MOVQ SI, R10
	MOVQ CX, R11
	TESTQ R11, R11
	JZ store2

shingle2:
	VPBROADCASTQ (R10), Y8
	HASH_MIN(0, Y0)
	HASH_MIN(32, Y1)
	HASH_MIN(64, Y2)
	HASH_MIN(96, Y3)
	ADDQ $8, R10
	DECQ R11
	JNZ shingle2

store2:
	VPXOR Y15, Y0, Y0
	VPXOR Y15, Y1, Y1
	VPXOR Y15, Y2, Y2
	VPXOR Y15, Y3, Y3
	VMOVDQU Y0, (R8)
	VMOVDQU Y1, 32(R8)
	VMOVDQU Y2, 64(R8)
	VMOVDQU Y3, 96(R8)
	ADDQ $128, DI
	ADDQ $128, R8
	DECQ R9
	JNZ block2
	VZEROUPPER
	RET
