package transcript

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// Options choose what a text transcript shows.
type Options struct {
	// Color adds ANSI colours; the caller decides (a terminal, NO_COLOR).
	Color bool
	// Full prints every message and draft whole instead of folded.
	Full bool
	// Patch prints the run's patch at the end, as a diff.
	Patch bool
}

// foldLines is how many lines of a long body a folded transcript keeps.
const foldLines = 4

// WriteText writes the run as a transcript a person reads top to bottom.
func WriteText(ctx context.Context, w io.Writer, r *Run, o Options) error {
	p := &printer{w: w, o: o}
	p.head(r)
	prev := ""
	for _, s := range r.steps() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("write transcript: %w", err)
		}
		p.step(s, prev)
		prev = s.Feedback
	}
	p.tail(r)
	if p.err != nil {
		return fmt.Errorf("write transcript: %w", p.err)
	}
	return nil
}

// ANSI colours, by what they mark.
const (
	cBold   = "1"
	cDim    = "2"
	cGood   = "32"
	cBad    = "31"
	cWarn   = "33"
	cCode   = "36"
	cHunk   = "36"
	cHeader = "1"
)

type printer struct {
	w   io.Writer
	o   Options
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// paint wraps s in an ANSI colour when colour is on.
func (p *printer) paint(color, s string) string {
	if !p.o.Color || s == "" || color == "" {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}

// field prints one labelled line, the label in a fixed column.
func (p *printer) field(indent, label, value string) {
	p.printf("%s%-9s %s\n", indent, label, value)
}

func (p *printer) head(r *Run) {
	s := r.Start
	title := "run " + r.File.RunID
	if r.File.Attempt > 1 {
		title += fmt.Sprintf(" (attempt %d)", r.File.Attempt)
	}
	if r.End != nil && r.End.Stuck != nil {
		p.printf("%s\n", p.paint(cWarn, r.End.Stuck.Line()))
	}
	p.printf("%s\n", p.paint(cBold, title))
	p.field("", "trace", r.File.Path)
	if r.EarlierAttempts > 0 {
		p.field("", "set aside", fmt.Sprintf("%d earlier attempt(s) of this run id", r.EarlierAttempts))
	}
	what := s.CaseID
	if what == "" {
		what = "(no case: " + s.Source + ")"
	}
	p.field("", "case", fmt.Sprintf("%s  tier %d, pass %d, source %s", what, s.Tier, s.Pass, s.Source))
	p.block("", "task", s.Task, cDim)
	p.field("", "model", modelLine(s.Model))
	p.field("", "harness", harnessLine(s.Harness))
	p.field("", "verdict", p.verdictLine(r))
	if r.End != nil && r.End.Reason != "" {
		p.field("", "why", r.End.Reason)
	}
	for _, err := range r.Problems {
		p.field("", "problem", p.paint(cBad, err.Error()))
	}
	for _, err := range r.Warnings {
		p.field("", "warning", p.paint(cWarn, err.Error()))
	}
	p.printf("\n")
}

// verdictLine says how the run ended, or that it did not.
func (p *printer) verdictLine(r *Run) string {
	e := r.End
	if e == nil {
		return p.paint(cWarn, fmt.Sprintf("none: the trace has no run_end record (the run stopped after step %d)", len(r.Turns)))
	}
	return verdictLine(e, func(v string) string {
		switch schemas.Verdict(v) {
		case schemas.VerdictWorked:
			return p.paint(cGood, v)
		case schemas.VerdictFailed, schemas.VerdictError:
			return p.paint(cBad, v)
		}
		return p.paint(cWarn, v)
	})
}

// verdictLine says how a run ended: verdict, failure class, stop reason,
// steps and duration. paint marks the verdict.
func verdictLine(e *schemas.RunEnd, paint func(string) string) string {
	s := paint(string(e.Verdict))
	if e.FailureClass != "" {
		s += " (" + string(e.FailureClass) + ")"
	}
	s += fmt.Sprintf(", stop reason %s, %d steps (%d model steps), %s", e.StopReason, e.Steps, e.ModelSteps, time.Duration(e.DurationMS)*time.Millisecond)
	if e.ClaimedDone {
		s += ", claimed DONE"
	}
	if e.Error != "" {
		s += "; error: " + e.Error
	}
	return s
}

// modelLine names a run's model: backend, name, digest, options and the
// context it had.
func modelLine(m schemas.Model) string {
	s := m.Spec()
	if m.Digest != "" {
		s += " " + shortDigest(m.Digest)
	}
	o := m.Options
	s += fmt.Sprintf("; seed %d, temperature %s, num_ctx %d, num_predict %d", o.Seed, strconv.FormatFloat(o.Temperature, 'g', -1, 64), o.NumCtx, o.NumPredict)
	if o.Think {
		s += ", think"
	}
	if c := m.Context; c != nil {
		s += fmt.Sprintf("; effective context %d (from %s", c.Effective, c.Source)
		if c.Trained > 0 {
			s += fmt.Sprintf("; trained %d", c.Trained)
		}
		if c.InForce > 0 {
			s += fmt.Sprintf("; in force %d", c.InForce)
		}
		if !c.Sent {
			s += "; num_ctx not sent"
		}
		s += ")"
	} else if m.ContextLength > 0 {
		s += fmt.Sprintf("; trained context %d", m.ContextLength)
	}
	if m.Host != "" {
		s += "; host " + m.Host
	}
	return s
}

func shortDigest(d string) string {
	algo, hex, ok := strings.Cut(d, ":")
	if ok && len(hex) > 12 {
		return algo + ":" + hex[:12]
	}
	return d
}

// harnessLine names the build that recorded a run.
func harnessLine(h schemas.Harness) string {
	s := h.Version
	if h.Commit != "" {
		s += " (commit " + h.Commit
		if h.Dirty {
			s += ", dirty"
		}
		s += ")"
	}
	return s
}

// metricsLine is a turn's tokens and timings, the fields the server gave
// (an absent one is left out; a reported zero is shown). Every place that
// prints metrics goes through it, so a change to the Metrics type is fixed
// here.
func metricsLine(m schemas.Metrics) string {
	var parts []string
	count := func(name string, p *int) {
		if v, ok := schemas.Count(p); ok {
			parts = append(parts, fmt.Sprintf("%s %d tok", name, v))
		}
	}
	ms := func(name string, p *int64) {
		if v, ok := schemas.Count(p); ok {
			parts = append(parts, fmt.Sprintf("%s %d ms", name, v))
		}
	}
	count("prompt", m.PromptTokens)
	count("evaluated", m.PromptEvalTokens)
	count("cached", m.CachedTokens)
	count("output", m.OutputTokens)
	if m.TotalMS != 0 {
		parts = append(parts, fmt.Sprintf("total %d ms", m.TotalMS))
	}
	ms("load", m.LoadMS)
	ms("prompt eval", m.PromptEvalMS)
	ms("eval", m.EvalMS)
	ms("first token", m.TTFTMS)
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, ", ")
}

// stepMetricsLine is a turn's metrics and the harness's own estimate of
// the prompt.
func stepMetricsLine(t *schemas.Turn) string {
	s := metricsLine(t.Metrics)
	if t.Sent.PromptTokensEstimate > 0 {
		s += fmt.Sprintf("; the harness estimated the prompt at %d tok", t.Sent.PromptTokensEstimate)
	}
	return s
}

// sentLine says what the harness sent at a turn: its kind, and the code of
// a refusal or nudge.
func sentLine(t *schemas.Turn) string {
	s := string(t.Sent.Kind)
	if s == "" {
		s = "(no kind recorded)"
	}
	if t.Sent.Code != "" {
		s += " " + string(t.Sent.Code)
	}
	if t.Sent.Replaced {
		s += ", context rewritten (the whole prompt follows)"
	}
	return s
}

// verbPath is an action in brief: its verb and path.
func verbPath(t *schemas.Turn) string {
	a := t.Action
	if a.Verb == "" {
		return "(no action)"
	}
	return strings.TrimSpace(a.Verb + " " + a.Path + readWindow(t))
}

// readWindow is a READ's line window as the model asked for it
// (":1020-1057"), or "": the recorded action keeps the path only, so the
// reply is read again, so that a windowed read does not look like a
// repeated read of the whole file.
func readWindow(t *schemas.Turn) string {
	if t.Action.Verb != "READ" {
		return ""
	}
	a, err := draft.Parse(t.Reply.Content, t.Reply.ToolCalls)
	if err != nil || a.Verb != "READ" || a.Start == 0 {
		return ""
	}
	if a.End == 0 {
		return fmt.Sprintf(":%d", a.Start)
	}
	return fmt.Sprintf(":%d-%d", a.Start, a.End)
}

// actionLine says how a draft was read: verb, path (with its window),
// the parser shape, how it came, and the repairs made.
func actionLine(a schemas.Action) string {
	verb := a.Verb
	if verb == "" {
		verb = "(no action)"
	}
	s := verb
	if a.Path != "" {
		s += " " + a.Path
	}
	s += "  shape " + a.Shape
	if a.Via != "" {
		s += ", via " + a.Via
	}
	if len(a.Repairs) > 0 {
		s += ", repairs " + strings.Join(a.Repairs, ", ")
	}
	return s
}

// outcomeLine says what came of an action: status and code.
func outcomeLine(o schemas.Outcome) string {
	s := string(o.Status)
	if o.Code != "" {
		s += " " + string(o.Code)
	}
	if len(o.FilesChanged) > 0 {
		s += "; changed " + strings.Join(o.FilesChanged, ", ")
	}
	return s
}

func (p *printer) step(s step, prevFeedback string) {
	t := s.Turn
	head := fmt.Sprintf("step %d", t.Step)
	if !t.ModelStep {
		head += " (no model step)"
	}
	p.printf("%s  %s  →  %s  →  %s\n", p.paint(cBold, head), p.sentPainted(t), verbPath(t), p.outcomePainted(t.Outcome))
	for _, e := range t.Sent.Elided {
		p.field("  ", "elided", fmt.Sprintf("%s %s (about %d tokens left out)", e.What, e.Ref, e.Tokens))
	}
	for i, m := range t.Sent.Messages {
		if i == 0 && s.Echo {
			p.field("  ", "sent", p.paint(cDim, fmt.Sprintf("assistant: the step %d draft, sent back as it was", t.Step-1)))
			continue
		}
		if m.Role != "assistant" && m.Content != "" && m.Content == prevFeedback {
			p.field("  ", "sent", p.paint(cDim, fmt.Sprintf("%s: the step %d feedback, as above", m.Role, t.Step-1)))
			continue
		}
		p.block("  ", "sent", m.Role+": "+m.Content, cDim)
		for _, tc := range m.ToolCalls {
			p.field("  ", "", fmt.Sprintf("tool call %s %v", tc.Name, tc.Arguments))
		}
	}
	if r := t.Reasoning; r != nil {
		p.block("  ", "reasoning", reasoningLine(r)+"\n"+r.Text, cDim)
	} else if t.Reply.Thinking != "" {
		p.block("  ", "thinking", t.Reply.Thinking, cDim)
	}
	p.block("  ", "draft", t.Reply.Content, "")
	for _, tc := range t.Reply.ToolCalls {
		p.field("  ", "tool call", fmt.Sprintf("%s %v", tc.Name, tc.Arguments))
	}
	if t.Reply.FinishReason != "" && t.Reply.FinishReason != "stop" {
		p.field("  ", "finish", p.paint(cWarn, t.Reply.FinishReason))
	}
	p.field("  ", "read", actionLine(t.Action))
	p.field("  ", "outcome", p.outcomePainted(t.Outcome))
	if fb := s.Feedback; fb != "" && fb != t.Outcome.Message {
		p.block("  ", "feedback", fb, "")
	} else if t.Outcome.Message != "" {
		p.block("  ", "message", t.Outcome.Message, "")
	}
	p.field("  ", "metrics", stepMetricsLine(t))
	for _, a := range t.Attempts {
		if a.Error == "" {
			continue
		}
		line := fmt.Sprintf("attempt %d: %s", a.N, a.Error)
		if a.Status != 0 {
			line += fmt.Sprintf(" (HTTP %d)", a.Status)
		}
		if a.WaitMS > 0 {
			line += fmt.Sprintf("; waited %d ms", a.WaitMS)
		}
		p.field("  ", "retry", p.paint(cWarn, line))
	}
	for _, w := range t.Warnings {
		p.field("  ", "warning", p.paint(cWarn, w))
	}
	p.printf("\n")
}

func (p *printer) sentPainted(t *schemas.Turn) string {
	if t.Sent.Code != "" {
		code := string(t.Sent.Code)
		return strings.Replace(sentLine(t), code, p.paint(cCode, code), 1)
	}
	return sentLine(t)
}

func (p *printer) outcomePainted(o schemas.Outcome) string {
	color := cGood
	switch o.Status {
	case schemas.StatusRefused, schemas.StatusFailed:
		color = cBad
	case schemas.StatusStopped:
		color = cBold
	}
	s := outcomeLine(o)
	status := string(o.Status)
	return p.paint(color, status) + strings.TrimPrefix(s, status)
}

// block prints a labelled body, folded to a few lines unless Full.
func (p *printer) block(indent, label, body, color string) {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	hidden := 0
	// Folding a single line saves nothing.
	if !p.o.Full && len(lines) > foldLines+1 {
		hidden = len(lines) - foldLines
		lines = lines[:foldLines]
	}
	pad := indent + strings.Repeat(" ", 10)
	for i, l := range lines {
		if color != "" {
			l = p.paint(color, l)
		}
		if i == 0 {
			p.field(indent, label, "│ "+l)
		} else {
			p.printf("%s│ %s\n", pad, l)
		}
	}
	if hidden > 0 {
		p.printf("%s%s\n", pad, p.paint(cDim, fmt.Sprintf("┆ … %d more line(s) (--full shows them)", hidden)))
	}
}

func (p *printer) tail(r *Run) {
	e := r.End
	p.printf("%s\n", p.paint(cBold, "end"))
	if e == nil {
		p.field("  ", "end", p.paint(cWarn, "no run_end record: no verdict, suites, writes or patch were recorded"))
		return
	}
	p.field("  ", "suite", suiteLine("before", e.SuiteBefore)+"; "+suiteLine("after", e.SuiteAfter))
	p.field("  ", "checks", checksLine(e.Checks))
	if len(e.Writes) == 0 {
		p.field("  ", "writes", "none")
	}
	for _, wr := range e.Writes {
		p.field("  ", "writes", fmt.Sprintf("%s (+%d -%d)", wr.Path, wr.Added, wr.Removed))
	}
	for _, w := range e.Warnings {
		p.field("  ", "warning", p.paint(cWarn, w))
	}
	switch {
	case e.Patch == "":
		p.field("  ", "patch", "none")
	case !p.o.Patch:
		p.field("  ", "patch", fmt.Sprintf("%d line(s) (--patch prints it)", strings.Count(e.Patch, "\n")))
	default:
		p.field("  ", "patch", "")
		p.patch(e.Patch)
	}
}

// suiteLine says what one run of the suite counted.
func suiteLine(when string, c schemas.SuiteCounts) string {
	if c.NotRun {
		return when + " not run"
	}
	s := fmt.Sprintf("%s %d/%d passed", when, c.Passed, c.Ran)
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	if c.Errors > 0 {
		s += fmt.Sprintf(", %d error(s)", c.Errors)
	}
	if c.NoTests {
		s += ", no tests ran"
	}
	if c.TimedOut {
		s += ", timed out"
	}
	if c.ImportError != "" {
		s += " (import error: " + c.ImportError + ")"
	}
	return s
}

// checksLine says how the hidden or manifest checks went.
func checksLine(c schemas.Checks) string {
	switch {
	case !c.Ran:
		return "not run"
	case c.Passed:
		return "passed"
	case c.FirstFailure != "":
		return "failed; first failure: " + c.FirstFailure
	}
	return "failed"
}

// patch prints a unified diff, coloured by line.
func (p *printer) patch(diff string) {
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		p.printf("    %s\n", p.paint(diffLineClass(l).ansi(), l))
	}
}

// DiffLine is what a line of a unified diff is.
type DiffLine int

// Kinds of diff lines.
const (
	diffContext DiffLine = iota
	diffHeader
	diffHunk
	diffAdded
	diffRemoved
)

// diffLineClass tells a diff line's kind by its first characters.
func diffLineClass(l string) DiffLine {
	switch {
	case strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
		strings.HasPrefix(l, "new file"), strings.HasPrefix(l, "deleted file"):
		return diffHeader
	case strings.HasPrefix(l, "@@"):
		return diffHunk
	case strings.HasPrefix(l, "+"):
		return diffAdded
	case strings.HasPrefix(l, "-"):
		return diffRemoved
	}
	return diffContext
}

func (d DiffLine) ansi() string {
	switch d {
	case diffHeader:
		return cHeader
	case diffHunk:
		return cHunk
	case diffAdded:
		return cGood
	case diffRemoved:
		return cBad
	}
	return ""
}

// String names the kind, as the HTML page's class.
func (d DiffLine) String() string {
	return [...]string{"ctx", "hdr", "hunk", "add", "del"}[d]
}

// reasoningLine says where a turn's reasoning was found and how large it
// is: "think-tag, about 120 tokens", with ", cut: no answer" when the reply
// ended inside it.
func reasoningLine(r *schemas.Reasoning) string {
	s := fmt.Sprintf("%s, about %d tokens", r.Source, r.Tokens)
	if r.Cut {
		s += ", cut: no answer"
	}
	return s
}
