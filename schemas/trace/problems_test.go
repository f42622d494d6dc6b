package trace

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestProblems: a file's bad lines, joined by the reader, are one entry
// each, whether listed in full (classify, stats) or up to a limit with the
// rest counted (dedupe, export).
func TestProblems(t *testing.T) {
	read := errors.Join(
		fmt.Errorf("runs/a.jsonl:2: not valid JSON"),
		fmt.Errorf("runs/a.jsonl:5: unknown record type"),
		fmt.Errorf("runs/a.jsonl:9: not valid UTF-8 (byte 3)"),
	)
	want := []string{"runs/a.jsonl:2: not valid JSON", "runs/a.jsonl:5: unknown record type", "runs/a.jsonl:9: not valid UTF-8 (byte 3)"}
	var all Problems
	all.Add(read)
	if !slices.Equal(all, want) {
		t.Errorf("Add = %q, want %q", all, want)
	}
	var some Problems
	left := some.AddAtMost(read, 2)
	left += some.AddAtMost(errors.New("runs/b.jsonl:1: no run_start record"), 2)
	if !slices.Equal(some, want[:2]) || left != 2 {
		t.Errorf("AddAtMost = %q, %d left; want %q, 2 left", some, left, want[:2])
	}
}
