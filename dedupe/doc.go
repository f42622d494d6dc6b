// Package dedupe keys every training pair by its normalised content, counts
// exact duplicates and clusters near-duplicates, so that an export can be
// weighted by variety rather than volume.
//
// A pair is a model turn: the prompt it was sent, rebuilt from the trace and
// proved by its prompt hash, and the draft that answered it. Exact duplicates
// share an xxhash64 key over the normalised training text (appendKeyText,
// appendNormalized), confirmed by what Texts gives again of the first copy
// (the key text itself, or its SHA-256); near-duplicates share MinHash
// bands over token 5-grams of the draft and the message it answered
// (AppendNearText), confirmed by exact Jaccard similarity, within a group,
// against each cluster's representative. The Index holds keys and band
// hashes, never text: it reads what it confirms by again through Texts.
//
// Run is the whole stage: it reads a trace directory and writes the report
// that `pyharness dedupe` prints. It takes each run's fingerprints
// (runPrints) from the dataset classify wrote when the run's trace is the
// one classify read (Deriver, whose entries classify makes while it has
// the run decoded: package derivedcache), and decodes the others, so that a
// pipeline decodes each trace once. The export package runs an Index on the pairs it selects,
// served text by the traces on disk (CorpusTexts; trace.Corpus rebuilds
// the prompts), or their SHA-256 (Digests) when it reads the fingerprints
// classify stored for it.
package dedupe
