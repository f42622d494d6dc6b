// Package runpack keeps what a stage made of each run's trace in pack
// files a later stage reads instead of decoding the trace again: an entry
// per run, keyed by the trace file's run id, attempt, size and xxhash64
// when it was read, so that a reader takes an entry only for a trace byte
// for byte the one it was made of, and by the file's stamp then
// (trace.Stamp), so that a reader that finds the stamp unchanged takes it
// without reading the trace at all. classify writes the packs; dedupe and
// export read them.
package runpack
