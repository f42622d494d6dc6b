// Package ollama is the model backend for an Ollama server, through
// github.com/ollama/ollama/api, streaming.
//
// It sends what Ollama's defaults would otherwise decide silently: the
// options as a plain map (the api.Options struct drops a temperature or seed
// of 0), num_ctx, and truncate=false and shift=false, so that a prompt too
// long for the context is refused with a 400 instead of being cut without a
// word. A prompt the runner still cut (prompt_eval_count equal to num_ctx)
// is flagged on the Reply.
//
// Only a chunk with done:true makes a reply whole: a stream that ends
// without one is a cut stream, retried like any transport fault.
package ollama
