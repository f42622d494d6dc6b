package turnlabel

import (
	"slices"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// Where a turn's label came from.
const (
	// fromRecord is a label recorded by the harness at capture time.
	fromRecord = "record"
	// FromRules is a label the text rules gave a turn recorded without one.
	FromRules = "rules"
)

// Label is what the model was sent at a turn: its kind, the guard's
// code for a refusal or a nudge, and where the label came from.
type Label struct {
	Kind schemas.Kind
	Code schemas.Code
	From string
}

// Of labels a turn from the kind and code recorded at capture time,
// and falls back to the text rules for a turn recorded without a kind
// (older minors, other harnesses' turns converted to schema v1). A turn
// recorded as a refusal or a nudge without its code gets the code from the
// rules, and keeps its recorded kind.
func Of(t *schemas.Turn) Label {
	if t.Sent.Kind != "" {
		l := Label{Kind: t.Sent.Kind, Code: t.Sent.Code, From: fromRecord}
		if l.Code == "" && (l.Kind == schemas.KindRefusalOrNudge || l.Kind == schemas.KindParseFailure) {
			if r := byRules(t.Step, t.Sent.Messages); r.Kind == l.Kind {
				l.Code = r.Code
			} else if l.Kind == schemas.KindParseFailure {
				l.Code = schemas.CodeParseFailed
			}
		}
		return l
	}
	return byRules(t.Step, t.Sent.Messages)
}

// Feedback returns what the harness said at a turn: the last message of what
// was sent that is not the model's own or the system prompt. It is empty for
// a turn sent nothing new.
func Feedback(msgs []schemas.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "assistant":
			return ""
		case "system":
			continue
		default:
			return msgs[i].Content
		}
	}
	return ""
}

// FeedbackLine is the line of a harness message that says why: the text
// after a "REFUSED (code): " or "SUITE BROKEN (code): " marker when there is
// one, else the first non-blank line.
func FeedbackLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if _, rest, ok := cutCodeMarker(line); ok {
			return strings.TrimSpace(rest)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// cutCodeMarker finds "WORDS (code): " in a line, as the harness writes its
// refusals, and returns the code and the text after it.
func cutCodeMarker(line string) (schemas.Code, string, bool) {
	open := strings.Index(line, " (")
	if open < 0 {
		return "", "", false
	}
	head := line[:open]
	if head == "" || strings.ToUpper(head) != head || strings.ToLower(head) == head {
		return "", "", false // the marker is a word in capitals: REFUSED, SUITE BROKEN
	}
	code, rest, ok := strings.Cut(line[open+2:], "): ")
	if !ok || !isCode(code) {
		return "", "", false
	}
	return schemas.Code(code), rest, true
}

func isCode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}

// WarningCodes returns the stable codes a turn's warnings start with
// ("context-full: the reply was cut …" → "context-full"), each once, in
// order; a warning that starts with no code is left out. Never nil.
func WarningCodes(warnings []string) []string {
	codes := []string{}
	for _, w := range warnings {
		code, _, _ := strings.Cut(w, ":")
		if isCode(code) && !slices.Contains(codes, code) {
			codes = append(codes, code)
		}
	}
	return codes
}
