package learn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

// OllamaTemplate is a model's Go template as Ollama's /api/show gives it,
// rendered the way Ollama renders a chat: messages, tools, system and
// the think switch as its template variables, with its template
// functions (json, currentDate, yesterdayDate, toTypeScriptType).
type OllamaTemplate struct {
	Name   string
	Source string
	tmpl   *template.Template
}

// ParseOllama compiles an Ollama Go template.
func ParseOllama(name, source string) (*OllamaTemplate, error) {
	t, err := template.New(name).Option("missingkey=zero").Funcs(ollamaFuncs).Parse(source)
	if err != nil {
		return nil, fmt.Errorf("compile Ollama template %s: %w", name, err)
	}
	return &OllamaTemplate{Name: name, Source: source, tmpl: t}, nil
}

var ollamaFuncs = template.FuncMap{
	"json": func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	},
	"currentDate":   func() string { return time.Now().Format("2006-01-02") },
	"yesterdayDate": func() string { return time.Now().AddDate(0, 0, -1).Format("2006-01-02") },
	"toTypeScriptType": func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	},
}

// The template variables, named as Ollama names them.
type (
	ollamaData struct {
		Messages   []ollamaMessage
		Tools      []ollamaTool
		System     string
		Prompt     string
		Response   string
		Think      bool
		ThinkLevel string
		IsThinkSet bool
	}
	ollamaMessage struct {
		Role       string
		Content    string
		Thinking   string
		ToolCalls  []ollamaCall
		ToolName   string
		ToolCallID string
	}
	ollamaCall struct {
		ID       string
		Function ollamaFunction
	}
	ollamaFunction struct {
		Index     int
		Name      string
		Arguments ollamaArgs
	}
	// ollamaArgs prints as JSON, keys in their order, as Ollama's
	// arguments do.
	ollamaArgs struct{ o *chattemplate.Object }
	ollamaTool struct {
		Type     string         `json:"type"`
		Function ollamaToolFunc `json:"function"`
	}
	ollamaToolFunc struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	}
)

func (a ollamaArgs) String() string {
	if a.o == nil {
		return "{}"
	}
	b, err := a.o.MarshalJSON()
	if err != nil {
		return "{}"
	}
	var out bytes.Buffer
	// Ollama prints arguments compactly.
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}

func (a ollamaArgs) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

func (t ollamaTool) String() string {
	b, _ := json.Marshal(t)
	return string(b)
}

func (f ollamaToolFunc) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

// Render renders a conversation as Ollama does. A trailing assistant
// message is rendered as history: Ollama's templates write the
// assistant's header for the next turn at the end either way.
func (t *OllamaTemplate) Render(c chattemplate.Conversation) (string, error) {
	d := ollamaData{}
	if v, ok := c.Vars["enable_thinking"].(bool); ok {
		d.Think, d.IsThinkSet = v, true
	}
	for _, m := range c.Messages {
		o, ok := m.(*chattemplate.Object)
		if !ok {
			return "", fmt.Errorf("render Ollama template %s: a message is not an object", t.Name)
		}
		msg := ollamaMessage{Role: o.String("role"), Content: o.String("content"), ToolName: o.String("name"), ToolCallID: o.String("tool_call_id")}
		for _, f := range []string{"thinking", "reasoning_content"} {
			if s := o.String(f); s != "" {
				msg.Thinking = s
			}
		}
		if calls, ok := o.Get("tool_calls"); ok {
			list, _ := calls.([]any)
			for i, x := range list {
				co, _ := x.(*chattemplate.Object)
				if co == nil {
					continue
				}
				fn, _ := co.Get("function")
				fo, _ := fn.(*chattemplate.Object)
				if fo == nil {
					continue
				}
				args, _ := fo.Get("arguments")
				ao, _ := args.(*chattemplate.Object)
				msg.ToolCalls = append(msg.ToolCalls, ollamaCall{ID: co.String("id"), Function: ollamaFunction{Index: i, Name: fo.String("name"), Arguments: ollamaArgs{ao}}})
			}
		}
		switch msg.Role {
		case "system":
			d.System = msg.Content
		case "user":
			d.Prompt = msg.Content
		}
		d.Messages = append(d.Messages, msg)
	}
	for _, x := range c.Tools {
		o, _ := x.(*chattemplate.Object)
		if o == nil {
			continue
		}
		fn, _ := o.Get("function")
		fo, _ := fn.(*chattemplate.Object)
		if fo == nil {
			continue
		}
		params, _ := fo.Get("parameters")
		d.Tools = append(d.Tools, ollamaTool{Type: "function", Function: ollamaToolFunc{Name: fo.String("name"), Description: fo.String("description"), Parameters: params}})
	}
	var b strings.Builder
	if err := t.tmpl.Execute(&b, d); err != nil {
		return "", fmt.Errorf("render Ollama template %s: %w", t.Name, err)
	}
	return b.String(), nil
}
