package gguf

import (
	"bufio"
	"fmt"
	"io"
)

// Tensor is a tensor to write: its name, its dimensions in ggml's order
// (the first is the row length), its type, and its data, which
// WriteTo writes to w and which must be exactly Size bytes long.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Size uint64
	Data io.WriterTo
}

// Write writes a GGUF file of version 3: the metadata kv, then tensors,
// each at the next offset the alignment allows, so that a reader (this
// package's, llama.cpp's) finds each where its description says.
func Write(w io.Writer, kv []KV, tensors []Tensor) error {
	h := &Header{Version: 3, KV: kv}
	al := h.alignment()
	var off uint64
	for _, t := range tensors {
		off = alignUp(off, al)
		h.Tensors = append(h.Tensors, TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type, Offset: off})
		off += t.Size
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := h.WriteHeader(bw); err != nil {
		return fmt.Errorf("gguf: write header: %w", err)
	}
	var at uint64
	for i, t := range tensors {
		if pad := h.Tensors[i].Offset - at; pad > 0 {
			if _, err := bw.Write(make([]byte, pad)); err != nil {
				return fmt.Errorf("gguf: write padding before %s: %w", t.Name, err)
			}
			at += pad
		}
		n, err := t.Data.WriteTo(bw)
		if err != nil {
			return fmt.Errorf("gguf: write tensor %s: %w", t.Name, err)
		}
		if uint64(n) != t.Size {
			return fmt.Errorf("gguf: tensor %s: wrote %d bytes, its size is %d", t.Name, n, t.Size)
		}
		at += t.Size
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("gguf: write: %w", err)
	}
	return nil
}
