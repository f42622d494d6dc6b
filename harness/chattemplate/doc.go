// Package chattemplate renders conversations through a model's own chat
// template the way Hugging Face transformers' apply_chat_template does, and
// checks exported training rows against it.
//
// Trainers (TRL, Unsloth, Axolotl, mlx-lm) turn each JSONL row into tokens
// with the tokenizer's Jinja chat template, in jinja2's sandboxed
// environment with trim_blocks and lstrip_blocks, raise_exception,
// strftime_now and a tojson that keeps non-ASCII text. A row that the
// template refuses, or renders without its system prompt, its reasoning or
// its tool calls, trains something else than what was exported. This
// package renders with github.com/ardanlabs/jinja (the Go engine that
// matched Python jinja2 on the most real templates, docs/templates.md), gives
// it transformers' globals and filters, loads a template from a .jinja
// file, a tokenizer_config.json, a GGUF file or a llama.cpp server's
// /props, probes what the template does with system prompts, reasoning and
// tool calls, and adapts or rejects each row accordingly (Checker).
//
// Rows are read as a trainer reads them: JSON objects keep their key order
// (Python's json.loads does, and tojson prints keys in that order).
package chattemplate
