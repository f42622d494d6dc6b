// Package version says which build of pyharness is running, for the
// harness block of every run_start record and for `pyharness version`.
package version
