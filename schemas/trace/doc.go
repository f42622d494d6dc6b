// Package trace writes and reads pyharness trace files: JSON Lines, one file
// per attempt of a run (<run_id>.jsonl, then <run_id>.attempt-2.jsonl, …),
// appended and fsynced record by record so that a crash loses at most the
// record in flight, and read back as a stream that recovers every complete
// record before a torn last line.
//
// The reader decodes a line in up to three ways (decode.go): a decoder of
// the layout Writer writes (decode_layout.go), then github.com/bytedance/sonic,
// then encoding/json, which alone decides a line that fails and names the
// field at fault. The first two only ever decide successes, and
// FuzzDecodeRecord holds them to encoding/json's records and errors.
//
// Every stage reads a trace directory the same way: the last attempt of each
// run (LastAttempts, Runs), earlier attempts set aside and counted. A Corpus
// is that directory as dedupe and export read it, group by group, with every
// turn's whole prompt rebuilt from the recorded deltas.
package trace
