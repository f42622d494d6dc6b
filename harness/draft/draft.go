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
	ViaText     = "text"
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
	// Shape names the tolerated shapes that matched, joined with "+" in the
	// order of ShapeCodes, or "canonical".
	Shape string `json:"shape"`
	// Via is ViaText or ViaToolCall.
	Via string `json:"via"`
	// Repairs are the mechanical repairs made to the draft, in the order of
	// RepairCodes.
	Repairs []string `json:"repairs,omitempty"`
}

// Error is a draft that holds no readable action. Its message is written for
// the model: it says what was missing and which shapes are accepted.
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
	// Via is ViaText or ViaToolCall.
	Via string
}

func (e *Error) Error() string {
	return "could not read an action from your reply: " + e.Reason + ".\n" + acceptedShort()
}

// Shape codes, in the order they are joined in Action.Shape.
const (
	ShapeCanonical          = "canonical"
	ShapeToolCall           = "tool-call"
	ShapeThinkBlock         = "think-block"
	ShapeWholeReplyFence    = "whole-reply-fence"
	ShapeFencedAction       = "fenced-action"
	ShapeJSONCall           = "json-call"
	ShapeChatter            = "chatter"
	ShapeBlockquote         = "blockquote"
	ShapeHeading            = "heading"
	ShapeListMarker         = "list-marker"
	ShapeBoldLabel          = "bold-label"
	ShapeActionLabel        = "action-label"
	ShapeInlineCode         = "inline-code"
	ShapeLowercase          = "lowercase"
	ShapeVerbAlias          = "verb-alias"
	ShapeVerbColon          = "verb-colon"
	ShapeCallSyntax         = "call-syntax"
	ShapeBracketedName      = "bracketed-name"
	ShapeReasonAfterVerb    = "reason-after-verb"
	ShapeLinesWords         = "lines-words"
	ShapeDoneLastLine       = "done-last-line"
	ShapeLabelVariant       = "label-variant"
	ShapeSearchReplaceBlock = "search-replace-block"
)

// Repair codes, in the order they are listed in Action.Repairs.
const (
	RepairCRLF                = "crlf-to-lf"
	RepairNameFromBrackets    = "name-from-brackets"
	RepairPathSlashes         = "path-slashes"
	RepairStripDotSlash       = "strip-dot-slash"
	RepairStripPathPunct      = "strip-path-punctuation"
	RepairStripFence          = "strip-fence"
	RepairStripFourBacktick   = "strip-four-backtick-fence"
	RepairStripTildeFence     = "strip-tilde-fence"
	RepairUnclosedFence       = "unclosed-fence"
	RepairDedentBody          = "dedent-body"
	RepairUnfencedBody        = "unfenced-body"
	RepairUnfencedFind        = "unfenced-find"
	RepairUnfencedReplace     = "unfenced-replace"
	RepairExtraBlocksIgnored  = "extra-blocks-ignored"
	RepairExtraActionsIgnored = "extra-actions-ignored"
)

var shapeOrder = []string{
	ShapeToolCall, ShapeThinkBlock, ShapeWholeReplyFence, ShapeFencedAction,
	ShapeJSONCall, ShapeChatter, ShapeBlockquote, ShapeHeading,
	ShapeListMarker, ShapeBoldLabel, ShapeActionLabel, ShapeInlineCode,
	ShapeLowercase, ShapeVerbAlias, ShapeVerbColon, ShapeCallSyntax,
	ShapeBracketedName, ShapeReasonAfterVerb, ShapeLinesWords,
	ShapeDoneLastLine, ShapeLabelVariant, ShapeSearchReplaceBlock,
}

var repairOrder = []string{
	RepairCRLF, RepairNameFromBrackets, RepairPathSlashes, RepairStripDotSlash,
	RepairStripPathPunct, RepairStripFence, RepairStripFourBacktick,
	RepairStripTildeFence, RepairUnclosedFence, RepairDedentBody,
	RepairUnfencedBody, RepairUnfencedFind, RepairUnfencedReplace,
	RepairExtraBlocksIgnored, RepairExtraActionsIgnored,
}

// ShapeCodes returns every shape code the parser can record, canonical
// first, so that later stages can validate what they read.
func ShapeCodes() []string {
	return append([]string{ShapeCanonical}, shapeOrder...)
}

// RepairCodes returns every repair code the parser can record.
func RepairCodes() []string {
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

// Record is the trace form of a parse, as a turn record keeps it.
func Record(a Action, err error) schemas.Action {
	if err != nil {
		r := schemas.Action{Shape: "none", Repairs: []string{}}
		if e, ok := err.(*Error); ok {
			r.Verb, r.Via = e.Verb, e.Via
			if e.Shape != "" {
				r.Shape = e.Shape
			}
		}
		return r
	}
	repairs := append([]string{}, a.Repairs...)
	return schemas.Action{Verb: a.Verb, Path: a.Path, Shape: a.Shape, Via: a.Via, Repairs: repairs}
}

// parser collects what one Parse call learns on the way, so that failures
// can still report the verb and shapes seen before them.
type parser struct {
	draft   string
	via     string
	verb    string
	shapes  map[string]bool
	repairs map[string]bool
}

func newParser(draft, via string) *parser {
	return &parser{draft: draft, via: via, shapes: map[string]bool{}, repairs: map[string]bool{}}
}

func (p *parser) shape(codes ...string) {
	for _, c := range codes {
		p.shapes[c] = true
	}
}

func (p *parser) repair(codes ...string) {
	for _, c := range codes {
		p.repairs[c] = true
	}
}

func (p *parser) shapeString() string {
	var parts []string
	for _, c := range shapeOrder {
		if p.shapes[c] {
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
	for _, c := range repairOrder {
		if p.repairs[c] {
			out = append(out, c)
		}
	}
	return out
}

func (p *parser) fail(reason string) *Error {
	shape := "none"
	if len(p.shapes) > 0 {
		shape = p.shapeString()
	}
	return &Error{Draft: p.draft, Reason: reason, Verb: p.verb, Shape: shape, Via: p.via}
}

// done stamps the shape, via and repairs on a finished action.
func (p *parser) done(a Action) Action {
	a.Shape = p.shapeString()
	a.Via = p.via
	a.Repairs = p.repairList()
	return a
}
