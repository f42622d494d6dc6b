// Package gguf reads and rewrites the header of a GGUF model file — its
// key/value metadata and tensor descriptions — and copies the aligned tensor
// data through unchanged.
//
// It exists so that a model a trainer wrote can be brought into a server
// that misreads one of its keys: Ollama v0.17.4 takes a GGUF carrying
// llama.pooling_type for an embedding model and refuses to chat with it,
// and llama.cpp's llama-finetune leaves that key in what it writes.
// Edit writes a copy with the header changed (Header.Remove, Header.Set)
// and the tensor data copied through, refusing a change of the layout. The
// tensor types are read too, for the trainers that take only some of them
// (llama-finetune trains F32 weights only).
package gguf
