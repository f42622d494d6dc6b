package suite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Run-to-run noise in a suite's output. The output is shown to the model
// and recorded in its prompts, which are hashed and de-duplicated into
// training data: two runs of the same suite on the same code must read the
// same, and the model must never see the harness's own paths.
var (
	// pytest's line naming its --junitxml file, which lives in a temporary
	// directory of the harness: "--- generated xml file: /tmp/.../report.xml ---".
	volatileJUnitLine = regexp.MustCompile(`(?m)^.*generated xml file: .*\n?`)
	// A run's duration: pytest's "2 passed in 0.47s (0:00:00)", unittest's
	// "Ran 4 tests in 0.012s".
	volatileRanIn = regexp.MustCompile(`(?m)(\d+ [a-z]+|no tests ran|^Ran \d+ tests?) in \d+(?:\.\d+)?s(?: \(\d+:\d{2}:\d{2}(?:\.\d+)?\))?`)
	// go test's "--- FAIL: TestX (0.00s)" and "ok  \tpkg\t0.017s".
	volatileGoTestTime = regexp.MustCompile(`(?m)^(\s*--- (?:PASS|FAIL|SKIP): \S+) \(\d+(?:\.\d+)?s\)$`)
	volatileGoPkgTime  = regexp.MustCompile(`(?m)^((?:ok|FAIL)\s+\S+)\s+\d+(?:\.\d+)?s$`)
	// A Go stack's addresses and goroutine numbers.
	volatileGoOffset    = regexp.MustCompile(`(?m) \+0x[0-9a-f]+$`)
	volatileGoAddress   = regexp.MustCompile(`0x[0-9a-f]{6,}\??`)
	volatileGoroutineID = regexp.MustCompile(`(?m)^goroutine \d+ \[`)
	// A temporary directory the harness made ("pyharness-junit-895294298",
	// "pyharness-ws-1234"), wherever else it shows.
	volatileHarnessTemp = regexp.MustCompile(regexp.QuoteMeta(filepath.Clean(os.TempDir())) + `/pyharness-[a-z]+-\d+`)
)

// quietVolatile removes run-to-run noise from a suite's output: the
// repository's absolute paths (a copy in a fresh temporary directory for
// every run) become relative, pytest's line naming its report file goes,
// durations go ("1 failed, 1 passed in 0.47s" reads "1 failed, 1
// passed"), and so do a Go stack's addresses. What a test printed itself
// is kept.
func quietVolatile(out string, rp repoPaths) string {
	for _, root := range rp.roots {
		out = strings.ReplaceAll(out, root+string(filepath.Separator), "")
	}
	// Each pattern runs only where its literal part is: a regexp
	// replacement copies the whole output even when nothing matches.
	for _, q := range volatileQuieting {
		if strings.Contains(out, q.literal) {
			out = q.re.ReplaceAllString(out, q.repl)
		}
	}
	return out
}

var volatileQuieting = []struct {
	literal string
	re      *regexp.Regexp
	repl    string
}{
	{"generated xml file: ", volatileJUnitLine, ""},
	{" in ", volatileRanIn, "$1"},
	{"--- ", volatileGoTestTime, "$1"},
	{"\t", volatileGoPkgTime, "$1"},
	{" +0x", volatileGoOffset, ""},
	{"0x", volatileGoAddress, "0x…"},
	{"goroutine ", volatileGoroutineID, "goroutine ["},
	{"/pyharness-", volatileHarnessTemp, "$$TMPDIR"},
}
