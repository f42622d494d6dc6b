// Package scripted is the deterministic model backend for tests, CI and
// the demo: it plays a script of replies, one per model call, and can
// inject the transport faults a real server produces.
//
// A script is JSON Lines, one object per model turn:
//
//	{"content": "READ wordcount.py"}
//	{"thinking": "…", "content": "…", "finish_reason": "length"}
//	{"content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"x.py\"}"}}]}
//	{"error": "stream-cut"}
//	{"error": "rate-limited", "retry_after_ms": 2000}
//	{"error": "model-not-found", "message": "model 'llama3.1:8b' not found"}
//
// A line with "error" is a fault at that call: it is returned as an
// *model.Error (retryable or not by its code) and consumes the line, so a
// retry reads the next one. Optional fields: "metrics" (schemas.Metrics;
// otherwise a rough count of one token per 4 bytes), "status" and
// "message" for faults. When the script runs out, Chat fails with
// script-exhausted.
//
// Faults are simulated, so by default the backend does not really wait
// between attempts (the waits are still computed and recorded).
package scripted
