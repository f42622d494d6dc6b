// Package dedupe keys every training pair by its normalised content, counts
// exact duplicates and clusters near-duplicates, so that an export can be
// weighted by variety rather than volume.
//
// A pair is a model turn: the prompt it was sent, rebuilt from the trace and
// proved by its prompt hash, and the draft that answered it. Exact duplicates
// share an xxhash64 key over the normalised training text (AppendKeyText,
// appendNormalized), confirmed byte for byte; near-duplicates share MinHash
// bands over token 5-grams of the draft and the message it answered
// (AppendNearText), confirmed by exact Jaccard similarity, within a group,
// against each cluster's representative. The Index holds keys and band
// hashes, never text: it reads text again through Texts, served from the
// traces on disk (trace.Corpus rebuilds the prompts).
//
// Run is the whole stage: it reads a trace directory and writes the report
// that `pyharness dedupe` prints. The export package runs an Index on the
// pairs it selects.
package dedupe
