package needs_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// TestMissingFailsWhenStrict runs a test that calls Missing in a child
// process, with and without the variable, and reads how it ended.
func TestMissingFailsWhenStrict(t *testing.T) {
	if os.Getenv("NEEDS_CHILD") != "" {
		needs.Missing(t, "frobnicator is not installed (apt-get install frobnicator)")
		return
	}
	for _, tt := range []struct {
		name   string
		strict bool
		want   string
	}{
		{"developer machine: a skip", false, "--- SKIP"},
		{"CI: a failure", true, "--- FAIL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMissingFailsWhenStrict$", "-test.v")
			cmd.Env = append(os.Environ(), "NEEDS_CHILD=1", needs.NoSkipEnv+"=")
			if tt.strict {
				cmd.Env = append(cmd.Env, needs.NoSkipEnv+"=1")
			}
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "frobnicator is not installed") {
				t.Errorf("child printed:\n%s\nwant %q and the reason", out, tt.want)
			}
		})
	}
}
