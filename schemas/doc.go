// Package schemas defines the records of the pyharness trace format,
// schema "pyharness.trace/v1": one JSON object a line, one file an attempt of
// a run, told apart by a "type" field (run_start, turn, run_end).
//
// The JSON field names are a contract with later stages and outside tools:
// fields may be added (raising SchemaMinor), never renamed. The published
// JSON Schema, trace.v1.schema.json, is generated from these types and a
// test fails when the two drift apart.
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
