//go:build unix

package suite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hung suite's children go with it: the runner kills the process group,
// not only the interpreter it started.
func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	requirePython(t)
	tests := []struct {
		name string
		test string
	}{
		{
			name: "child process started by the test",
			test: `import os, subprocess, time, unittest

class SpawnTest(unittest.TestCase):
    def test_spawn(self):
        child = subprocess.Popen(["sleep", "1000"])
        with open("child.pid", "w") as f:
            f.write(str(child.pid))
        time.sleep(1000)
`,
		},
		{
			name: "grandchild detached from the shell that started it",
			test: `import os, subprocess, time, unittest

class SpawnTest(unittest.TestCase):
    def test_spawn(self):
        subprocess.run(["sh", "-c", "sleep 1000 & echo $! > child.pid"])
        time.sleep(1000)
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"test_spawn.py": tt.test})
			res, err := Runner{Kind: Unittest, Timeout: 3 * time.Second}.Run(context.Background(), dir)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if !res.Counts.TimedOut {
				t.Fatalf("TimedOut = false, want true")
			}
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
					t.Fatalf("child %d outlived the killed suite", pid)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// processAlive reports whether pid exists and is not a zombie waiting for
// a parent (in a container, PID 1 may never reap it).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the command name in parentheses: "123 (sleep) Z ...".
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
