// Package needs is how a test says it needs a tool from outside Go (python3,
// pytest, node with DuckDB, Chromium): on a developer's machine without the
// tool the test is skipped with the command that installs it; where the
// environment variable PYHARNESS_NO_SKIP is set (CI sets it), a missing tool
// fails the test instead, so a broken install step can never turn CI's most
// important tests into silent skips.
package needs
