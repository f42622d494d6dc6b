// Package openai is the model backend for any OpenAI-compatible
// chat-completions endpoint (hosted models, vLLM, llama.cpp server, Ollama's
// /v1), through github.com/openai/openai-go/v3, streaming with usage.
//
// The library's own retries are turned off so that model.Retry sees, and
// records, every attempt. num_ctx cannot be set on this API; seed and
// temperature are always sent, max_tokens when num_predict is positive.
package openai
