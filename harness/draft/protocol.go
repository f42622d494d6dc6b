package draft

import (
	"strconv"
	"strings"
)

// fence is spelled out here because a Go raw string cannot hold a backtick.
const fence = "```"

// Protocol returns the action protocol as the system prompt states it: one
// short paragraph per verb, each with an example.
func Protocol() string {
	text := `Answer with exactly one action per reply, on a line of its own, starting with the verb in capitals. Paths are relative to the repository root and use forward slashes. Anything else you write is ignored.

READ path — show a file. Long files are shown in windows; ask for a window with a line range.
    READ src/app.py
    READ src/app.py:120-220

WRITE path — create a file or replace it whole. Put the complete file in one fenced code block right after the line.
    WRITE wordcount.py
    FENCEpython
    def count_words(text):
        ...
    FENCE

PATCH path — change one exact piece of a file you have read. The FIND: block is copied from the file as it is; the REPLACE: block is what goes in its place.
    PATCH src/app.py
    FIND:
    FENCEpython
    return total
    FENCE
    REPLACE:
    FENCEpython
    return total + 1
    FENCE

RUN tests — run the test suite and see the result. Run it after every change and before DONE.
    RUN tests

SKILL name args — run a helper procedure: locate finds where a name is defined, outline lists a file's definitions, scaffold-test starts a test module.
    SKILL locate parse_args
    SKILL outline src/app.py
    SKILL scaffold-test wordcount

ASK question — ask the person running you; only before any file has changed.
    ASK Should the flag default to off?

DONE summary — finish, saying what you changed and how you checked it.
    DONE count_words added to wordcount.py; tests pass
`
	return strings.ReplaceAll(text, "FENCE", fence)
}

// acceptedShort is the part of a parse failure that reminds the model of
// the protocol: one line per canonical shape, short enough to resend often.
func acceptedShort() string {
	text := `Reply with exactly one action, on a line of its own, in one of these shapes:
  READ path                        e.g. READ src/app.py  or  READ src/app.py:120-220
  WRITE path + a fenced block      e.g. WRITE wordcount.py, then the whole file inside FENCEpython ... FENCE
  PATCH path + FIND: and REPLACE:  e.g. PATCH src/app.py, then FIND: and a fenced block copied from the file, then REPLACE: and a fenced block
  RUN tests                        e.g. RUN tests
  SKILL name args                  e.g. SKILL locate parse_args
  ASK question                     e.g. ASK Should the flag default to off?
  DONE summary                     e.g. DONE count_words added; tests pass`
	return strings.ReplaceAll(text, "FENCE", fence)
}

// Canonical is an action in this protocol's own form, as the harness shows
// it after reading an action written in another format.
func Canonical(a Action) string {
	switch a.Verb {
	case VerbRead:
		s := "READ " + a.Path
		if a.Start > 0 && a.End > 0 {
			s += ":" + strconv.Itoa(a.Start) + "-" + strconv.Itoa(a.End)
		} else if a.Start > 0 {
			s += ":" + strconv.Itoa(a.Start)
		}
		return s
	case VerbWrite:
		return "WRITE " + a.Path + ", then the whole file in one fenced block"
	case VerbPatch:
		return "PATCH " + a.Path + ", then FIND: and REPLACE: blocks"
	case VerbRun:
		return "RUN tests"
	case VerbSkill:
		return strings.TrimSpace("SKILL " + a.Skill + " " + strings.Join(a.Args, " "))
	case VerbAsk:
		return "ASK " + a.Text
	case VerbDone:
		return "DONE summary"
	}
	return a.Verb
}
