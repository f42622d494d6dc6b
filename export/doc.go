// Package export writes variety-weighted supervised and preference pairs in
// the JSONL and Parquet layouts that LoRA trainers accept as they are.
//
// Run reads a trace directory, selects the pairs worth learning from (applied
// drafts of worked runs of a model, by default), dedupes them with the dedupe
// package, weights each group (a case or a dogfood task) by its variety,
// splits by group, redacts secrets, and writes one format through its sink:
// train/valid/test .jsonl with meta.jsonl, Hugging Face Parquet shards, or
// TRL preference pairs, each with a README.md dataset card. The same traces
// and options always give the same bytes. docs/export.md is the full account.
package export
