package gitrun

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), dir, nil, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), dir, nil, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(out) != "true" {
		t.Errorf("rev-parse: %q, %v; want true", out, err)
	}
	// A failure names the command and carries what git said.
	_, err = Run(context.Background(), dir, nil, "rev-parse", "--verify", "no-such-ref")
	if err == nil || !strings.Contains(err.Error(), "git rev-parse --verify no-such-ref") || !strings.Contains(err.Error(), "fatal") {
		t.Errorf("a bad ref: %v; want the command and git's message", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, dir, nil, "status"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v; want context.Canceled", err)
	}
}
