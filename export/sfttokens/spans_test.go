package sfttokens

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

func template(t *testing.T, name string) *chattemplate.Template {
	t.Helper()
	tp, err := chattemplate.Load(filepath.Join("..", "..", "harness", "chattemplate", "testdata", "templates", name))
	if err != nil {
		t.Fatal(err)
	}
	tp.Tokens = map[string]string{"bos_token": "<s>", "eos_token": "</s>"}
	return tp
}

const (
	promptCompletion = `{"prompt": [{"role": "system", "content": "You act."}, {"role": "user", "content": "Fix it."}, {"role": "assistant", "content": "REFUSED DRAFT"}, {"role": "user", "content": "That is not an action."}], "completion": [{"role": "assistant", "content": "READ app.py"}]}`
	messagesRow      = `{"messages": [{"role": "system", "content": "You act."}, {"role": "user", "content": "Fix it."}, {"role": "assistant", "content": "EARLIER DRAFT", "weight": 0}, {"role": "user", "content": "ok"}, {"role": "assistant", "content": "READ app.py", "weight": 1}]}`
)

func TestRenderFindsTheTrainedSpans(t *testing.T) {
	for _, name := range []string{
		"meta-llama-Llama-3.2-3B-Instruct.jinja",
		"Qwen-Qwen2.5-7B-Instruct.jinja",
		"google-gemma-3-it.jinja",
		"ibm-granite-granite-3.3-2B-Instruct.jinja",
	} {
		tp := template(t, name)
		for _, tt := range []struct {
			row   string
			mode  Mode
			spans []string
		}{
			{promptCompletion, Completion, []string{"READ app.py"}},
			{promptCompletion, Assistant, []string{"REFUSED DRAFT", "READ app.py"}},
			{messagesRow, Completion, []string{"READ app.py"}},
			{messagesRow, Assistant, []string{"EARLIER DRAFT", "READ app.py"}},
		} {
			t.Run(name+"/"+string(tt.mode)+"/"+tt.row[2:10], func(t *testing.T) {
				r, err := Render(tp, []byte(tt.row), tt.mode)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Spans) != len(tt.spans) {
					t.Fatalf("%d spans, want %d: %+v", len(r.Spans), len(tt.spans), r.Spans)
				}
				for i, s := range r.Spans {
					// The span is the message and the template's end of
					// turn: nothing of the prompt, nothing of another turn.
					if !strings.HasPrefix(strings.TrimSpace(s.Text), tt.spans[i]) {
						t.Errorf("span %d is %q, want it to start with %q", i, s.Text, tt.spans[i])
					}
					for _, other := range []string{"Fix it.", "You act.", "That is not", "ok"} {
						if strings.Contains(s.Text, other) {
							t.Errorf("span %d %q holds %q of another message", i, s.Text, other)
						}
					}
				}
				var trained []string
				for _, p := range r.Pieces {
					if p.Trained {
						trained = append(trained, p.Text)
					}
				}
				if len(trained) != len(r.Spans) {
					t.Errorf("%d trained pieces for %d spans", len(trained), len(r.Spans))
				}
				full, err := tp.Render(chattemplate.Conversation{Messages: conversation(t, tt.row)})
				if err != nil {
					t.Fatal(err)
				}
				if r.Text() != full {
					t.Errorf("the pieces make\n%q\nthe template renders\n%q", r.Text(), full)
				}
			})
		}
	}
}

func conversation(t *testing.T, row string) []any {
	t.Helper()
	o, err := chattemplate.DecodeRow([]byte(row))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := o.Get("messages"); ok {
		return m.([]any)
	}
	p, _ := o.Get("prompt")
	c, _ := o.Get("completion")
	return append(append([]any{}, p.([]any)...), c.([]any)...)
}

// A template that renders the last assistant message otherwise than an
// earlier one (Phi-3.5 ends the conversation with its end-of-text token)
// has no span an assistant-only trainer could find for the earlier ones:
// refused, never guessed.
func TestRenderRefusesATemplateWithoutPrefixes(t *testing.T) {
	tp := template(t, "microsoft-Phi-3.5-mini-instruct.jinja")
	_, err := Render(tp, []byte(messagesRow), Assistant)
	if err == nil || !strings.Contains(err.Error(), "message 2: the template does not render") {
		t.Errorf("error %v, want the message whose span cannot be found", err)
	}
	if _, err := Render(tp, []byte(messagesRow), Completion); err != nil {
		t.Errorf("the last message's span: %v", err)
	}
}

func TestRenderRefusals(t *testing.T) {
	tp := template(t, "meta-llama-Llama-3.2-3B-Instruct.jinja")
	for _, tt := range []struct{ name, row, want string }{
		{"not json", `{"prompt": [`, "read row"},
		{"no layout", `{"text": "x"}`, `neither "messages" nor "prompt"`},
		{"prompt alone", `{"prompt": [{"role": "user", "content": "x"}]}`, `without "completion"`},
		{"nothing to train", `{"messages": [{"role": "user", "content": "x", "weight": 0}]}`, "no message to train"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(tp, []byte(tt.row), Completion)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// byteTokenizer gives each byte its own id, and each of a few special
// tokens one id, as a BPE tokenizer splits its specials out first.
type byteTokenizer struct{ specials []string }

func (b byteTokenizer) Encode(s string, _ bool) ([]int32, error) {
	var ids []int32
	for len(s) > 0 {
		found := false
		for i, sp := range b.specials {
			if strings.HasPrefix(s, sp) {
				ids, s, found = append(ids, int32(256+i)), s[len(sp):], true
				break
			}
		}
		if !found {
			ids, s = append(ids, int32(s[0])), s[1:]
		}
	}
	return ids, nil
}

func (b byteTokenizer) decode(ids []int32) string {
	var sb strings.Builder
	for _, id := range ids {
		if id >= 256 {
			sb.WriteString(b.specials[id-256])
		} else {
			sb.WriteByte(byte(id))
		}
	}
	return sb.String()
}

func TestTokenizeTrainsTheSpansTokens(t *testing.T) {
	tp := template(t, "meta-llama-Llama-3.2-3B-Instruct.jinja")
	tok := byteTokenizer{specials: []string{"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<s>"}}
	for _, mode := range []Mode{Completion, Assistant} {
		r, err := Render(tp, []byte(promptCompletion), mode)
		if err != nil {
			t.Fatal(err)
		}
		row, err := tokenize(tok, r)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.decode(row.IDs); got != r.Text() {
			t.Fatalf("the ids decode to\n%q\nnot the rendered row", got)
		}
		if len(row.Trained) != len(r.Spans) {
			t.Fatalf("%d trained ranges for %d spans", len(row.Trained), len(r.Spans))
		}
		for i, s := range row.Trained {
			if got := tok.decode(row.IDs[s[0]:s[1]]); got != r.Spans[i].Text {
				t.Errorf("%s: range %v decodes to %q, the span is %q", mode, s, got, r.Spans[i].Text)
			}
		}
	}
}
