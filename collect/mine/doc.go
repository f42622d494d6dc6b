// Package mine makes coding tasks from a Python repository with tests and
// writes them as a collect manifest: single-site mutations of the
// repository's own code that make some of its passing tests fail, and
// commits of its history whose code change, undone, makes the commit's
// tests fail.
//
// Mining works in a private clone under the output directory (the source
// repository is only read); each task's starting state is a commit of
// that clone, named by the entry's repo and commit. A candidate is tried
// on the tests that ran the edited function (a coverage map made once per
// repository), then on the whole suite, and last through the harness
// itself: its reference script (the inverse edit, as the harness's own
// drafts) must end `worked` and a do-nothing draft `failed`. The task text
// is written from the failing tests alone, and never holds a line of the
// fix. The same seed gives the same tasks.
//
// The Python side (mutation sites from ast positions, fix hunks, and a
// pytest plugin that selects tests, reports outcomes and records which
// functions each test ran) is pyharness_mine.py, run with the repository's
// interpreter.
package mine
