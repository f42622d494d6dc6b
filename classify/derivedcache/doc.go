// Package derivedcache keeps what the pipeline's stages derive from each run's
// trace, so that a later stage need not decode the trace again. A stage
// that wants an entry of every run gives a Deriver (a name, a version that
// names everything the entry depends on, and Derive); classify, while it
// has each run decoded, fills the derivers it is handed (Writer), one pack
// file per deriver and classify under DATASET/derived/. Each entry is kept
// with the trace file's run id and attempt, the size and xxhash64 of the
// bytes it was made of, the file's stamp then (wholefile.Stamp) and the
// run's group (trace.GroupOf).
//
// A stage reads its entries through a Lookup (Regroup makes one per
// pass): a run whose trace still has the stamp it was read with is served
// without reading the trace, else one whose bytes hash to the bytes read,
// else the run is decoded. A stage that orders its runs by the groups the
// store holds, to spare opening every trace for its run_start, is told
// (ErrRegroup) when a decoded run's group is no longer the stored one,
// and Regroup runs the pass again with every group read from its trace.
package derivedcache
