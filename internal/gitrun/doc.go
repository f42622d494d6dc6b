// Package gitrun runs git for the stages that read and write repositories
// (collect's manifest entries, the task miner's clone, the harness's
// workspace): one way to start it, with no terminal prompt and the C
// locale, and one shape of error that says which command failed and what
// git printed.
package gitrun
