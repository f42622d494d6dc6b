package transcript

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// CompareOptions choose how two runs are laid side by side.
type CompareOptions struct {
	Color bool
	// Width is the line width to fill; 0 means 160.
	Width int
}

// Divergence is the first step at which two runs part, and why.
type divergence struct {
	// Step is 0 when the runs never part.
	Step   int
	Reason string
}

// firstDivergence finds the first step at which two runs part: the prompt
// sent differs, the draft differs, or it was read or answered otherwise.
// A run that stops earlier parts at the step the other goes on to.
func firstDivergence(a, b *Run) divergence {
	for i := 0; i < max(len(a.Turns), len(b.Turns)); i++ {
		if i >= len(a.Turns) || i >= len(b.Turns) {
			short := "A"
			if i >= len(b.Turns) {
				short = "B"
			}
			return divergence{Step: i + 1, Reason: fmt.Sprintf("run %s stopped before this step", short)}
		}
		ta, tb := a.Turns[i], b.Turns[i]
		switch {
		case ta.Sent.PromptHash != tb.Sent.PromptHash:
			return divergence{Step: ta.Step, Reason: "the prompts sent differ"}
		case ta.Reply.Content != tb.Reply.Content:
			return divergence{Step: ta.Step, Reason: "the drafts differ"}
		case ta.Action.Verb != tb.Action.Verb || ta.Action.Path != tb.Action.Path:
			return divergence{Step: ta.Step, Reason: "the drafts were read as different actions"}
		case ta.Outcome.Status != tb.Outcome.Status || ta.Outcome.Code != tb.Outcome.Code:
			return divergence{Step: ta.Step, Reason: "the outcomes differ"}
		}
	}
	return divergence{}
}

// WriteCompare lays two runs side by side, step by step, and marks the
// first step at which they part.
func WriteCompare(ctx context.Context, w io.Writer, a, b *Run, o CompareOptions) error {
	width := o.Width
	if width <= 0 {
		width = 160
	}
	col := max((width-3)/2, 30)
	p := &printer{w: w, o: Options{Color: o.Color}}
	row := func(left, right string) {
		p.printf("%s │ %s\n", pad(left, col), clip(right, col))
	}
	row(p.paint(cBold, "A "+a.File.RunID), p.paint(cBold, "B "+b.File.RunID))
	row("case "+a.Start.CaseID+fmt.Sprintf(", pass %d", a.Start.Pass), "case "+b.Start.CaseID+fmt.Sprintf(", pass %d", b.Start.Pass))
	row("model "+a.Start.Model.Spec(), "model "+b.Start.Model.Spec())
	row(endLine(a), endLine(b))
	d := firstDivergence(a, b)
	if a.Start.CaseID != b.Start.CaseID {
		p.printf("%s\n", p.paint(cWarn, fmt.Sprintf("note: the runs are of different cases (%s, %s)", a.Start.CaseID, b.Start.CaseID)))
	}
	if d.Step == 0 {
		p.printf("the runs do not part: every step sent, drafted, read and ended alike\n")
	} else {
		p.printf("first divergence at step %d: %s\n", d.Step, d.Reason)
	}
	sa, sb := a.steps(), b.steps()
	for i := 0; i < max(len(sa), len(sb)); i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("write comparison: %w", err)
		}
		step := i + 1
		mark := "  "
		if step == d.Step {
			mark = p.paint(cWarn, "◆ ")
		}
		label := fmt.Sprintf("── step %d ", step)
		p.printf("%s%s\n", mark, p.paint(cBold, label+strings.Repeat("─", max(width-2-visible(label), 4))))
		left, right := stepLines(sa, i), stepLines(sb, i)
		for k := 0; k < max(len(left), len(right)); k++ {
			row(at(left, k), at(right, k))
		}
	}
	if p.err != nil {
		return fmt.Errorf("write comparison: %w", p.err)
	}
	return nil
}

// stepLines is what one column shows of step i.
func stepLines(steps []step, i int) []string {
	if i >= len(steps) {
		return []string{"(no such step)"}
	}
	s := steps[i]
	out := []string{"sent    " + sentLine(s.Turn)}
	draft := strings.Split(strings.TrimSpace(s.Reply.Content), "\n")
	if len(draft) > 3 {
		draft = append(draft[:3], fmt.Sprintf("… %d more line(s)", len(draft)-3))
	}
	for k, l := range draft {
		label := "        "
		if k == 0 {
			label = "draft   "
		}
		out = append(out, label+l)
	}
	out = append(out, "read    "+actionLine(s.Action), "outcome "+outcomeLine(s.Outcome))
	if fb := firstLine(s.Feedback); fb != "" {
		out = append(out, "told    "+fb)
	}
	return out
}

func endLine(r *Run) string {
	if r.End == nil {
		return "no run_end: incomplete"
	}
	e := r.End
	s := string(e.Verdict)
	if e.FailureClass != "" {
		s += " (" + string(e.FailureClass) + ")"
	}
	s += fmt.Sprintf(", stop %s, %d steps", e.StopReason, e.Steps)
	if e.ClaimedDone {
		s += ", claimed DONE"
	}
	if e.Reason != "" {
		s += "; why: " + e.Reason
	}
	return s
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// clip cuts s to n visible characters (ANSI sequences do not count).
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\t", "    ")
	if visible(s) <= n {
		return s
	}
	var b strings.Builder
	count := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			b.WriteString(s[i : i+j+1])
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if count == n-1 {
			b.WriteString("…")
			if strings.Contains(s, "\x1b[") {
				b.WriteString("\x1b[0m")
			}
			break
		}
		b.WriteRune(r)
		count++
		i += size
	}
	return b.String()
}

// pad clips s and fills it with spaces to n visible characters.
func pad(s string, n int) string {
	s = clip(s, n)
	return s + strings.Repeat(" ", max(n-visible(s), 0))
}

// visible counts the characters of s a terminal shows.
func visible(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n++
		i += size
	}
	return n
}
