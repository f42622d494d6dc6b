// Package transcript turns one run's trace into something a person reads
// top to bottom: the head (case, model, verdict), each turn (what was sent,
// the model's draft, how it was read, what came of it), and the tail
// (suites, checks, writes, patch). It finds a run by id, prefix, file, or
// case and pass; writes the transcript as text, as an HTML page, or as the
// records themselves; and lays two runs of one case side by side, step by
// step, marking the first step where they part.
package transcript
