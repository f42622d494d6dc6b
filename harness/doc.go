// Package harness drives one model through one task on one Python
// repository, step by step, and records every turn as a trace.
package harness
