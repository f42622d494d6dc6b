// Package synthetic generates large, realistic trace directories for measuring
// the pipeline, and measures the shape of any trace directory so that a
// generated corpus can be compared with a real one.
//
// A generated corpus is schema v1 as the harness records it: one JSON Lines
// file per run, delta messages proved by prompt hashes, the turn-kind mix,
// turns per run and message and draft sizes of the scripted benchmark, and
// a controlled share of runs that repeat an earlier run of their case
// exactly or nearly. It is deterministic: the same options give the same
// bytes.
package synthetic
