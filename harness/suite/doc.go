// Package suite runs a repository's test suite and reads its results
// honestly: counts come from what the runner printed, not from the exit code
// alone, so a suite that ran nothing, a test module that did not import and a
// suite that hung are each reported as what they are, never as a pass.
//
// Three runners are supported: Python's unittest, pytest and go test. A
// Runner starts the suite in its own process group with a timeout and keeps a
// bounded head and tail of its output; the parsers for each runner turn that
// output into schemas.SuiteCounts and a list of failures, each with the test,
// the repository file and line the traceback points at, and the first line of
// the error. The default pytest and go test commands also ask the runner for
// its own report (a JUnit XML file, go test -json events), and the counts
// come from it when it is complete; the text is read for the failures, and
// alone for custom commands and unittest.
package suite
