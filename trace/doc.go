// Package trace writes and reads pyharness trace files: JSON Lines, one file
// per attempt of a run (<run_id>.jsonl, then <run_id>.attempt-2.jsonl, …),
// appended and fsynced record by record so that a crash loses at most the
// record in flight, and read back as a stream that recovers every complete
// record before a torn last line.
//
// Every stage reads a trace directory the same way: the last attempt of each
// run (LastAttempts, Runs), earlier attempts set aside and counted. A Corpus
// is that directory as dedupe and export read it, group by group, with every
// turn's whole prompt rebuilt from the recorded deltas.
package trace
