package learn

import (
	"context"
	"strings"

	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/model"
)

// Chatter is what a run needs of a model backend.
type Chatter interface {
	Chat(ctx context.Context, req model.Request) (model.Reply, error)
}

// WarnTemplateSyntax starts the warning of a reply that was read with the
// syntax learned from the model's template and handed on rewritten.
const WarnTemplateSyntax = "template-syntax"

// Reader hands a backend's replies on read with the syntax learned from
// the model's own template, as a server that parses its model's output
// does: a reply the general parser would read otherwise (a call in the
// template's notation, reasoning under its marks, a reply cut inside
// them) is rewritten into the forms the parser reads exactly
// (Syntax.Normalize), and the turn's record says so.
type Reader struct {
	Backend Chatter
	Syntax  *draft.Syntax
}

// Chat asks the backend and reads its reply with the syntax.
func (r Reader) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	rep, err := r.Backend.Chat(ctx, req)
	if err != nil || len(rep.ToolCalls) > 0 {
		return rep, err
	}
	syn := r.Syntax
	if rs := syn.Reasoning; rs != nil && (rep.Thinking != "" || rep.FinishReason != "length" && !strings.Contains(rep.Content, rs.Close) && (rs.Open == "" || !strings.Contains(rep.Content, rs.Open))) {
		// The server took the reasoning apart (its field is set, or the
		// reply shows none of the marks and was not cut short): the
		// content is the answer.
		syn = syn.WithoutReasoning()
	}
	if out, changed := syn.Normalize(rep.Content); changed {
		rep.Content = out
		rep.Warnings = append(rep.Warnings, WarnTemplateSyntax+": the reply was read with the syntax of the model's chat template "+r.Syntax.Template+" and is recorded in the forms the parser reads")
	}
	return rep, nil
}
