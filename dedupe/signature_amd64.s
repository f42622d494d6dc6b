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
