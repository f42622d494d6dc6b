package draft

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// FuzzParse feeds the parser arbitrary replies, seeded with every golden
// draft. Besides not panicking, a parse must name one of the seven verbs and
// record a path it found in the draft, cleaned but not rewritten: a ".."
// the model wrote is never dropped and a relative path never becomes an
// absolute one, since either would let a draft slip past the scope check.
func FuzzParse(f *testing.F) {
	drafts, err := filepath.Glob(filepath.Join("testdata", "*.draft"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range drafts {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, draft string) {
		a, err := Parse(draft, nil)
		if err != nil {
			checkError(t, draft, err)
		} else {
			if a.Via != viaText {
				t.Errorf("text draft parsed with Via %q", a.Via)
			}
			checkInvariants(t, draft, a)
		}

		// The same text as a path, through a native tool call and a READ.
		tc, err := Parse("", []schemas.ToolCall{{Name: "read_file", Arguments: map[string]any{"path": draft}}})
		if err == nil {
			checkInvariants(t, "", tc)
			if safePath(draft) {
				checkPathKept(t, draft, tc.Path)
			}
		}
		if safePath(draft) {
			a, err := Parse("READ "+draft, nil)
			if err != nil {
				checkError(t, "READ "+draft, err)
				return
			}
			checkPathKept(t, draft, a.Path)
		}
	})
}

func checkError(t *testing.T, draft string, err error) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if pe.Draft != draft {
		t.Errorf("Error.Draft = %q; want the raw draft %q", pe.Draft, draft)
	}
	if pe.Reason == "" || pe.Shape == "" {
		t.Errorf("Error without a reason or shape: %+v", pe)
	}
	switch pe.Code {
	case "":
		if !strings.Contains(pe.Error(), "READ path") {
			t.Errorf("Error() does not list the accepted shapes: %q", pe.Error())
		}
	case codeShellCommand, codeAmbiguous, CodeReasoningCut,
		schemas.CodePlan, schemas.CodeProtocolExample, schemas.CodeQuestion, schemas.CodeWaiting, schemas.CodeElidedWrite:
		// A refusal names the action to send instead.
		if !(strings.Contains(pe.Error(), "READ") || strings.Contains(pe.Error(), "WRITE") ||
			strings.Contains(pe.Error(), "PATCH") || strings.Contains(pe.Error(), "RUN") || strings.Contains(pe.Error(), "DONE")) {
			t.Errorf("refusal %q names no action to use instead", pe.Error())
		}
	default:
		t.Errorf("unknown error code %q", pe.Code)
	}
}

// safePath is a path made only of the characters of ordinary file names, so
// that what the cleaning may change is known: separators, a leading "./"
// and trailing punctuation.
func safePath(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		ok := r == '.' || r == '/' || r == '\\' || r == '_' || r == '-' || r == ':' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

func checkPathKept(t *testing.T, raw, got string) {
	t.Helper()
	norm := strings.ReplaceAll(raw, `\`, "/")
	if !strings.Contains(norm, got) {
		t.Errorf("path %q from %q is not taken from it", got, raw)
	}
	if dotdots(got) < dotdots(norm) {
		t.Errorf("path %q from %q lost a .. segment", got, raw)
	}
	if strings.HasPrefix(got, "/") != strings.HasPrefix(norm, "/") {
		t.Errorf("path %q from %q changed between relative and absolute", got, raw)
	}
}

func dotdots(p string) int {
	n := 0
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			n++
		}
	}
	return n
}
