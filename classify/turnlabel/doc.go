// Package turnlabel says what the model was sent at a turn: the opening, a
// tool result, a refusal or nudge (with the guard's code), or a parse
// failure. A turn recorded with its kind keeps it; one recorded without
// (older traces, other harnesses' turns) is labelled by text rules that
// read the harness's message.
//
// classify writes the labels into its dataset, and export and transcript
// label turns with the same rules; this package is kept apart from
// classify's Parquet store so that those readers do not pull it in.
package turnlabel
