package harness

import (
	"fmt"
	"strings"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// ContextWarnings are the warnings a run's context sizes call for, said in
// the run summary, on run_end and in bench's header: a num_ctx above the
// model's trained context (the server caps it without a word), and a window
// the backend cannot send and the server did not state.
func ContextWarnings(m schemas.Model) []string {
	c := m.Context
	if c == nil || m.HandWritten() {
		// A replay budgets against the recorded run's window, but no
		// server was asked: there is nothing to warn of.
		return nil
	}
	var out []string
	switch {
	case c.Sent && c.Trained > 0 && c.Requested > c.Trained:
		out = append(out, fmt.Sprintf("--num-ctx %d is above the model's trained context %d: the server caps it, so prompts are budgeted against %d (give --num-ctx %d or less to silence this)",
			c.Requested, c.Trained, c.Effective, c.Trained))
	case !c.Sent && c.Source == schemas.ContextUnknown:
		out = append(out, fmt.Sprintf("the %s backend cannot send num_ctx and the server did not say its context window: prompts are budgeted against the requested %d, which the server may cut silently (--context-size N names the server's window)",
			m.Backend, c.Requested))
	case !c.Sent && c.Effective < c.Requested:
		w := fmt.Sprintf("the %s backend cannot send num_ctx: the server keeps its own window of %d (from %s), so prompts are budgeted against it, not the --num-ctx %d asked for",
			m.Backend, c.Effective, c.Source, c.Requested)
		if c.Trained > 0 && c.Requested > c.Trained {
			w += fmt.Sprintf(", which is above the model's trained context %d", c.Trained)
		}
		out = append(out, w)
	}
	return out
}

// ContextLine says in one line which context window a run had: what was
// asked for, what the model was trained with, what the server said it
// applies, and what prompts were budgeted against.
func ContextLine(c *schemas.ContextSizes) string {
	if c == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("requested %d", c.Requested)}
	if !c.Sent {
		parts[0] += " (not sent: the server keeps its own window)"
	}
	parts = append(parts, "trained "+sizeOrUnknown(c.Trained))
	if c.InForce > 0 {
		parts = append(parts, fmt.Sprintf("in force %d", c.InForce))
	}
	parts = append(parts, fmt.Sprintf("effective %d (%s)", c.Effective, c.Source))
	return strings.Join(parts, ", ")
}

func sizeOrUnknown(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return fmt.Sprint(n)
}

// warningCode is the stable code a turn warning starts with ("context-full:
// …" → "context-full").
func warningCode(w string) schemas.Code {
	code, _, _ := strings.Cut(w, ":")
	return schemas.Code(code)
}

// minRefitBudget is the smallest prompt budget a refit tries: the system
// prompt alone takes most of it.
const minRefitBudget = 256

// checkPrompt compares the server's count of the prompt with what was sent,
// flags a prompt the server cut, and calibrates the estimate from a count
// that is whole. It reports whether the prompt was cut.
func (r *runner) checkPrompt(t *schemas.Turn, prompt []schemas.Message, reply model.Reply) bool {
	est := r.tok.messages(prompt)
	p, ok := schemas.Count(reply.Metrics.PromptTokens)
	ok = ok && p > 0
	// A server that keeps its own window (an OpenAI-compatible endpoint,
	// where num_ctx cannot be sent) drops old messages without a word; its
	// count far below the estimate is the only sign.
	silent := ok && float64(p) < truncatedShare*float64(est)
	cut := reply.Truncated || (ok && p >= r.window)
	switch {
	case silent:
		r.budget = min(r.budget, p)
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: the server counted %d prompt tokens for a prompt estimated at %d: it dropped part of it without a word; prompts are now budgeted at %d",
			schemas.CodeContextTruncated, p, est, r.budget))
		if !r.truncWarned {
			r.warnings = append(r.warnings, fmt.Sprintf("the server silently truncated the prompt at step %d (it counted %d tokens of about %d sent): its context window is smaller than the %d budgeted against", t.Step, p, est, r.window))
			r.truncWarned = true
		}
	case cut:
		// The server cut the prompt: the model answered something it never
		// saw whole. Tighten the estimate so the next prompt fits.
		r.tok.bytesPerToken *= 0.8
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: the server counted %d prompt tokens, the whole window of %d: the prompt was cut", schemas.CodeContextTruncated, p, r.window))
		if !r.truncWarned {
			r.warnings = append(r.warnings, fmt.Sprintf("the server truncated the prompt at step %d (prompt tokens %d, context window %d)", t.Step, p, r.window))
			r.truncWarned = true
		}
	case ok:
		r.tok.calibrate(prompt, p)
	}
	return silent || cut
}

// checkContextFull flags a reply cut because prompt and output filled the
// context window before num_predict: the server says "length" either way.
func (r *runner) checkContextFull(t *schemas.Turn) {
	if t.Reply.FinishReason != "length" {
		return
	}
	out, okOut := schemas.Count(t.Metrics.OutputTokens)
	p, okPrompt := schemas.Count(t.Metrics.PromptTokens)
	numPredict := r.cfg.Model.Options.NumPredict
	if !okOut || !okPrompt || out >= numPredict || p+out < r.window {
		return
	}
	t.Warnings = append(t.Warnings, fmt.Sprintf("%s: the reply was cut after %d tokens, before num_predict %d: prompt %d + output %d filled the context window of %d",
		schemas.CodeContextFull, out, numPredict, p, out, r.window))
	if !r.fullWarned {
		r.warnings = append(r.warnings, fmt.Sprintf("a reply was cut by a full context at step %d (%d prompt + %d output tokens of a %d window), not by num_predict %d",
			t.Step, p, out, r.window, numPredict))
		r.fullWarned = true
	}
}

// countWarnings counts the turn under each warning code it carries, once
// per code, for the run's result.
func (r *runner) countWarnings(t *schemas.Turn) {
	seen := map[schemas.Code]bool{}
	for _, w := range t.Warnings {
		if code := warningCode(w); !seen[code] {
			seen[code] = true
			r.turnCodes[code]++
		}
	}
}
