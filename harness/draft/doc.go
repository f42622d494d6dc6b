// Package draft turns one model reply (a draft) into exactly one harness
// action, reading the shapes chat models actually write rather than only the
// canonical protocol.
//
// Local models rarely emit reliable native tool calls, so the protocol is
// text, and a draft that parses to nothing costs a whole step. The parser is
// therefore tolerant of decoration (bold labels, list markers, a reason after
// the verb, a whole-reply fence, lower-case and call-like verbs, names in
// brackets, chatter around the action), but it never guesses: a name is taken
// from the brackets the model put it in, and a signature the model wrote after
// a path is ignored, never turned into a file name or a body.
//
// Reasoning comes off first (splitReasoning, ReadReasoning): a <think>
// block, its kin and harmony's analysis channel are recorded apart and never
// read for an action, and a reply that ended inside its reasoning is refused
// (CodeReasoningCut).
//
// Beyond this protocol's own shapes it reads the output formats that local
// models and agent frameworks document, when no line opens with a verb.
// Calls are proposed by sources in order: the syntax learned from the
// model's own chat template (syntax.go, ParseWith), the wrappers models
// and frameworks document (calls.go: call tags and tokens, fences, bare
// JSON, XML tool elements, <function=…> bodies, Python calls, a bracketed
// line of prose, a tool block one field a line), and the calls' general
// structure where no known wrapper gives a whole call (structure.go: a
// tool's name, whatever tokens, marks or fence stand around it, then its
// arguments). No reader is named for a model family. Each source runs
// once on a reply, on a parser of its own, and proposes whole calls; one
// rule picks: a whole call beats a partial one whatever its source, two
// different whole calls are ambiguous, so a template never makes a reading
// worse. Every call,
// native tool calls too, is mapped through one lexicon of tool and
// argument names (lexicon.go), its arguments found by what they are (a
// path, a body, old and new text, a command) wherever they sit in nested
// objects, and an argument that holds another edit format (a SEARCH/REPLACE
// block as content) is read as that format: a new framework's format is a
// lexicon entry, not a reader.
//
// Some replies are never acted on, whatever action their words could be
// read as (intent.go): a plan of what the model will do, a description or
// example of the protocol, a question asked in prose, a reply that waits
// for a go-ahead. Each is refused with its own code and a message asking
// for the one action to take now. A new text of a file that leaves existing
// code out behind a marker is filled back in from the file by MergeElided
// where that needs no guess, and refused (schemas.CodeElidedWrite) where it does.
// It also reads LangChain's ReAct, shell-agent bash blocks (a command that
// shows a file is a READ, one that runs the tests a RUN; any other is
// refused, never run), Aider's whole, diff and udiff edit formats, files
// named beside or inside their fence, leaked chat-template tokens, and verbs
// in odd places. A draft that reads two ways (two different calls, two
// files) is refused (Error.Code), and where only the workspace can decide
// (which of the words after a verb is a file, where "the last N lines"
// start, whether /workspace/x.py is x.py) the action carries what the
// harness needs to decide.
//
// Every tolerance that applied is recorded in Action.Shape and every
// mechanical change to the draft in Action.Repairs, as stable codes, so that
// classification and training-data export can tell a canonical draft from a
// repaired one. A draft that does not parse yields an *Error whose message
// tells the model which shapes are accepted.
//
// The parser never touches the filesystem and never resolves a path: a path
// is recorded as the model named it (with slashes, quotes and a leading "./"
// cleaned), ".." included, because deciding what is in scope is the
// harness's job and a rewritten path would hide what the model asked for.
package draft
