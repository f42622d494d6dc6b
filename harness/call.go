package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/pyharness/pyharness/model"
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

// shrinkBudget lowers the prompt budget after the server refused refused
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
