package classify

import (
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// Where a turn's label came from.
const (
	// FromRecord is a label recorded by the harness at capture time.
	FromRecord = "record"
	// FromRules is a label the text rules gave a turn recorded without one.
	FromRules = "rules"
)

// TurnLabel is what the model was sent at a turn: its kind, the guard's
// code for a refusal or a nudge, and where the label came from.
type TurnLabel struct {
	Kind schemas.Kind
	Code schemas.Code
	From string
}

// LabelTurn labels a turn from the kind and code recorded at capture time,
// and falls back to the text rules for a turn recorded without a kind
// (older minors, other harnesses' turns converted to schema v1). A turn
// recorded as a refusal or a nudge without its code gets the code from the
// rules, and keeps its recorded kind.
func LabelTurn(t *schemas.Turn) TurnLabel {
	if t.Sent.Kind != "" {
		l := TurnLabel{Kind: t.Sent.Kind, Code: t.Sent.Code, From: FromRecord}
		if l.Code == "" && (l.Kind == schemas.KindRefusalOrNudge || l.Kind == schemas.KindParseFailure) {
			if r := ClassifyText(t.Step, t.Sent.Messages); r.Kind == l.Kind {
				l.Code = r.Code
			} else if l.Kind == schemas.KindParseFailure {
				l.Code = schemas.CodeParseFailed
			}
		}
		return l
	}
	return ClassifyText(t.Step, t.Sent.Messages)
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
