package sfttokens_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/needs"
)

var (
	torchOnce   sync.Once
	torchPython string
)

// torch is a Python interpreter that imports PyTorch: $PYHARNESS_PYTHON,
// else Debian's /usr/bin/python3 (python3-torch installs there), else
// python3 on PATH.
func torch(t *testing.T) string {
	t.Helper()
	torchOnce.Do(func() {
		for _, p := range []string{os.Getenv("PYHARNESS_PYTHON"), "/usr/bin/python3", "python3"} {
			if p == "" {
				continue
			}
			if err := exec.Command(p, "-c", "import torch").Run(); err == nil {
				torchPython = p
				return
			}
		}
	})
	if torchPython == "" {
		needs.Missing(t, "no Python with PyTorch (apt-get install -y python3-torch)")
	}
	return torchPython
}

var scripts = filepath.Join("..", "..", "scripts")

// TestTrainerPython runs the trainer's own checks in real PyTorch: its
// gradients against finite differences (masked and unmasked), the mask,
// and the adapter file read back.
func TestTrainerPython(t *testing.T) {
	py := torch(t)
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_train_lora.py")
	cmd.Dir = scripts
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest test_train_lora.py: %v\n%s", err, out)
	}
	for _, name := range []string{"test_masked", "test_unmasked", "test_round_trip"} {
		if !strings.Contains(string(out), name) {
			t.Errorf("the run did not report %s:\n%s", name, out)
		}
	}
}
