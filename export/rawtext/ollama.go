package rawtext

import (
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/template"
)

// OllamaTemplate renders a row the way Ollama prompts the model it serves:
// the context through the model's own Go template (what /api/show reports
// as "template"), which ends with the assistant's generation prompt, then
// the draft, then the first stop string the model's parameters name (its
// end of turn). The text trained is thus the text the model is sent and
// is expected to answer when the harness benches it through Ollama.
type OllamaTemplate struct {
	tmpl *template.Template
	stop string
	name string
}

// NewOllamaTemplate parses a model's template; stop is the end-of-turn
// string written after each draft, and name says whose template it is.
func NewOllamaTemplate(name, tmpl, stop string) (*OllamaTemplate, error) {
	t, err := template.Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("parse the Ollama template of %s: %w", name, err)
	}
	if stop == "" {
		return nil, fmt.Errorf("the Ollama template of %s: no stop string to end a draft with (the model's parameters name none)", name)
	}
	return &OllamaTemplate{tmpl: t, stop: stop, name: name}, nil
}

func (o *OllamaTemplate) Name() string {
	return fmt.Sprintf("Ollama's template of %s, each draft ended by %q", o.name, o.stop)
}

func (o *OllamaTemplate) Render(messages []Message) (string, error) {
	if len(messages) == 0 || messages[len(messages)-1].Role != "assistant" {
		return "", fmt.Errorf("a row must end with the assistant's draft")
	}
	var ctx []api.Message
	for _, m := range messages[:len(messages)-1] {
		ctx = append(ctx, api.Message{Role: m.Role, Content: m.Content})
	}
	var b strings.Builder
	if err := o.tmpl.Execute(&b, template.Values{Messages: ctx}); err != nil {
		return "", err
	}
	b.WriteString(messages[len(messages)-1].Content)
	b.WriteString(o.stop)
	return b.String(), nil
}
