package schemas

import (
	"time"
)

// Schema is the name and major version written on every run_start record.
const Schema = "pyharness.trace/v1"

// schemaMajor is the major version this build reads and writes.
const schemaMajor = 1

// SchemaMinor is the minor version this build writes. Readers accept every
// minor of schemaMajor and ignore fields they do not know.
//
// Minor 1 added the model's context sizes (Model.Context), absent metrics
// (a server that does not report a figure leaves it out, where minor 0
// wrote 0), the server's cache and evaluation counts, and the estimate and
// message count of every attempt.
//
// Minor 2 added the turn's reasoning (Turn.Reasoning): the model's thinking,
// read apart from its answer, whether the server sent it in a field of its
// own or the model wrote it inline; and Options.Think, whether the model
// was asked to think.
//
// Minor 3 added the verdict unjudged (a suite that ran no test judged
// nothing), SuiteCounts.ExitStatusOnly, and the stop reason stuck with
// the refusal that repeated (RunEnd.Stuck).
//
// Minor 4 added Model.ChatSyntax: the call and reasoning syntax learned
// from the model's chat template, and which template (its digest), or why
// none was.
//
// Minor 5 added SuiteCounts.NotRun: a run_end's suite_after that did not
// run (before minor 5 such a run recorded its suite_before there).
//
// Minor 6 added the reader's reading to a turn's action (Action.Reader,
// Stated, Canonical), so that the stages after collect do not read the
// reply again.
const SchemaMinor = 6

// Record types, the value of the "type" field.
const (
	TypeRunStart = "run_start"
	TypeTurn     = "turn"
	TypeRunEnd   = "run_end"
)

// Sources of a run.
const (
	SourceBench   = "bench"
	SourceDogfood = "dogfood"
	SourceAdhoc   = "adhoc"
)

// RunStart opens a run's trace: everything a replay of the run needs.
type RunStart struct {
	Type        string    `json:"type" jsonschema:"enum=run_start"`
	Schema      string    `json:"schema" jsonschema:"pattern=^pyharness\\.trace/v[0-9]+$"`
	SchemaMinor int       `json:"schema_minor" jsonschema:"minimum=0"`
	RunID       string    `json:"run_id" jsonschema:"minLength=1"`
	Attempt     int       `json:"attempt" jsonschema:"minimum=1"`
	Source      string    `json:"source" jsonschema:"enum=bench,enum=dogfood,enum=adhoc"`
	CaseID      string    `json:"case_id"`
	Tier        int       `json:"tier"`
	Pass        int       `json:"pass"`
	Model       Model     `json:"model"`
	Harness     Harness   `json:"harness"`
	Task        string    `json:"task"`
	Targets     []string  `json:"targets"`
	Names       []string  `json:"names"`
	Subject     string    `json:"subject"`
	Scope       []string  `json:"scope"`
	Suite       string    `json:"suite"`
	Python      string    `json:"python"`
	Repo        Repo      `json:"repo"`
	MaxSteps    int       `json:"max_steps,omitempty"`
	NativeTools bool      `json:"native_tools,omitempty"`
	Interactive bool      `json:"interactive,omitempty"`
	Tags        []string  `json:"tags,omitempty"`
	StartedAt   time.Time `json:"started_at"`
}

// Model names the backend and model of a run and the options sent to it.
type Model struct {
	// Backend is ollama, openai, scripted or replay.
	Backend string `json:"backend" jsonschema:"enum=ollama,enum=openai,enum=scripted,enum=replay"`
	Name    string `json:"name"`
	// Digest is the model digest where the server gives one.
	Digest  string  `json:"digest"`
	Host    string  `json:"host,omitempty"`
	Options Options `json:"options"`
	// ContextLength is the model's trained context as the server reports it.
	ContextLength int `json:"context_length,omitempty"`
	// Context is the context window asked for, the one the server says is
	// in force, and the one the harness budgeted against (minor 1).
	Context *ContextSizes `json:"context,omitempty"`
	// ChatSyntax is the syntax learned from the model's chat template, or
	// why none was (minor 4); nil for a backend that has no template.
	ChatSyntax *ChatSyntax `json:"chat_syntax,omitempty"`
}

// ChatSyntax says how the harness reads a model's calls and reasoning as
// its own chat template writes them (minor 4).
type ChatSyntax struct {
	// Template is the digest of the template's source ("sha256:…"), empty
	// when none was found.
	Template string `json:"template,omitempty"`
	// From says where the template came from: a file (--chat-template), a
	// llama-server's /props, Ollama's /api/show.
	From string `json:"from,omitempty"`
	// Calls and Reasoning sum up what was learned, empty when the
	// template writes no calls or no reasoning.
	Calls     string `json:"calls,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// None says why no syntax was learned (no template found, or one
	// that writes neither calls nor reasoning).
	None string `json:"none,omitempty"`
}

// ContextSizes says which context window a run had and where each figure
// came from, so that a run budgeted against a window the server never
// applied can be told apart in the trace.
type ContextSizes struct {
	// Requested is the num_ctx the user asked for (--num-ctx).
	Requested int `json:"requested"`
	// Sent is true when the backend sends num_ctx with every request
	// (Ollama's native API); OpenAI-compatible APIs have no such field, so
	// the server keeps its own window whatever was requested.
	Sent bool `json:"sent"`
	// Trained is the model's trained context as the server reports it; 0
	// when unknown.
	Trained int `json:"trained,omitempty"`
	// InForce is the window the server states it applies (llama-server's
	// n_ctx, Ollama's context for a loaded model, --context-size); 0 when
	// the server does not say.
	InForce int `json:"in_force,omitempty"`
	// Effective is the window the harness budgets prompts against: the
	// smallest of what is known to apply; 0 when nothing is known.
	Effective int `json:"effective"`
	// Source says where Effective came from: requested, trained, server,
	// context-size or unknown.
	Source string `json:"source" jsonschema:"enum=requested,enum=trained,enum=server,enum=context-size,enum=unknown"`
}

// Sources of ContextSizes.Effective.
const (
	ContextFromRequested   = "requested"
	ContextFromTrained     = "trained"
	ContextFromServer      = "server"
	ContextFromContextSize = "context-size"
	ContextUnknown         = "unknown"
)

// Options are the sampling and context options sent with every request.
type Options struct {
	Seed        int     `json:"seed"`
	Temperature float64 `json:"temperature"`
	NumCtx      int     `json:"num_ctx"`
	NumPredict  int     `json:"num_predict"`
	// Think is true when the model was asked to think (--think): Ollama's
	// think is sent with every request. Absent, the server decides (Ollama
	// thinks by default with a model that can).
	Think bool `json:"think,omitempty"`
}

// Harness identifies the build of pyharness that recorded a run.
type Harness struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Dirty   bool   `json:"dirty"`
}

// Repo is the repository a run worked on.
type Repo struct {
	Path   string `json:"path"`
	Commit string `json:"commit"`
	URL    string `json:"url,omitempty"`
}

// Turn is one step of a run: what was sent, what came back, what the
// harness did with it.
type Turn struct {
	Type      string  `json:"type" jsonschema:"enum=turn"`
	RunID     string  `json:"run_id" jsonschema:"minLength=1"`
	Step      int     `json:"step" jsonschema:"minimum=1"`
	Sent      Sent    `json:"sent"`
	Reply     Reply   `json:"reply"`
	Action    Action  `json:"action"`
	Outcome   Outcome `json:"outcome"`
	Metrics   Metrics `json:"metrics"`
	ModelStep bool    `json:"model_step"`
	// Reasoning is the reply's thinking, read apart from its answer; absent
	// when the reply had none (and in traces before minor 2).
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Attempts lists every call to the model server made for this step,
	// failed ones included, in order.
	Attempts  []Attempt `json:"attempts,omitempty"`
	Warnings  []string  `json:"warnings,omitempty"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
}

// Sent is what the harness sent the model at a turn.
type Sent struct {
	// Kind is empty only in traces converted from harnesses that do not
	// record it; classify then labels the turn by its text.
	Kind Kind `json:"kind" jsonschema:"enum=opening,enum=tool-result,enum=refusal-or-nudge,enum=parse-failure,enum="`
	// Code is the guard's stable code for a refusal or nudge, empty otherwise.
	Code Code `json:"code"`
	// Messages are the messages added since the previous turn's prompt (the
	// previous reply as sent back, then the harness's answer), or the whole
	// prompt when Replaced is true.
	Messages []Message `json:"messages"`
	// Replaced is true when the harness rewrote earlier context.
	Replaced bool `json:"replaced"`
	// PromptHash is PromptHash over the whole prompt as sent.
	PromptHash string `json:"prompt_hash" jsonschema:"pattern=^sha256:[0-9a-f]{64}$"`
	// Elided lists what the context budget left out of this prompt.
	Elided []Elision `json:"elided"`
	// PromptTokensEstimate is the harness's calibrated estimate of the prompt.
	PromptTokensEstimate int `json:"prompt_tokens_estimate,omitempty"`
}

// Message is one chat message.
type Message struct {
	Role       string     `json:"role" jsonschema:"enum=system,enum=user,enum=assistant,enum=tool"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a native tool call as the model sent it.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Elision is one thing the context budget left out or shortened.
type Elision struct {
	// What is repo-map, tool-result, file-window or message.
	What string `json:"what"`
	// Ref names the path or the step the elided text came from.
	Ref string `json:"ref"`
	// Tokens is the estimated size of what was left out.
	Tokens int `json:"tokens"`
}

// Reply is what the model answered.
type Reply struct {
	Content      string     `json:"content"`
	Thinking     string     `json:"thinking"`
	ToolCalls    []ToolCall `json:"tool_calls"`
	FinishReason string     `json:"finish_reason"`
}

// Reasoning is a reply's thinking, kept apart from the draft: no action is
// ever read from it, and the export hands it to the field trainers read for
// reasoning (or drops it), never to the trained answer.
type Reasoning struct {
	// Text is the thinking without its markers: the server's own field
	// first (Ollama's message.thinking, reasoning_content), then what the
	// model wrote inline, in that order.
	Text string `json:"text"`
	// Tokens is the harness's estimate of Text's size.
	Tokens int `json:"tokens"`
	// Source says where the thinking was found: one of the Reasoning*
	// constants.
	Source string `json:"source" jsonschema:"enum=server,enum=think-tag,enum=harmony,enum=think-bracket,enum=reasoning-tag"`
	// Cut is true when the reply ended inside its reasoning (num_predict
	// or the context ran out before an answer); such a draft is refused
	// reasoning-cut.
	Cut bool `json:"cut,omitempty"`
}

// Where a turn's reasoning was found (Reasoning.Source).
const (
	// ReasoningServer: the server sent it apart (message.thinking,
	// reasoning_content).
	ReasoningServer = "server"
	// ReasoningThinkTag: <think>…</think> in the content, the opening tag
	// possibly left in the prompt by the chat template.
	ReasoningThinkTag = "think-tag"
	// ReasoningHarmony: gpt-oss's analysis channel.
	ReasoningHarmony = "harmony"
	// ReasoningThinkBracket: [THINK]…[/THINK] (Mistral's reasoning models).
	ReasoningThinkBracket = "think-bracket"
	// ReasoningTag: <reasoning>…</reasoning>.
	ReasoningTag = "reasoning-tag"
)

// Action is the one action the parser read from a reply.
type Action struct {
	// Verb is READ, WRITE, PATCH, RUN, SKILL, ASK, DONE, or empty.
	Verb string `json:"verb"`
	Path string `json:"path"`
	// Shape names the parser shape that matched, or "none".
	Shape string `json:"shape"`
	// Via is "text" or "tool-call".
	Via     string   `json:"via,omitempty"`
	Repairs []string `json:"repairs"`
	// Reader is the version of the reply reader that read the draft the
	// harness acted on (draft.ReaderVersion); absent before minor 6 and
	// on a turn whose draft was refused before it was acted on. The stages
	// after collect take Stated and Canonical from a turn their own reader
	// version read, and read the reply again otherwise.
	Reader int `json:"reader,omitempty"`
	// Stated is true when the protocol can state the action in its
	// canonical form, the form an export trains.
	Stated bool `json:"stated,omitempty"`
	// Canonical is that form, written out, when it is not the reply's
	// content as written.
	Canonical string `json:"canonical,omitempty"`
}

// Outcome is what the harness did with the action.
type Outcome struct {
	Status       Status   `json:"status" jsonschema:"enum=applied,enum=refused,enum=failed,enum=stopped"`
	Code         Code     `json:"code"`
	Message      string   `json:"message"`
	FilesChanged []string `json:"files_changed"`
}

// Metrics are the model server's counts and durations for a turn. A figure
// the server did not report is nil and left out of the record (minor 1):
// zero is a measurement, absent is absent. TotalMS is always measured.
type Metrics struct {
	// PromptTokens is the whole prompt as the server counted it (Ollama's
	// prompt_eval_count, usage.prompt_tokens), cached part included.
	PromptTokens *int `json:"prompt_tokens,omitempty"`
	OutputTokens *int `json:"output_tokens,omitempty"`
	// PromptEvalTokens is the part of the prompt the server evaluated for
	// this request, the cached prefix left out (llama-server's
	// timings.prompt_n).
	PromptEvalTokens *int `json:"prompt_eval_tokens,omitempty"`
	// CachedTokens is the prefix the server reused from its prompt cache
	// (timings.cache_n, usage.prompt_tokens_details.cached_tokens).
	CachedTokens *int   `json:"cached_tokens,omitempty"`
	TotalMS      int64  `json:"total_ms"`
	LoadMS       *int64 `json:"load_ms,omitempty"`
	PromptEvalMS *int64 `json:"prompt_eval_ms,omitempty"`
	EvalMS       *int64 `json:"eval_ms,omitempty"`
	TTFTMS       *int64 `json:"ttft_ms,omitempty"`
}

// Count returns a reported figure, or 0 with ok false when it is absent.
func Count[T int | int64](p *T) (v T, ok bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Attempt is one call to the model server.
type Attempt struct {
	N int `json:"n" jsonschema:"minimum=1"`
	// Error is empty for the attempt that answered.
	Error string `json:"error"`
	// Status is the HTTP status when one was received.
	Status int `json:"status,omitempty"`
	// WaitMS is how long the harness waited before the next attempt.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// PromptTokensEstimate and Messages are the size of the prompt this
	// attempt sent, as the harness estimated it, so that a refit after an
	// overflow shows in the record as a smaller prompt (minor 1).
	PromptTokensEstimate int `json:"prompt_tokens_estimate,omitempty"`
	Messages             int `json:"messages,omitempty"`
}

// RunEnd closes a run's trace with its verdict.
type RunEnd struct {
	Type         string       `json:"type" jsonschema:"enum=run_end"`
	RunID        string       `json:"run_id" jsonschema:"minLength=1"`
	Verdict      Verdict      `json:"verdict" jsonschema:"enum=worked,enum=failed,enum=unjudged,enum=error,enum=cancelled"`
	FailureClass FailureClass `json:"failure_class" jsonschema:"enum=,enum=wrote-nothing,enum=wrong-thing,enum=did-not-do-the-job"`
	Checks       Checks       `json:"checks"`
	ClaimedDone  bool         `json:"claimed_done"`
	StopReason   StopReason   `json:"stop_reason" jsonschema:"enum=done,enum=budget,enum=broke-suite,enum=repeat-patch,enum=stuck,enum=model-error,enum=cancelled,enum=no-model-steps"`
	Steps        int          `json:"steps"`
	ModelSteps   int          `json:"model_steps"`
	Writes       []Write      `json:"writes"`
	SuiteBefore  SuiteCounts  `json:"suite_before"`
	SuiteAfter   SuiteCounts  `json:"suite_after"`
	Patch        string       `json:"patch"`
	DurationMS   int64        `json:"duration_ms"`
	// Reason says in one line why a failed run failed ("wrote nothing,
	// and claimed DONE", "tests/test_a.py::test_x fails after the run, not
	// before it"), for every place the verdict is shown (minor 2).
	Reason string `json:"reason,omitempty"`
	// Error is the model server's message when the run ended model-error.
	Error string `json:"error,omitempty"`
	// Stuck says which refusal repeated when the run stopped stuck.
	Stuck    *Stuck    `json:"stuck,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
	EndedAt  time.Time `json:"ended_at"`
}

// Stuck is the refusal that repeated until a run stopped stuck: the same
// draft, as the parser normalises it, refused with the same code Times
// times in a row from FromStep.
type Stuck struct {
	Code     Code `json:"code"`
	Times    int  `json:"times" jsonschema:"minimum=1"`
	FromStep int  `json:"from_step" jsonschema:"minimum=1"`
	// Draft is the first line of the repeated draft's answer, cut short.
	Draft string `json:"draft"`
}

// Checks are the hidden (benchmark) or manifest checks of a run.
type Checks struct {
	Ran          bool   `json:"ran"`
	Passed       bool   `json:"passed"`
	FirstFailure string `json:"first_failure"`
}

// Write is one file the run changed, with its line counts.
type Write struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// SuiteCounts are the counts read from one run of the test suite.
type SuiteCounts struct {
	Ran         int    `json:"ran"`
	Passed      int    `json:"passed"`
	Failed      int    `json:"failed"`
	Errors      int    `json:"errors"`
	Skipped     int    `json:"skipped,omitempty"`
	ImportError string `json:"import_error"`
	NoTests     bool   `json:"no_tests,omitempty"`
	TimedOut    bool   `json:"timed_out,omitempty"`
	ExitCode    int    `json:"exit_code,omitempty"`
	// ExitStatusOnly is set when the suite's runner could not be told
	// from its command and its output held no runner's report: the run
	// was read from its exit status alone, and the counts are zero.
	ExitStatusOnly bool `json:"exit_status_only,omitempty"`
	// NotRun is set on a run_end's suite_after when the suite did not run
	// after the run's last change (the run ended cancelled or in a model
	// error): the counts are zero and say nothing of the run's changes.
	NotRun bool `json:"not_run,omitempty"`
}
