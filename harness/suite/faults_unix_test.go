//go:build unix

package suite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The suite rows of the fault matrix that the other tests of this package
// do not cover already: a suite that prints fifty megabytes, and suites
// that leave processes behind when they exit on their own (the hung suite's
// children are TestTimeoutKillsTheProcessGroup's).
func TestSuiteFaults(t *testing.T) {
	requirePython(t)
	tests := []struct {
		name  string
		files map[string]string
		check func(t *testing.T, dir string, res *Result)
	}{
		{
			name: "prints fifty megabytes",
			files: map[string]string{
				"test_loud.py": "import sys, unittest\n\nclass LoudTest(unittest.TestCase):\n" +
					"    def test_loud(self):\n        for _ in range(50):\n            sys.stdout.write('y' * (1 << 20))\n\n" +
					"    def test_fails(self):\n        self.assertEqual('counted', 'after fifty megabytes')\n",
			},
			check: func(t *testing.T, dir string, res *Result) {
				if got, want := tallyOf(res), (tally{Ran: 2, Passed: 1, Failed: 1, Exit: 1}); got != want {
					t.Errorf("counts = %+v, want %+v: the summary printed after the flood was not read", got, want)
				}
				if res.OutputBytes < 50<<20 {
					t.Errorf("OutputBytes = %d, want at least 50 MiB", res.OutputBytes)
				}
				if len(res.Output) > defaultOutputCap+100 {
					t.Errorf("kept %d bytes of output, want at most the cap %d", len(res.Output), defaultOutputCap)
				}
				checkContains(t, "FirstFailure()", res.FirstFailure(), "after fifty megabytes")
			},
		},
		{
			name: "passes and leaves a background process",
			files: map[string]string{
				"test_spawn.py": `import subprocess, unittest

class SpawnTest(unittest.TestCase):
    def test_spawn(self):
        child = subprocess.Popen(["sleep", "1000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open("child.pid", "w") as f:
            f.write(str(child.pid))
`,
			},
			check: func(t *testing.T, dir string, res *Result) {
				if !res.Passed() {
					t.Errorf("the suite did not pass: %s", res.FirstFailure())
				}
				checkGone(t, dir)
			},
		},
		{
			name: "passes and leaves a background process that holds its output open",
			files: map[string]string{
				"test_spawn.py": `import subprocess, unittest

class SpawnTest(unittest.TestCase):
    def test_spawn(self):
        child = subprocess.Popen(["sleep", "1000"])
        with open("child.pid", "w") as f:
            f.write(str(child.pid))
`,
			},
			check: func(t *testing.T, dir string, res *Result) {
				if !res.Passed() {
					t.Errorf("the suite did not pass: %s", res.FirstFailure())
				}
				checkGone(t, dir)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			res, err := Runner{Kind: Unittest}.Run(context.Background(), dir)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			tt.check(t, dir, res)
		})
	}
}

// checkGone reads the pid a test recorded in dir/child.pid and fails unless
// that process is gone (or a zombie) soon after the suite returned.
func checkGone(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatalf("the test did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d outlived the suite that started it", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesWith lists the pids of live processes whose command line holds
// marker, as seen from this PID namespace.
func processesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if processAlive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// uniqueSleep is a sleep duration no other process on the machine is
// likely to have on its command line.
func uniqueSleep() string {
	return fmt.Sprintf("4%03d.%d", time.Now().UnixNano()%1000, os.Getpid())
}
