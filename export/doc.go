// Package export writes variety-weighted supervised and preference pairs in
// the JSONL and Parquet layouts that LoRA trainers accept as they are.
//
// Run reads a trace directory, selects the pairs worth learning from (applied
// drafts of worked runs of a model, by default), dedupes them with the dedupe
// package, weights each group (a case or a dogfood task) by its variety,
// splits by group, redacts secrets, and writes one format through its sink:
// train/valid/test .jsonl with meta.jsonl, Hugging Face Parquet shards, or
// TRL preference pairs, each with a README.md dataset card. Every row trains
// one message, its selected draft (the completion of the prompt-completion
// layout, the one message of weight 1 in the messages layout, the chosen
// side), written in the protocol's canonical form with its reasoning apart;
// the earlier drafts of its context, refused ones among them, are never
// trained. The same traces and options always give the same bytes.
// docs/export.md is the full account.
//
// export imports the Parquet library only in its Parquet sink (sink.go),
// which writes the Hugging Face shards by design; it reads traces, never
// classify's Parquet dataset, so it pulls in no Arrow package. What its
// first pass reads of each run classify stores in the dataset (Deriver,
// facts.go; package derivedcache), and export --dataset takes it from there
// for every trace byte for byte the one classify read.
package export
