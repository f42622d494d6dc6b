#include "textflag.h"

// func signatureAVX512(premixed []uint64, seeds *[112]uint64, sig *[112]uint64)
//
// mix64 (the splitmix64 finaliser) of shingle ^ seed for 16 seeds at once
// (two registers of eight lanes), the least of each lane over every
// shingle and the lane's value in sig, seven times over: 112 hash
// functions. Shingles and seeds come premixed (signature_amd64.go): their
// xor is the value after mix64's first xorshift.
TEXT ·signatureAVX512(SB), NOSPLIT, $0-40
	MOVQ premixed_base+0(FP), SI
	MOVQ premixed_len+8(FP), CX
	MOVQ seeds+24(FP), DI
	MOVQ sig+32(FP), R8
	MOVQ $0xbf58476d1ce4e5b9, AX
	VPBROADCASTQ AX, Z30
	MOVQ $0x94d049bb133111eb, AX
	VPBROADCASTQ AX, Z31
	MOVQ $7, R9

block:
	VMOVDQU64 (DI), Z0
	VMOVDQU64 64(DI), Z1
	VMOVDQU64 (R8), Z2
	VMOVDQU64 64(R8), Z3
	MOVQ SI, R10
	MOVQ CX, R11
	TESTQ R11, R11
	JZ store

shingle:
	VPBROADCASTQ (R10), Z4
	VPXORQ Z0, Z4, Z5
	VPXORQ Z1, Z4, Z6
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

// The multipliers of mix64, their high halves and the top bit, four
// lanes each, for the AVX2 kernel to take from memory: its sixteen
// registers hold four running minima and four hashes in the making.
#define LANES4(name, v) \
	DATA name+0(SB)/8, v; \
	DATA name+8(SB)/8, v; \
	DATA name+16(SB)/8, v; \
	DATA name+24(SB)/8, v; \
	GLOBL name(SB), RODATA|NOPTR, $32

LANES4(mixMul1<>, $0xbf58476d1ce4e5b9)
LANES4(mixMul1Hi<>, $0xbf58476d)
LANES4(mixMul2<>, $0x94d049bb133111eb)
LANES4(mixMul2Hi<>, $0x94d049bb)
LANES4(topBit<>, $0x8000000000000000)

// SEED4 starts X as the premixed shingle at (R10), in every lane, xor
// the four premixed seeds at off(DI): the value after mix64's first
// xorshift.
#define SEED4(off, X) \
	VPBROADCASTQ (R10), X; \
	VPXOR off(DI), X, X

// XORSHIFT4 is X ^= X >> n, with T for scratch.
#define XORSHIFT4(n, X, T) \
	VPSRLQ n, X, T; \
	VPXOR T, X, X

// MUL4 multiplies the four lanes of X by the multiplier at C (its high
// half at CHI), with T1 and T2 for scratch. AVX2 has no 64-bit multiply,
// so x * c is lo(x)lo(c) + (hi(x)lo(c) + lo(x)hi(c)) << 32.
#define MUL4(C, CHI, X, T1, T2) \
	VPSRLQ $32, X, T1; \
	VPMULUDQ C, T1, T1; \
	VPMULUDQ CHI, X, T2; \
	VPADDQ T2, T1, T1; \
	VPSLLQ $32, T1, T1; \
	VPMULUDQ C, X, X; \
	VPADDQ T1, X, X

// MIN4 folds X into the running least M, with T for scratch. AVX2 has no
// unsigned compare, so the least is kept with the top bit flipped and
// compared signed.
#define MIN4(X, T, M) \
	VPXOR topBit<>(SB), X, X; \
	VPCMPGTQ X, M, T; \
	VPBLENDVB T, X, M, M

// func signatureAVX2(premixed []uint64, seeds *[112]uint64, sig *[112]uint64)
//
// signatureAVX512 for processors with AVX2 only: 16 seeds at once (four
// registers of four lanes), seven times over. Each step of mix64 is taken
// for all four registers before the next: a hash is a chain of about
// twenty dependent instructions, and interleaving four chains keeps the
// processor's multipliers busy where one chain after another would not.
TEXT ·signatureAVX2(SB), NOSPLIT, $0-40
	MOVQ premixed_base+0(FP), SI
	MOVQ premixed_len+8(FP), CX
	MOVQ seeds+24(FP), DI
	MOVQ sig+32(FP), R8
	MOVQ $7, R9

block2:
	// The least so far, from sig, top bit flipped.
	VMOVDQU topBit<>(SB), Y15
	VPXOR (R8), Y15, Y0
	VPXOR 32(R8), Y15, Y1
	VPXOR 64(R8), Y15, Y2
	VPXOR 96(R8), Y15, Y3
	MOVQ SI, R10
	MOVQ CX, R11
	TESTQ R11, R11
	JZ store2

shingle2:
	SEED4(0, Y4); SEED4(32, Y7); SEED4(64, Y10); SEED4(96, Y13)
	MUL4(mixMul1<>(SB), mixMul1Hi<>(SB), Y4, Y5, Y6)
	MUL4(mixMul1<>(SB), mixMul1Hi<>(SB), Y7, Y8, Y9)
	MUL4(mixMul1<>(SB), mixMul1Hi<>(SB), Y10, Y11, Y12)
	MUL4(mixMul1<>(SB), mixMul1Hi<>(SB), Y13, Y14, Y15)
	XORSHIFT4($27, Y4, Y5); XORSHIFT4($27, Y7, Y8); XORSHIFT4($27, Y10, Y11); XORSHIFT4($27, Y13, Y14)
	MUL4(mixMul2<>(SB), mixMul2Hi<>(SB), Y4, Y5, Y6)
	MUL4(mixMul2<>(SB), mixMul2Hi<>(SB), Y7, Y8, Y9)
	MUL4(mixMul2<>(SB), mixMul2Hi<>(SB), Y10, Y11, Y12)
	MUL4(mixMul2<>(SB), mixMul2Hi<>(SB), Y13, Y14, Y15)
	XORSHIFT4($31, Y4, Y5); XORSHIFT4($31, Y7, Y8); XORSHIFT4($31, Y10, Y11); XORSHIFT4($31, Y13, Y14)
	MIN4(Y4, Y5, Y0); MIN4(Y7, Y8, Y1); MIN4(Y10, Y11, Y2); MIN4(Y13, Y14, Y3)
	ADDQ $8, R10
	DECQ R11
	JNZ shingle2

store2:
	VMOVDQU topBit<>(SB), Y15
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
