package collect

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// A manifest's check imports a src layout's package by its own name, as
// the suite does; in a flat repository nothing is added.
func TestCheckImportsASrcLayout(t *testing.T) {
	py, err := suite.FindPython(context.Background(), "", false)
	if err != nil {
		needs.Missing(t, "%v (apt-get install -y python3)", err)
	}
	for _, tt := range []struct {
		name   string
		file   string
		passed bool
	}{
		{"src layout", "src/stats/__init__.py", true},
		{"package under another directory", "lib/stats/__init__.py", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			p := filepath.Join(ws, filepath.FromSlash(tt.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("def mean(xs):\n    return sum(xs) / len(xs)\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := commandCheck{command: py + ` -c "from stats import mean; assert mean([1, 3]) == 2"`}.Check(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.passed {
				t.Errorf("check passed: %v, want %v (%s)", res.Passed, tt.passed, res.FirstFailure)
			}
		})
	}
}
