package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
)

// overheadFiles is the number of modules in the fixture: one READ or SKILL
// outline per step, never the same twice, so no guard refuses a step.
const overheadFiles = 24

func overheadRepo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range overheadFiles {
		var src strings.Builder
		for f := range 12 {
			fmt.Fprintf(&src, "def f%d_%d(x):\n    \"\"\"Return x plus %d.\"\"\"\n    return x + %d\n\n\n", i, f, f, f)
		}
		write(fmt.Sprintf("m%02d.py", i), src.String())
	}
	write("tests/__init__.py", "")
	write("tests/test_m.py", "import unittest\nimport m00\n\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(m00.f0_1(1), 2)\n")
	return dir
}

// overheadRun runs steps READ and SKILL outline steps with the scripted
// backend and returns how long the run took.
func overheadRun(b *testing.B, repo string, steps int) time.Duration {
	b.Helper()
	var script strings.Builder
	for i := range steps {
		d := fmt.Sprintf("READ m%02d.py", i/2)
		if i%2 == 1 {
			d = fmt.Sprintf("SKILL outline m%02d.py", i/2)
		}
		line, _ := json.Marshal(map[string]string{"content": d})
		script.Write(line)
		script.WriteByte('\n')
	}
	m, err := scripted.NewFromReader(strings.NewReader(script.String()), "overhead")
	if err != nil {
		b.Fatal(err)
	}
	cfg := harness.Config{RunID: "overhead", OutDir: b.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Read the modules.", Targets: []string{"m00.py"}},
		MaxSteps: steps, Model: schemas.Model{Backend: "scripted", Name: "overhead"}}
	start := time.Now()
	res, err := harness.Run(context.Background(), cfg, m)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Steps) != steps {
		b.Fatalf("%d steps recorded, want %d", len(res.Steps), steps)
	}
	return time.Since(start)
}

// BenchmarkHarnessStep is the harness's own cost of a step with the
// scripted backend: building the prompt, parsing the draft, applying a
// READ or SKILL outline, and recording the turn (its write and fsync).
// Each iteration runs a 2-step and a 2+overheadFiles-step run on the same
// fixture; the difference, divided by the extra steps, leaves out what
// every run pays once (the workspace copy, the baseline suite run, the
// verdict), so no suite run and no model call is in µs/step.
func BenchmarkHarnessStep(b *testing.B) {
	if testing.Short() {
		b.Skip("runs Python")
	}
	repo := overheadRepo(b)
	const short, long = 2, 2 + overheadFiles
	var dShort, dLong []time.Duration
	for b.Loop() {
		dShort = append(dShort, overheadRun(b, repo, short))
		dLong = append(dLong, overheadRun(b, repo, long))
	}
	// Medians: on a shared machine one slow run in a few would otherwise
	// decide the difference (run with -benchtime 10x or more).
	perStep := float64((median(dLong) - median(dShort)).Microseconds()) / float64(long-short)
	b.ReportMetric(perStep, "µs/step")
	b.ReportMetric(float64(median(dShort).Microseconds()), "µs/run-fixed")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
