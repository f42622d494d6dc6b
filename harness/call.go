package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// call sends one request and records its attempts on the turn: numbered
// across the whole turn (refits and fallbacks included), each with the
// size of the prompt it sent, so that a refit shows as a smaller prompt.
func (r *runner) call(ctx context.Context, t *schemas.Turn, req model.Request) (model.Reply, error) {
	reply, err := r.model.Chat(ctx, req)
	attempts := reply.Attempts
	var merr *model.Error
	if err != nil && errors.As(err, &merr) {
		attempts = append(attempts, merr.Attempts...)
	}
	est := r.tok.messages(req.Messages)
	for _, a := range attempts {
		a.N = len(t.Attempts) + 1
		a.PromptTokensEstimate, a.Messages = est, len(req.Messages)
		t.Attempts = append(t.Attempts, a)
	}
	return reply, err
}

// shrinkBudget lowers the prompt budget after the server refused a prompt
// as longer than its window, and returns why no smaller budget is of use
// ("" when it shrank). The server's stated window (llama-server's n_ctx)
// is the budget's ceiling from then on, and its count of the refused prompt
// calibrates the estimate; a server that says neither (Ollama) gets a
// budget cut below the refused prompt's estimate.
func (r *runner) shrinkBudget(refused []schemas.Message, merr *model.Error) string {
	if merr.PromptTokens > 0 {
		r.tok.calibrate(refused, merr.PromptTokens)
	}
	numPredict := r.cfg.Model.Options.NumPredict
	budget := r.budget
	if n := merr.ContextInForce; n > 0 {
		if n < r.window {
			r.warnings = append(r.warnings, fmt.Sprintf("the server's context window is %d (its overflow answer says so), not the %d prompts were budgeted against", n, r.window))
			r.window = n
		}
		budget = min(budget, n-numPredict)
	}
	if est := r.tok.messages(refused); budget >= est {
		// The estimate was within the budget, so the server counts more
		// than it says: aim well below the refused prompt.
		budget = est * 3 / 4
	}
	if budget < minRefitBudget {
		return fmt.Sprintf("a budget of %d tokens is too small for any prompt (window %d, num_predict %d)", budget, r.window, numPredict)
	}
	r.budget = budget
	return ""
}

// maxRefits bounds the refits of one step after context overflows; each
// refit is smaller than the last, so the bound only stops a slow descent.
const maxRefits = 4

// ask sends the prompt of a step and returns the model's reply. A prompt
// the server refuses as longer than its window is refitted to a smaller
// budget and sent again, and a server that takes no tools is asked again in
// text; the prompt returned is the one last sent, and stuck says why a
// refit could not go on ("" when none was needed or one was answered).
func (r *runner) ask(ctx context.Context, t *schemas.Turn, prompt []schemas.Message) (model.Reply, []schemas.Message, string, error) {
	req := model.Request{Messages: prompt, Options: r.cfg.Model.Options}
	if r.nativeTools {
		req.Tools = draft.NativeTools()
	}
	reply, err := r.call(ctx, t, req)
	var merr *model.Error
	stuck := ""
	for refits := 0; err != nil && errors.As(err, &merr) && merr.Code == model.CodeContextOverflow; refits++ {
		// The server refused the prompt as longer than its window: shrink
		// the budget and fit again. A refit that is not smaller than the
		// refused prompt would only be refused again: the step stops.
		refused := prompt
		if stuck = r.shrinkBudget(refused, merr); stuck == "" {
			if refits == maxRefits {
				stuck = fmt.Sprintf("%d refits in a row were refused", refits)
			}
		}
		var elided []schemas.Elision
		var refit bool
		if stuck == "" {
			prompt, elided, refit = fit(r.hist, r.tok, r.budget)
			if before, after := r.tok.messages(refused), r.tok.messages(prompt); after >= before {
				stuck = fmt.Sprintf("the refit prompt (%d messages, about %d tokens) is no smaller than the refused one (%d messages, about %d tokens): nothing more can be elided",
					len(prompt), after, len(refused), before)
			}
		}
		if stuck != "" {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s: the server refused a prompt of %d messages estimated at %d tokens, and %s", schemas.CodeContextOverflow, len(refused), r.tok.messages(refused), stuck))
			break
		}
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: the server refused a prompt of %d messages estimated at %d tokens; refitted to %d messages, about %d tokens (budget %d)",
			schemas.CodeContextOverflow, len(refused), r.tok.messages(refused), len(prompt), r.tok.messages(prompt), r.budget))
		if refit {
			t.Sent.Replaced = true
			t.Sent.Messages = slices.Clone(prompt)
		}
		t.Sent.Elided = elided
		t.Sent.PromptHash = schemas.PromptHash(prompt)
		t.Sent.PromptTokensEstimate = r.tok.messages(prompt)
		r.prevPrompt = prompt
		req.Messages = prompt
		reply, err = r.call(ctx, t, req)
	}
	if err != nil && errors.As(err, &merr) && merr.Code == model.CodeToolsUnsupported && r.nativeTools {
		// The server cannot take tools: say so once and go on in text.
		r.nativeTools = false
		r.warnings = append(r.warnings, "the model does not support native tools: fell back to the text protocol")
		t.Warnings = append(t.Warnings, "tools-unsupported: fell back to the text protocol")
		req.Tools = nil
		reply, err = r.call(ctx, t, req)
	}
	return reply, prompt, stuck, err
}
