// Package schemas defines the records of the pyharness trace format,
// schema "pyharness.trace/v1": one JSON object a line, one file an attempt of
// a run, told apart by a "type" field (run_start, turn, run_end).
//
// The JSON field names are a contract with later stages and outside tools:
// fields may be added (raising SchemaMinor), never renamed. The published
// JSON Schema, trace.v1.schema.json, is generated from these types and a
// test fails when the two drift apart.
//
// This package encodes a record (EncodeRecord, with encoding/json) and says
// which schema versions a reader accepts (CheckSchema); decoding a line is
// the trace package's. This package is the module's ground floor, imported
// by nearly every package and test, so it links no decoder beyond
// encoding/json.
//
// The values a record holds from a fixed set (kinds, statuses, guard and
// outcome codes, verdicts, failure classes, stop reasons) are typed strings
// declared here, in vocab.go: the harness writes them and every later stage
// names them from this package, none from the harness. The words about a
// run that several stages say (run_vocabulary.go) are here too, each once:
// the backend names and which are hand-written (Model.HandWritten), the
// model's label and spec (Model.Label, Model.Spec), the incomplete verdict
// and which verdicts a score counts (Verdict.Judged).
package schemas
