package needs

import (
	"fmt"
	"os"
	"testing"
)

// NoSkipEnv is the environment variable that turns a missing tool from a
// skip into a failure.
const NoSkipEnv = "PYHARNESS_NO_SKIP"

// Strict reports whether a missing tool fails tests here.
func Strict() bool { return os.Getenv(NoSkipEnv) != "" }

// Missing ends the test for a tool that is not there: a skip, or a failure
// when Strict. format says what is missing and how to install it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Strict() {
		t.Fatalf("%s (%s is set: a test that needs a tool must not skip here)", msg, NoSkipEnv)
	}
	t.Skip(msg)
}
