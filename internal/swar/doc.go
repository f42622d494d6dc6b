// Package swar tests eight bytes of text at once, held in one uint64
// (SIMD within a register): for the bytes a JSON string cannot hold as
// they are, and for bytes within a range. It is the one copy of that
// arithmetic for the trace decoder, the export's JSON writer and dedupe's
// normaliser; its tests hold each word-wide test to the byte-at-a-time
// definition it stands for.
package swar
