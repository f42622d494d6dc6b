// Package wiretest runs test servers that speak the real wire protocols of
// the model servers pyharness talks to, so backend tests check the client
// against what a server really sends rather than against a fake that only
// agrees with itself.
//
// Everything the servers send is taken from traffic recorded from real
// servers — Ollama v0.17.4 (testdata/ollama) and llama.cpp's llama-server
// b10573, with its reasoning recorded from b5929 (testdata/llama-server;
// each directory's README says what every file shows), embedded:
// recorded answers are
// replayed verbatim (status, Content-Type, body), and generated replies
// follow the recorded chunk shapes field for field (NDJSON for /api/chat,
// SSE for /v1/chat/completions). On top of that, each server can be told,
// request by request, to cut a stream, go silent, answer with an error
// status or send an error line mid-stream, and it keeps every request body
// it received so tests can assert what the client sent.
//
// The Ollama server also does what the real one decides on its own: it
// answers 404 for a model it does not have, 400 for think or tools sent to
// a model without them, and counts prompt tokens with a tokenizer of its own
// (CountTokens) to refuse an over-long prompt when truncate is false or to
// truncate it silently, as Ollama does, when it is not. Set Trained and it
// serves the second recorded model (trained context 4096), capping a
// larger num_ctx as the real server does.
//
// The Ollama server also takes what `ollama create` sends (recorded from
// v0.17.4 creating a model from the GGUF llama-finetune wrote): blob
// uploads, checked against their digest, and /api/create from one
// uploaded GGUF, which it reads with Ollama's own decoder. A file that
// carries a pooling key makes an embedding model, and a chat with it is
// refused as the real server refused it. It also takes /api/create FROM a
// model it has with one LoRA adapter GGUF (create-adapter, recorded with
// the adapter scripts/train_lora.py wrote; Adapter says which one a model
// got). AnswerModel and PushModel answer one model's chats apart from the
// shared queue.
//
// The Ollama server can also stand in for a server with parallel slots
// (Slots, as OLLAMA_NUM_PARALLEL or llama-server's -np set them): requests
// beyond the slots wait in a queue, each answer holds its slot for
// ReplyDelay, HoldUntil holds replies until that many requests are in
// flight at once, and Peak says the most in flight and answering at once.
// Conversation gives every conversation its own script, by the replies it
// already holds, so runs going at once each play it whole.
//
// The three servers: NewOllama (native API), NewOpenAI (Ollama's /v1,
// with /api/show beside it; Window for its silent truncation) and
// NewLlamaServer (llama-server: any model name, its window NCtx, its
// overflow 400 with n_ctx, timings and prompt cache, 404 for
// /v1/models/{id}, and GET /lora-adapters listing the files in LoRA as
// QVAC Fabric's llama-server b7336 listed the one it was started with
// by --lora).
package wiretest
