// Package dedupetest writes small trace directories for the tests of the
// dedupe and export stages: runs described in a few lines, recorded with
// the real trace writer, each turn's prompt sent as a delta and proved by
// its prompt hash, exactly as the harness records them.
package dedupetest
