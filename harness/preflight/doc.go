// Package preflight checks, before a long job, that what the job needs is
// there: the model server and the model, Python interpreters (and which one
// has pytest), git, and free disk — and says plainly what to do when not.
package preflight
