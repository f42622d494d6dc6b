// Package replay is the model backend that re-drives the harness with the
// drafts of a recorded run: each Chat returns the next model-step reply of
// the trace, so today's harness can be tried on yesterday's model output
// without a model. Recorded exposes those turns so the harness can report
// where today's run took a different path.
package replay
