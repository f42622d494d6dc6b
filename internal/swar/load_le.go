//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package swar

import "unsafe"

// load returns the eight bytes at p as a word, the first in its lowest
// byte: on a little-endian machine, the word as it lies in memory.
func load(p unsafe.Pointer) uint64 { return *(*uint64)(p) }
