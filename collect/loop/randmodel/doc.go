// Package randmodel writes a small llama-architecture model with random
// weights as a GGUF file: the base a loop on a CPU can train in minutes and
// that llama.cpp's server and Ollama load like any other model.
//
// The weights are drawn from a seeded generator, one stream per tensor, so
// the same Config and vocabulary give the same bytes on every machine. The
// tokenizer (every tokenizer.* key) and the chat template come from a GGUF
// the caller names, such as one of llama.cpp's vocabulary files; nothing of
// a real model's weights is needed. The scales of the draws are settings:
// a tiny model drawn with every weight at a standard deviation of 0.02
// collapses to one repeated token when trained, while embeddings at 1,
// layer weights at 1/√fan-in and the output layer at 0.02 train.
package randmodel
