package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// draftRefused is the turn's outcome for a draft the parser could not act
// on: a draft that was read but refused carries its code (draft.Error.Code,
// a schemas.Code), anything else is a parse failure.
func (r *runner) draftRefused(t *schemas.Turn, err error) feedback {
	var pe *draft.Error
	if errors.As(err, &pe) && pe.Code != "" {
		return r.refuse(t, pe.Code, pe.Error())
	}
	t.Outcome = schemas.Outcome{Status: schemas.StatusRefused, Code: schemas.CodeParseFailed, Message: err.Error()}
	return feedback{kind: schemas.KindParseFailure, code: schemas.CodeParseFailed, text: err.Error()}
}

// resolveDraft settles what the parser left to the harness, which can see
// the files: which of the words after a verb names a file ("READ the file
// x.py"), and where "the last N lines" start. A draft that names two
// existing files is refused as ambiguous.
func (r *runner) resolveDraft(t *schemas.Turn, a draft.Action) (draft.Action, *feedback) {
	// An agent framework's root: /workspace/x.py is x.py only when x.py
	// is a file here; anything else stays the absolute path it is, which
	// the scope refuses.
	if rests, ok := draft.UnderAgentRoot(a.Path); ok {
		for _, rest := range rests {
			rel, err := r.scope.resolve(rest)
			if err != nil {
				continue
			}
			if _, err := readRegular(r.abs(rel)); err == nil {
				a.Path, t.Action.Path = rel, rel
				a.Repairs = append(a.Repairs, draft.RepairAgentRoot)
				t.Action.Repairs = append(t.Action.Repairs, draft.RepairAgentRoot)
				break
			}
		}
	}
	if len(a.Candidates) > 1 {
		var existing []string
		for _, c := range a.Candidates {
			rel, err := r.scope.resolve(c)
			if err != nil {
				continue
			}
			if _, err := readRegular(r.abs(rel)); err == nil && !slices.Contains(existing, rel) {
				existing = append(existing, rel)
			}
		}
		switch len(existing) {
		case 0: // a new file, or a missing one: the parser's pick stands
		case 1:
			a.Path = existing[0]
		default:
			fb := r.refuse(t, schemas.CodeAmbiguousDraft, fmt.Sprintf("your %s line names %s, which are all files here. Name one: %s %s", a.Verb, strings.Join(existing, " and "), a.Verb, existing[0]))
			return a, &fb
		}
		t.Action.Path = a.Path
	}
	if a.Verb == draft.VerbRead && a.Last > 0 {
		if rel, err := r.scope.resolve(a.Path); err == nil {
			if src, err := readRegular(r.abs(rel)); err == nil {
				n := strings.Count(strings.TrimSuffix(string(src), "\n"), "\n") + 1
				a.Start, a.End = max(1, n-a.Last+1), n
			}
		}
	}
	return a, nil
}

// readAs tells the model how an action written in another format was read,
// in this protocol's form, so that it can write it so next time.
func readAs(t *schemas.Turn, a draft.Action, fb feedback) feedback {
	if fb.text == "" || !draft.Foreign(a.Shape) {
		return fb
	}
	if t.Action.Path != "" {
		a.Path = t.Action.Path
	}
	fb.text += "\nRead as: " + draft.Canonical(a)
	return fb
}
