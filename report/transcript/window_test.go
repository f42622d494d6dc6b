package transcript

import (
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// A READ's step line names its window, so a windowed read does not look
// like a repeated read of the whole file.
func TestVerbPathNamesTheReadWindow(t *testing.T) {
	tests := []struct {
		reply string
		verb  string
		path  string
		want  string
	}{
		{"READ toolz/itertoolz.py:1020-1057", "READ", "toolz/itertoolz.py", "READ toolz/itertoolz.py:1020-1057"},
		{"READ toolz/itertoolz.py", "READ", "toolz/itertoolz.py", "READ toolz/itertoolz.py"},
		{"RUN tests", "RUN", "", "RUN"},
		{"", "", "", "(no action)"},
	}
	for _, tt := range tests {
		turn := &schemas.Turn{Reply: schemas.Reply{Content: tt.reply}, Action: schemas.Action{Verb: tt.verb, Path: tt.path}}
		if got := verbPath(turn); got != tt.want {
			t.Errorf("verbPath(%q) = %q, want %q", tt.reply, got, tt.want)
		}
	}
}
