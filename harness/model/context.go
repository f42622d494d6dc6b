package model

import (
	"fmt"

	"github.com/pyharness/pyharness/schemas"
)

// ResolveContext decides the context window a run budgets against from what
// the user asked for (requested, --num-ctx), what they said the server
// applies (contextSize, --context-size, 0 if not given) and what the server
// said (info). The smallest window known to apply wins, since a prompt
// budgeted against a larger one is refused or silently cut:
//   - a backend that sends num_ctx gets the requested window, capped by the
//     trained context (Ollama caps it silently) and by --context-size (not
//     by the window of a model loaded earlier, which the request replaces);
//   - a backend that cannot send it gets the server's own window: the one it
//     states, else --context-size, else the trained context; when none is
//     known the requested window is budgeted against and the source says
//     unknown.
func ResolveContext(requested, contextSize int, info Info) schemas.ContextSizes {
	c := schemas.ContextSizes{Requested: requested, Sent: info.SendsNumCtx, Trained: info.ContextLength, InForce: info.ContextInForce}
	if c.InForce == 0 && contextSize > 0 {
		c.InForce = contextSize
	}
	inForceSource := schemas.ContextFromServer
	if info.ContextInForce == 0 && contextSize > 0 {
		inForceSource = schemas.ContextFromContextSize
	}
	pick := func(n int, source string) {
		if n > 0 && (c.Effective == 0 || n < c.Effective) {
			c.Effective, c.Source = n, source
		}
	}
	if c.Sent {
		pick(requested, schemas.ContextFromRequested)
		pick(c.Trained, schemas.ContextFromTrained)
		// The window a server reports for a model already loaded (Ollama's
		// /api/ps) is the one an earlier request asked for: a request that
		// sends num_ctx has the model reloaded with its own. Only a window
		// the user says the server applies caps it.
		if info.ContextInForce == 0 {
			pick(c.InForce, inForceSource)
		}
		return c
	}
	pick(c.InForce, inForceSource)
	if c.Effective == 0 {
		pick(c.Trained, schemas.ContextFromTrained)
	}
	if c.Effective == 0 {
		c.Effective, c.Source = requested, schemas.ContextUnknown
	}
	return c
}

// MinPromptTokens is the least room a window must leave for the prompt
// once the reply's num_predict is set aside: the harness's system prompt,
// task and the smallest view of a file take about this much.
const MinPromptTokens = 512

// CheckPromptRoom is the one rule on a window and num_predict, so that
// doctor, run and the harness refuse the same values: the window minus
// num_predict must leave MinPromptTokens for the prompt.
func CheckPromptRoom(window, numPredict int) error {
	if room := window - numPredict; room < MinPromptTokens {
		return fmt.Errorf("num_ctx %d minus num_predict %d leaves %d tokens for the prompt; at least %d are needed", window, numPredict, room, MinPromptTokens)
	}
	return nil
}
