//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package swar

import (
	"math/bits"
	"unsafe"
)

// load returns the eight bytes at p as a word, the first in its lowest
// byte: on a big-endian machine, the word as it lies in memory reversed.
func load(p unsafe.Pointer) uint64 { return bits.ReverseBytes64(*(*uint64)(p)) }
