package learn_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/pyharness/pyharness/chattemplate"
	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/draft/learn"
	"github.com/pyharness/pyharness/schemas"
)

func TestZZDump(t *testing.T) {
	f, _ := os.Create("/tmp/miss38.txt")
	defer f.Close()
	for _, file := range templateFiles(t) {
		tp, _ := chattemplate.Load(file)
		syn := learn.Learn(tp)
		if !rendersCalls(tp) || syn.Calls == nil {
			continue
		}
		for i, c := range harnessCalls() {
			want, _ := draft.Parse("", []schemas.ToolCall{c})
			text, ok := callReply(t, tp, syn, toCall(c, "c"+string(rune('A'+i))+"bcdefgh"))
			if !ok {
				continue
			}
			got, err := draft.Parse(text, nil)
			if err == nil && same(got, want) {
				continue
			}
			fmt.Fprintf(f, "=== %s %s\n--- reply:\n%s\n--- got %+v err %v\n--- want %+v\n", name(file), c.Name, text, got, err, want)
		}
	}
}
