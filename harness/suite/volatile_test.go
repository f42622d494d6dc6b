package suite

import (
	"os"
	"path/filepath"
	"testing"
)

func TestQuietVolatile(t *testing.T) {
	root := filepath.Join(os.TempDir(), "pyharness-ws-123456")
	rp := repoPaths{roots: []string{root}}
	tmp := filepath.Clean(os.TempDir())
	tests := []struct{ name, in, want string }{
		{"pytest's report file line goes",
			"tests/test_slug.py:9: ModuleNotFoundError\n-------- generated xml file: " + tmp + "/pyharness-junit-3646999849/report.xml --------\n=== short test summary info ===\n",
			"tests/test_slug.py:9: ModuleNotFoundError\n=== short test summary info ===\n"},
		{"pytest -q's summary", "1 failed, 1 passed in 0.47s\n", "1 failed, 1 passed\n"},
		{"pytest's summary with warnings and a clock", "===== 1 failed, 3 passed, 2 warnings in 19.25s (0:00:19) =====\n", "===== 1 failed, 3 passed, 2 warnings =====\n"},
		{"pytest with nothing to run", "no tests ran in 0.01s\n", "no tests ran\n"},
		{"unittest's count", "----\nRan 4 tests in 0.012s\n\nFAILED (failures=1)\n", "----\nRan 4 tests\n\nFAILED (failures=1)\n"},
		{"the repository's copy", `  File "` + root + `/tests/test_slug.py", line 9, in test_x` + "\n", `  File "tests/test_slug.py", line 9, in test_x` + "\n"},
		{"another directory of the harness", "home is " + tmp + "/pyharness-git-42/x\n", "home is $TMPDIR/x\n"},
		{"go test's times", "--- FAIL: TestAdd (0.00s)\n    --- FAIL: TestTable/small (0.12s)\nFAIL\nFAIL\texample.com/calc\t0.017s\nok  \texample.com/calc/store\t1.2s\n",
			"--- FAIL: TestAdd\n    --- FAIL: TestTable/small\nFAIL\nFAIL\texample.com/calc\nok  \texample.com/calc/store\n"},
		{"a Go stack", "goroutine 21 [running]:\nexample.com/calc/store.TestPut(0x3189a080c248?)\n\t/x/store_test.go:6 +0x2e\n",
			"goroutine [running]:\nexample.com/calc/store.TestPut(0x…)\n\t/x/store_test.go:6\n"},
		{"what a test printed is kept", "AssertionError: 'took 3 s' != 'took 4 s'\n", "AssertionError: 'took 3 s' != 'took 4 s'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quietVolatile(tt.in, rp); got != tt.want {
				t.Errorf("quietVolatile(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}
