package schemas

// The trace's vocabulary: the kinds, statuses, codes, verdicts, failure
// classes and stop reasons a record holds. They are typed strings, so a
// record marshals each as its string, and every stage that reads a trace
// (classify, stats, export) names them from here rather than from the
// harness that writes them.

// Kind is what the harness sent the model at a turn (Sent.Kind).
type Kind string

// Kinds of what the harness sent the model at a turn.
const (
	KindOpening        Kind = "opening"
	KindToolResult     Kind = "tool-result"
	KindRefusalOrNudge Kind = "refusal-or-nudge"
	KindParseFailure   Kind = "parse-failure"
)

// Status is what became of a turn's action (Outcome.Status).
type Status string

// Outcome statuses of a turn.
const (
	StatusApplied Status = "applied"
	StatusRefused Status = "refused"
	StatusFailed  Status = "failed"
	StatusStopped Status = "stopped"
)

// Code is the stable code of what the harness sent back at a turn
// (Sent.Code, Outcome.Code), and the first word of a turn warning.
type Code string

// Guard codes: the stable codes of what the harness sends back.
const (
	CodeParseFailed     Code = "parse-failed"
	CodeRunTestsFirst   Code = "run-tests-first"
	CodeReadBeforePatch Code = "read-before-patch"
	CodeWrongFile       Code = "wrong-file"
	CodeFindNotFound    Code = "find-not-found"
	CodeRepeatRead      Code = "repeat-read"
	CodeRepeatPatch     Code = "repeat-patch"
	CodeTooLateToAsk    Code = "too-late-to-ask"
	CodeNoAnswer        Code = "no-answer"
	CodeSkillRepeated   Code = "skill-repeated"
	CodeOutsideScope    Code = "outside-scope"
	CodeDeletedSubject  Code = "deleted-subject"
	CodeQuoteRequired   Code = "quote-required"
	CodeNameMissing     Code = "name-missing"
	CodeVagueName       Code = "vague-name"
	CodeModuleTwice     Code = "module-twice"
	CodeSuiteBroken     Code = "suite-broken"
	CodeEmptyReply      Code = "empty-reply"
	CodeNoSuchFile      Code = "no-such-file"
	CodeBadSkill        Code = "bad-skill"
	CodeFindAmbiguous   Code = "find-ambiguous"
	CodeTooLarge        Code = "too-large"
	CodeNotText         Code = "not-text"
	// CodeShellCommand is a shell command, which the harness never runs.
	CodeShellCommand Code = "shell-command"
	// CodeAmbiguousDraft is a draft that reads as two files or two
	// actions.
	CodeAmbiguousDraft Code = "ambiguous-draft"
	// CodeReasoningCut is a reply that ended inside its reasoning (the
	// output limit or the context ran out before an answer): no action is
	// ever read from reasoning.
	CodeReasoningCut Code = "reasoning-cut"
	// Replies never acted on, though an action could be read from their
	// words: a plan of what the model will do, a description or example
	// of the protocol, a question back to the user in prose, a reply that
	// waits for a go-ahead.
	CodePlan            Code = "plan-not-action"
	CodeProtocolExample Code = "protocol-example"
	CodeQuestion        Code = "question-to-user"
	CodeWaiting         Code = "waiting-for-go-ahead"
	// CodeElidedWrite is a write whose new text leaves existing code out
	// ("# ... rest of the file unchanged ...") where it cannot be filled
	// back in from the file without guessing.
	CodeElidedWrite Code = "elided-write"
	// Outcome codes that are not guards.
	CodeBrokeSuite       Code = "broke-suite"
	CodeContextTruncated Code = "context-truncated"
	CodeContextOverflow  Code = "context-overflow"
	// CodeContextFull starts the warning on a turn whose reply was cut
	// because prompt and output filled the context window, before
	// num_predict: the server's finish reason ("length") is the same as
	// for a num_predict stop.
	CodeContextFull Code = "context-full"
	// CodeSuiteNotRun is a turn warning: the suite could not be started
	// to check whether a break was restored.
	CodeSuiteNotRun Code = "suite-not-run"
	// CodeRegexFallback is a turn (or run) warning: some Python
	// definitions were read by regular expression instead of by the
	// interpreter's ast module, because a source does not parse (a draft
	// with a syntax error) or no interpreter could be run.
	CodeRegexFallback Code = "regex-fallback"
)

// RepairWrapTestClass is the repair the harness adds to the parser's own
// (Action.Repairs): bare test functions of a unittest module wrapped in the
// TestCase class they need.
const RepairWrapTestClass = "wrap-test-class"

// Verdict is how a run ended (RunEnd.Verdict).
type Verdict string

// Verdicts of a run.
const (
	VerdictWorked    Verdict = "worked"
	VerdictFailed    Verdict = "failed"
	VerdictError     Verdict = "error"
	VerdictCancelled Verdict = "cancelled"
	// VerdictUnjudged is a run its suite could not judge: the suite ran no
	// test, before or after the change (RunEnd.Reason says which). It is
	// not a score's (Verdict.Judged) and never a training target.
	VerdictUnjudged Verdict = "unjudged"
)

// FailureClass says how a failed run failed (RunEnd.FailureClass).
type FailureClass string

// Failure classes of a failed run.
const (
	FailWroteNothing   FailureClass = "wrote-nothing"
	FailWrongThing     FailureClass = "wrong-thing"
	FailDidNotDoTheJob FailureClass = "did-not-do-the-job"
)

// StopReason is why a run stopped (RunEnd.StopReason).
type StopReason string

// Stop reasons of a run.
const (
	StopDone         StopReason = "done"
	StopBudget       StopReason = "budget"
	StopBrokeSuite   StopReason = "broke-suite"
	StopRepeatPatch  StopReason = "repeat-patch"
	StopModelError   StopReason = "model-error"
	StopCancelled    StopReason = "cancelled"
	StopNoModelSteps StopReason = "no-model-steps"
	// StopStuck: the same draft refused with the same code several times
	// in a row (RunEnd.Stuck says which).
	StopStuck StopReason = "stuck"
)
