// Package export writes variety-weighted supervised and preference pairs in
// the JSONL and Parquet layouts that LoRA trainers accept as they are.
package export
