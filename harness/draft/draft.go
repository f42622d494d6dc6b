package draft

import (
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// Verbs of the action protocol.
const (
	VerbRead  = "READ"
	VerbWrite = "WRITE"
	VerbPatch = "PATCH"
	VerbRun   = "RUN"
	VerbSkill = "SKILL"
	VerbAsk   = "ASK"
	VerbDone  = "DONE"
)

// Vias: where the action came from.
const (
	viaText     = "text"
	ViaToolCall = "tool-call"
)

// Action is the one action read from a draft.
type Action struct {
	Verb string `json:"verb"`
	// Path is the READ/WRITE/PATCH target as the model named it: forward
	// slashes, surrounding quotes and brackets, a trailing colon or period and
	// a leading "./" removed, nothing else changed (".." is kept for the
	// harness to refuse).
	Path string `json:"path,omitempty"`
	// Start and End are the 1-based inclusive line window of a READ
	// (path:120-220); 0 when absent.
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
	// Body is the whole file of a WRITE, fences stripped, ending with exactly
	// one "\n".
	Body string `json:"body,omitempty"`
	// Find and Replace are the lines of a PATCH's blocks, fences stripped,
	// joined with "\n", without a final newline.
	Find    string `json:"find,omitempty"`
	Replace string `json:"replace,omitempty"`
	// Skill is the name of a SKILL (locate, outline, scaffold-test, ...).
	Skill string `json:"skill,omitempty"`
	// Args are a SKILL's arguments or a RUN's target words, verbatim.
	Args []string `json:"args,omitempty"`
	// Text is an ASK's question or a DONE's summary, verbatim, trimmed.
	Text string `json:"text,omitempty"`
	// Hunks are the hunks of a PATCH written as a unified diff, in the
	// order written; Find and Replace are then empty.
	Hunks []Hunk `json:"hunks,omitempty"`
	// Last asks a READ for the last Last lines of the file (tail -n), a
	// window only the harness can place, since it knows the file's length.
	Last int `json:"last,omitempty"`
	// Candidates are the words after a READ/WRITE/PATCH verb, cleaned, when
	// the first is not a file name ("READ the file x.py"): the harness takes
	// the one that names an existing file, and Path (the first word that
	// looks like a file name) when none does.
	Candidates []string `json:"candidates,omitempty"`
	// Shape names the tolerated shapes that matched, joined with "+" in the
	// order of ShapeCodes, or "canonical".
	Shape string `json:"shape"`
	// Via is viaText or ViaToolCall.
	Via string `json:"via"`
	// Repairs are the mechanical repairs made to the draft, in the order of
	// repairCodes.
	Repairs []string `json:"repairs,omitempty"`
}

// Hunk is one hunk of a unified diff: the lines it expects (context and
// removed) and the lines it leaves (context and added), as file text with
// every line ending in "\n" (so that no lines and one empty line differ),
// and the hunk as written, for messages.
type Hunk struct {
	Old  string `json:"old"`
	New  string `json:"new"`
	Text string `json:"text"`
}

// Error codes of a draft that is refused for a reason other than holding
// no action (Error.Code; empty for an unreadable draft).
const (
	// codeShellCommand is a shell command the harness will not run.
	codeShellCommand = schemas.CodeShellCommand
	// codeAmbiguous is a draft that reads as two different actions or
	// files.
	codeAmbiguous = schemas.CodeAmbiguousDraft
	// CodeReasoningCut is a reply that ended inside its reasoning: there
	// is no answer to read, and the reasoning is never read for one.
	CodeReasoningCut = schemas.CodeReasoningCut
)

// Error is a draft the harness does not act on: one that holds no readable
// action, or (Code set) one that was read but is refused, a shell command or
// a draft that reads two ways. Its message is written for the model: it says
// what was missing and which shapes are accepted, or what to send instead.
type Error struct {
	// Draft is the raw reply (for native tool calls, the calls rendered as
	// name and JSON arguments after any content).
	Draft string
	// Reason says what was missing, e.g. "no action verb found".
	Reason string
	// Verb is the verb recognised before the draft failed, if any.
	Verb string
	// Shape names the shapes matched before the draft failed, or "none".
	Shape string
	// Via is viaText or ViaToolCall.
	Via string
	// Code says why a draft that was read is refused (codeShellCommand,
	// codeAmbiguous, CodeReasoningCut, or the code of a reply never acted
	// on: schemas.CodePlan, CodeProtocolExample, CodeQuestion,
	// CodeWaiting), empty when no action could be read. It is the code the
	// harness records.
	Code schemas.Code
}

func (e *Error) Error() string {
	switch e.Code {
	case codeShellCommand:
		return e.Reason
	case codeAmbiguous:
		return "your reply can be read two ways: " + e.Reason + ". Send one action naming one file, e.g. READ src/app.py"
	case CodeReasoningCut:
		return ReasoningCutMessage
	case schemas.CodePlan, schemas.CodeProtocolExample, schemas.CodeQuestion, schemas.CodeWaiting:
		return "your reply is not acted on: " + e.Reason
	}
	return "could not read an action from your reply: " + e.Reason + ".\n" + acceptedShort()
}

// Shape codes, in the order they are joined in Action.Shape.
const (
	ShapeCanonical          = "canonical"
	ShapeToolCall           = "tool-call"
	shapeThinkBlock         = "think-block"
	shapeWholeReplyFence    = "whole-reply-fence"
	shapeFencedAction       = "fenced-action"
	shapeJSONCall           = "json-call"
	shapeChatter            = "chatter"
	shapeBlockquote         = "blockquote"
	shapeHeading            = "heading"
	shapeListMarker         = "list-marker"
	shapeBoldLabel          = "bold-label"
	shapeActionLabel        = "action-label"
	shapeInlineCode         = "inline-code"
	shapeLowercase          = "lowercase"
	shapeVerbAlias          = "verb-alias"
	shapeVerbColon          = "verb-colon"
	shapeCallSyntax         = "call-syntax"
	shapeBracketedName      = "bracketed-name"
	shapeReasonAfterVerb    = "reason-after-verb"
	shapeLinesWords         = "lines-words"
	shapeDoneLastLine       = "done-last-line"
	shapeLabelVariant       = "label-variant"
	shapeSearchReplaceBlock = "search-replace-block"
	// Foreign formats: the documented output formats of models and agent
	// frameworks (docs/harness.md names the source of each).
	shapePythonTag         = "python-tag"
	shapeFunctionTag       = "function-tag"
	shapePythonicList      = "pythonic-list"
	shapeJSONAction        = "json-action"
	shapeReAct             = "react"
	shapeShellBlock        = "shell-block"
	shapeAiderWhole        = "aider-whole"
	shapeAiderDiff         = "aider-diff"
	ShapeUnifiedDiff       = "unified-diff"
	shapeFenceNameComment  = "fence-name-comment"
	shapeFenceInfoName     = "fence-info-name"
	shapeFenceNameSentence = "fence-name-sentence"
	shapeVerbAfterChatter  = "verb-after-chatter"
	shapeBracketedAction   = "bracketed-action"
	shapeDoneAlias         = "done-alias"
	shapePathAmongWords    = "path-among-words"
	// The one call reader's wrappers and payloads (calls.go).
	shapeCallTag       = "call-tag"
	shapeParameterTags = "parameter-tags"
	shapeXMLTool       = "xml-tool"
	shapePythonCall    = "python-call"
	// ShapeTemplateSyntax is what ParseWith adds to the shape of a reply
	// read by the syntax learned from the model's own chat template
	// (syntax.go). It is no code of Parse's (ShapeCodes leaves it out); a
	// run given the syntax (harness.Config.Syntax) records it.
	ShapeTemplateSyntax = "template-syntax"
)

// Repair codes, in the order they are listed in Action.Repairs.
const (
	repairCRLF                = "crlf-to-lf"
	repairNameFromBrackets    = "name-from-brackets"
	repairPathSlashes         = "path-slashes"
	repairStripDotSlash       = "strip-dot-slash"
	repairStripPathPunct      = "strip-path-punctuation"
	repairStripFence          = "strip-fence"
	repairStripFourBacktick   = "strip-four-backtick-fence"
	repairStripTildeFence     = "strip-tilde-fence"
	repairUnclosedFence       = "unclosed-fence"
	repairDedentBody          = "dedent-body"
	repairUnfencedBody        = "unfenced-body"
	repairUnfencedFind        = "unfenced-find"
	repairUnfencedReplace     = "unfenced-replace"
	repairExtraBlocksIgnored  = "extra-blocks-ignored"
	repairExtraActionsIgnored = "extra-actions-ignored"
	repairStripSpecialTokens  = "strip-special-tokens"
	repairStripNameComment    = "strip-name-comment"
	// RepairAgentRoot is recorded by the harness, which can see the files:
	// a path under an agent framework's root (/workspace, /testbed,
	// /repo) whose rest names a file in the workspace, read as that file.
	RepairAgentRoot = "agent-root"
	// RepairMergeElided is recorded by the harness, which has the file: a
	// write whose new text left existing code out behind a marker ("# ...
	// rest unchanged ..."), the code filled back in from the file
	// (MergeElided).
	RepairMergeElided = "merge-elided"
)

// shapeTable lists every shape code but canonical once, in the order
// they are joined in Action.Shape; foreign marks the formats other than
// this protocol's: an action read from one is answered with its
// canonical form, so that the model can converge on the protocol.
var shapeTable = []struct {
	code    string
	foreign bool
}{
	{ShapeToolCall, false}, {shapeThinkBlock, false}, {shapeWholeReplyFence, false}, {shapeFencedAction, false},
	{shapeJSONCall, true}, {shapeChatter, false}, {shapeBlockquote, false}, {shapeHeading, false},
	{shapeListMarker, false}, {shapeBoldLabel, false}, {shapeActionLabel, false}, {shapeInlineCode, false},
	{shapeLowercase, false}, {shapeVerbAlias, false}, {shapeVerbColon, false}, {shapeCallSyntax, false},
	{shapeBracketedName, false}, {shapeReasonAfterVerb, false}, {shapeLinesWords, false},
	{shapeDoneLastLine, false}, {shapeLabelVariant, false}, {shapeSearchReplaceBlock, false},
	{shapePythonTag, true}, {shapeFunctionTag, true}, {shapePythonicList, true}, {shapeJSONAction, true},
	{shapeReAct, true}, {shapeShellBlock, true}, {shapeAiderWhole, true}, {shapeAiderDiff, true},
	{ShapeUnifiedDiff, true}, {shapeFenceNameComment, true}, {shapeFenceInfoName, true},
	{shapeFenceNameSentence, true}, {shapeVerbAfterChatter, true}, {shapeBracketedAction, true},
	{shapeDoneAlias, true}, {shapePathAmongWords, true}, {shapeCallTag, true}, {shapeParameterTags, true},
	{shapeXMLTool, true}, {shapePythonCall, true},
}

// shapeOrder is the codes of shapeTable in order, and foreignShapes the
// foreign ones (ShapeTemplateSyntax, which ParseWith adds, among them).
var shapeOrder, foreignShapes = shapeLists()

func shapeLists() ([]string, map[string]bool) {
	order := make([]string, len(shapeTable))
	foreign := map[string]bool{ShapeTemplateSyntax: true}
	for i, s := range shapeTable {
		order[i] = s.code
		if s.foreign {
			foreign[s.code] = true
		}
	}
	return order, foreign
}

// Foreign reports whether a shape string (codes joined with "+") names a
// format other than this protocol's.
func Foreign(shape string) bool {
	for _, c := range strings.Split(shape, "+") {
		if foreignShapes[c] {
			return true
		}
	}
	return false
}

var repairOrder = []string{
	repairCRLF, repairNameFromBrackets, repairPathSlashes, repairStripDotSlash,
	repairStripPathPunct, repairStripFence, repairStripFourBacktick,
	repairStripTildeFence, repairUnclosedFence, repairDedentBody,
	repairUnfencedBody, repairUnfencedFind, repairUnfencedReplace,
	repairExtraBlocksIgnored, repairExtraActionsIgnored,
	repairStripSpecialTokens, repairStripNameComment, RepairAgentRoot,
	RepairMergeElided,
}

// ShapeCodes returns every shape code the parser can record, canonical
// first, so that later stages can validate what they read.
func ShapeCodes() []string {
	return append([]string{ShapeCanonical}, shapeOrder...)
}

// repairCodes returns every repair code the parser can record.
func repairCodes() []string {
	return append([]string(nil), repairOrder...)
}

// Parse reads one action from a model reply: from calls when the model made
// native tool calls, otherwise from the text of content. It never touches the
// filesystem. A reply with no readable action yields an *Error.
func Parse(content string, calls []schemas.ToolCall) (Action, error) {
	if len(calls) > 0 {
		return parseToolCalls(content, calls)
	}
	return parseText(content)
}

// Record is the trace form of a parse of a reply's content, as a turn
// record keeps it, the reading included (RecordReading).
func Record(a Action, err error, content string) schemas.Action {
	var r schemas.Action
	if err != nil {
		r = schemas.Action{Shape: "none", Repairs: []string{}}
		if e, ok := err.(*Error); ok {
			r.Verb, r.Via = e.Verb, e.Via
			if e.Shape != "" {
				r.Shape = e.Shape
			}
		}
	} else {
		r = schemas.Action{Verb: a.Verb, Path: a.Path, Shape: a.Shape, Via: a.Via, Repairs: append([]string{}, a.Repairs...)}
	}
	RecordReading(&r, a, err, content)
	return r
}

// parser collects what one Parse call learns on the way, so that failures
// can still report the verb and shapes seen before them.
type parser struct {
	draft string
	via   string
	verb  string
	// shapes and repairs hold bit i for shapeOrder[i] and repairOrder[i]:
	// two maps made for every draft cost more than the rest of a short
	// one. otherShape is a code outside shapeOrder, which no shape string
	// names but which makes a failure's shape other than "none".
	shapes     uint64
	otherShape bool
	repairs    uint64
	cands      []string // path candidates of the action's target
}

// shapeBit and repairBit are the bits of the codes in parser.shapes and
// parser.repairs.
var shapeBit, repairBit = codeBits(shapeOrder), codeBits(repairOrder)

func codeBits(order []string) map[string]uint64 {
	if len(order) > 64 {
		panic("draft: more than 64 codes do not fit a parser's bits")
	}
	bits := make(map[string]uint64, len(order))
	for i, c := range order {
		bits[c] = 1 << i
	}
	return bits
}

func newParser(draft, via string) *parser {
	return &parser{draft: draft, via: via}
}

func (p *parser) shape(codes ...string) {
	for _, c := range codes {
		if b, ok := shapeBit[c]; ok {
			p.shapes |= b
		} else {
			p.otherShape = true
		}
	}
}

func (p *parser) repair(codes ...string) {
	for _, c := range codes {
		p.repairs |= repairBit[c]
	}
}

func (p *parser) shapeString() string {
	var parts []string
	for i, c := range shapeOrder {
		if p.shapes&(1<<i) != 0 {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ShapeCanonical
	}
	return strings.Join(parts, "+")
}

func (p *parser) repairList() []string {
	var out []string
	for i, c := range repairOrder {
		if p.repairs&(1<<i) != 0 {
			out = append(out, c)
		}
	}
	return out
}

func (p *parser) fail(reason string) *Error {
	shape := "none"
	if p.shapes != 0 || p.otherShape {
		shape = p.shapeString()
	}
	return &Error{Draft: p.draft, Reason: reason, Verb: p.verb, Shape: shape, Via: p.via}
}

// refuse is a draft that was read but is not to be acted on: code says why.
func (p *parser) refuse(code schemas.Code, reason string) *Error {
	e := p.fail(reason)
	e.Code = code
	return e
}

// done stamps the shape, via and repairs on a finished action.
func (p *parser) done(a Action) Action {
	a.Shape = p.shapeString()
	a.Via = p.via
	a.Repairs = p.repairList()
	if a.Candidates == nil && len(p.cands) > 1 {
		a.Candidates = p.cands
	}
	return a
}
