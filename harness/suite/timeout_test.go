package suite

import (
	"context"
	"testing"
	"time"
)

var timeoutCases = []struct {
	name  string
	kind  Kind
	needs func(*testing.T)
	files map[string]string
}{
	{
		name: "unittest that sleeps", kind: Unittest, needs: func(t *testing.T) { requirePython(t) },
		files: map[string]string{
			"test_hang.py": "import time, unittest\n\nclass HangTest(unittest.TestCase):\n    def test_hang(self):\n        time.sleep(1000)\n",
		},
	},
	{
		name: "pytest that sleeps", kind: Pytest, needs: requirePytest,
		files: map[string]string{
			"test_hang.py": "import time\n\ndef test_hang():\n    time.sleep(1000)\n",
		},
	},
	{
		name: "module that hangs on import", kind: Unittest, needs: func(t *testing.T) { requirePython(t) },
		files: map[string]string{
			"slow.py":      "while True:\n    pass\n",
			"test_slow.py": "import unittest\nimport slow\n",
		},
	},
	{
		name: "go test that sleeps", kind: GoTest, needs: requireGo,
		files: map[string]string{
			"go.mod":       goMod,
			"hang_test.go": "package calc\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHang(t *testing.T) { time.Sleep(1000 * time.Second) }\n",
		},
	},
}

func TestTimeout(t *testing.T) {
	for _, tt := range timeoutCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.needs(t)
			dir := writeTree(t, tt.files)
			res, err := Runner{Kind: tt.kind, Timeout: 3 * time.Second}.Run(context.Background(), dir)
			if err != nil {
				t.Fatalf("Run returned an error for a suite that hung: %v", err)
			}
			logOnFailure(t, res)
			if !res.Counts.TimedOut {
				t.Errorf("TimedOut = false, want true (counts %+v)", res.Counts)
			}
			if res.Counts.NoTests {
				t.Error("NoTests = true for a suite that was killed, want false")
			}
			if res.Passed() {
				t.Error("Passed() = true for a suite that timed out")
			}
			if got, want := res.FirstFailure(), "timed out after 3s"; got != want {
				t.Errorf("FirstFailure() = %q, want %q", got, want)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	requirePython(t)
	files := map[string]string{
		"test_hang.py": "import time, unittest\n\nclass HangTest(unittest.TestCase):\n    def test_hang(self):\n        time.sleep(1000)\n",
	}
	tests := []struct {
		name          string
		ctx           func() (context.Context, context.CancelFunc)
		wantCancelled bool
		wantTimedOut  bool
		wantFirst     string
	}{
		{
			name: "caller cancels",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(time.Second, cancel)
				return ctx, cancel
			},
			wantCancelled: true,
			wantFirst:     "cancelled before the suite finished",
		},
		{
			name: "caller's deadline comes before the runner's timeout",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 2*time.Second)
			},
			wantTimedOut: true,
			wantFirst:    "timed out after",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tt.ctx()
			defer cancel()
			res, err := Runner{Kind: Unittest}.Run(ctx, writeTree(t, files))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if res.Cancelled != tt.wantCancelled || res.Counts.TimedOut != tt.wantTimedOut {
				t.Errorf("Cancelled, TimedOut = %v, %v; want %v, %v", res.Cancelled, res.Counts.TimedOut, tt.wantCancelled, tt.wantTimedOut)
			}
			if res.Passed() {
				t.Error("Passed() = true for a suite that was stopped")
			}
			checkContains(t, "FirstFailure()", res.FirstFailure(), tt.wantFirst)
		})
	}
}
