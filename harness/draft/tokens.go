package draft

import "strings"

// leadTokens open a reply when a chat template leaks into the text: the
// role header the server should have consumed.
var leadTokens = []string{
	"<|begin_of_text|>",
	"<|start_header_id|>assistant<|end_header_id|>",
	"<|im_start|>assistant",
	"<|assistant|>",
	"<start_of_turn>model",
	"<s>",
}

// endTokens end a turn. Whatever follows one is the model writing the next
// turn itself (a made-up tool result, the user's reply), never its action.
// "</s>" and "<end_of_turn>" count only at the very end, since they can be
// text inside a file ("<s>struck</s>" in HTML).
var endTokens = []string{
	"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>",
	"<|im_end|>", "<|end|>", "<|endoftext|>",
	"<|end_of_sentence|>",
}

var trailTokens = []string{"</s>", "<end_of_turn>", "<eos>"}

// stripSpecialTokens takes leaked chat-template tokens off a reply.
func stripSpecialTokens(text string) (string, bool) {
	out := text
	for changed := true; changed; {
		changed = false
		t := strings.TrimLeft(out, " \t\n")
		for _, tok := range leadTokens {
			if rest, ok := strings.CutPrefix(t, tok); ok {
				out, changed = rest, true
				break
			}
		}
	}
	cut := -1
	for _, tok := range endTokens {
		if i := strings.Index(out, tok); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		out = out[:cut]
	}
	for changed := true; changed; {
		changed = false
		t := strings.TrimRight(out, " \t\n")
		for _, tok := range trailTokens {
			if rest, ok := strings.CutSuffix(t, tok); ok {
				out, changed = rest, true
				break
			}
		}
	}
	return out, out != text
}

// asciiTokens spells every special token written with full-width bars
// and "▁" for spaces (<｜tool▁call▁begin｜>) as the ASCII token it stands
// for (<|tool_call_begin|>), the spelling some servers pass on. A
// namespace inside a tag's bracket (<｜NS｜invoke …>) is no token.
func asciiTokens(text string) string {
	const open, closeMark = "<｜", "｜>"
	if !strings.Contains(text, open) {
		return text
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			break
		}
		inner := rest[i+len(open):]
		j := strings.Index(inner, closeMark)
		if j < 0 || strings.ContainsAny(inner[:j], "<>｜ \t\r\n") {
			b.WriteString(rest[:i+len(open)])
			rest = inner
			continue
		}
		b.WriteString(rest[:i])
		b.WriteString("<|" + strings.ReplaceAll(inner[:j], "▁", "_") + "|>")
		rest = inner[j+len(closeMark):]
	}
	b.WriteString(rest)
	return b.String()
}
