// Package trace writes and reads pyharness trace files: JSON Lines, one file
// per attempt of a run (<run_id>.jsonl, then <run_id>.attempt-2.jsonl, …),
// appended and fsynced record by record so that a crash loses at most the
// record in flight, and read back as a stream that recovers every complete
// record before a torn last line.
package trace
