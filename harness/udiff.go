package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// hunkError is a unified diff that cannot be applied: which hunk, and why,
// as a guard code and a message for the model.
type hunkError struct {
	code schemas.Code
	msg  string
}

// applyHunks applies a unified diff's hunks to src as patch does by
// context, with no fuzz and no trust in line numbers: each hunk's old lines
// (context and removed) must occur exactly once in src, at the start of a
// line, and no two hunks may overlap. All hunks apply or none does.
func applyHunks(src, rel string, hunks []draft.Hunk) (string, *hunkError) {
	// Old and New are whole lines; a last line without a newline is
	// matched as if it had one, and left without one.
	text, noFinalNewline := src, false
	if src != "" && !strings.HasSuffix(src, "\n") {
		text, noFinalNewline = src+"\n", true
	}
	type place struct{ at, end, hunk int }
	var places []place
	for i, h := range hunks {
		old := h.Old
		if old == "" {
			return "", &hunkError{schemas.CodeFindNotFound, fmt.Sprintf("hunk %d of the diff has no context or removed lines to place it by; copy the lines around the change from %s:\n%s", i+1, rel, showHunk(h))}
		}
		var found []int
		for from := 0; ; {
			k := strings.Index(text[from:], old)
			if k < 0 {
				break
			}
			at := from + k
			if at == 0 || text[at-1] == '\n' {
				found = append(found, at)
			}
			from = at + 1
		}
		switch len(found) {
		case 0:
			return "", &hunkError{schemas.CodeFindNotFound, fmt.Sprintf("hunk %d of the diff does not match %s: its context and - lines must be copied exactly from the file as it is now (READ %s to see it). The hunk:\n%s", i+1, rel, rel, showHunk(h))}
		case 1:
			places = append(places, place{found[0], found[0] + len(old), i})
		default:
			return "", &hunkError{schemas.CodeFindAmbiguous, fmt.Sprintf("hunk %d of the diff matches %s in %d places; add unchanged lines around the change so that it matches once. The hunk:\n%s", i+1, rel, len(found), showHunk(h))}
		}
	}
	slices.SortFunc(places, func(a, b place) int { return a.at - b.at })
	var b strings.Builder
	prev := 0
	for n, pl := range places {
		if pl.at < prev {
			return "", &hunkError{schemas.CodeFindAmbiguous, fmt.Sprintf("hunks %d and %d of the diff change the same lines of %s; make them one hunk", places[n-1].hunk+1, pl.hunk+1, rel)}
		}
		b.WriteString(text[prev:pl.at])
		b.WriteString(hunks[pl.hunk].New)
		prev = pl.end
	}
	b.WriteString(text[prev:])
	out := b.String()
	if noFinalNewline {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, nil
}

// showHunk is a hunk as the model wrote it, fenced.
func showHunk(h draft.Hunk) string {
	return "```diff\n" + h.Text + "\n```"
}

// patchHunks applies a PATCH written as a unified diff through the same
// guards as a FIND/REPLACE patch: scope, read before patch, repeats, then
// the checks of every write. The hunks are one write.
func (r *runner) patchHunks(ctx context.Context, t *schemas.Turn, a draft.Action) feedback {
	rel, err := r.scope.resolve(a.Path)
	if err != nil {
		return r.refuseScope(t, err)
	}
	t.Action.Path = rel
	key := "diff\x00" + rel
	for _, h := range a.Hunks {
		key += "\x00" + h.Old + "\x00" + h.New
	}
	if r.applied[key] {
		return r.repeat(t, rel)
	}
	if !r.known[rel] {
		return r.refuse(t, schemas.CodeReadBeforePatch, fmt.Sprintf("READ %s before you PATCH it: a diff's context lines must be copied from the file as it is now.", rel))
	}
	src, err := readRegular(r.abs(rel))
	if err != nil {
		return r.refuse(t, schemas.CodeNoSuchFile, fmt.Sprintf("%s does not exist; use WRITE to create it.", rel))
	}
	updated, herr := applyHunks(string(src), rel, a.Hunks)
	if herr != nil {
		return r.refuse(t, herr.code, herr.msg)
	}
	fb := r.changeFile(ctx, t, rel, string(src), updated)
	if len(t.Outcome.FilesChanged) > 0 {
		r.applied[key] = true
	}
	return fb
}
