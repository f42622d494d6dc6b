// Package stats summarises a trace directory or a classified dataset in the
// tables the project's write-ups use: runs worked and failed, why they
// failed, failures by tier, worked per pass, turns and the share of each
// turn kind, what the harness tells the model most often, the failures
// that claimed DONE, and the runs settled with no model step. A summary
// prints as aligned text or is written as JSON, and feeds the HTML report.
package stats
