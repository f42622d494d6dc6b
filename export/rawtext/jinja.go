package rawtext

import (
	"github.com/pyharness/pyharness/harness/chattemplate"
)

// Jinja renders a row through a model's own chat template (its Jinja
// source, as transformers' apply_chat_template renders it), without a
// generation prompt: the last message is the draft.
type Jinja struct{ T *chattemplate.Template }

func (j Jinja) Name() string { return j.T.Name }

func (j Jinja) Render(messages []Message) (string, error) {
	msgs := make([]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return j.T.Render(chattemplate.Conversation{Messages: msgs})
}
