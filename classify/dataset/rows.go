package dataset

import (
	"time"

	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/schemas"
)

// TurnRow is one row of the turns table: one step of one run, labelled by
// what the model was sent, with the messages sent at that step (the delta,
// not the whole context), the draft it answered and what the harness did.
// The partition columns source and model are in the directory names, not in
// the files.
type TurnRow struct {
	RunID   string `parquet:"run_id,dict"`
	Attempt int32  `parquet:"attempt"`
	Step    int32  `parquet:"step"`
	CaseID  string `parquet:"case_id,dict"`
	Tier    int32  `parquet:"tier"`
	Pass    int32  `parquet:"pass"`
	// Kind and Code label what the model was sent; LabelFrom says whether
	// the record carried them or the text rules gave them.
	Kind      schemas.Kind `parquet:"kind,dict"`
	Code      schemas.Code `parquet:"code,dict"`
	LabelFrom string       `parquet:"label_from,dict"`
	// Feedback is the line of the harness's message that says why, for a
	// refusal, nudge or parse failure ("" for other turns): what stats
	// counts per code, stored so that it need not read the messages.
	Feedback string `parquet:"feedback,dict"`
	// Messages are the messages added at this step (the whole prompt when
	// Replaced), as recorded.
	//
	// Their content and the draft are most of the table's bytes. Their
	// pages, as every column's, are snappy (classify's page codec): no
	// reader of the summary columns (stats, DuckDB's query) reads them.
	Messages             []MessageRow `parquet:"messages,list"`
	Replaced             bool         `parquet:"replaced"`
	PromptHash           string       `parquet:"prompt_hash"`
	PromptTokensEstimate int32        `parquet:"prompt_tokens_estimate"`
	ElidedTokens         int32        `parquet:"elided_tokens"`
	// Draft is the model's reply text; ReplyToolCalls its native tool
	// calls as JSON ("" when there were none).
	Draft    string `parquet:"draft"`
	Thinking string `parquet:"thinking"`
	// Reasoning is the turn's reasoning as the harness read it apart from
	// the draft (schemas.Reasoning): its text, where it was found ("" for
	// none) and the harness's token estimate of it.
	Reasoning       string         `parquet:"reasoning"`
	ReasoningSource string         `parquet:"reasoning_source,dict"`
	ReasoningTokens int32          `parquet:"reasoning_tokens"`
	ReplyToolCalls  string         `parquet:"reply_tool_calls"`
	FinishReason    string         `parquet:"finish_reason,dict"`
	Verb            string         `parquet:"verb,dict"`
	Path            string         `parquet:"path"`
	Shape           string         `parquet:"shape,dict"`
	Via             string         `parquet:"via,dict"`
	Repairs         []string       `parquet:"repairs,list"`
	Status          schemas.Status `parquet:"status,dict"`
	OutcomeCode     schemas.Code   `parquet:"outcome_code,dict"`
	OutcomeMessage  string         `parquet:"outcome_message"`
	FilesChanged    []string       `parquet:"files_changed,list"`
	ModelStep       bool           `parquet:"model_step"`
	// ModelCalls counts the calls to the model server for this step,
	// failed ones included.
	ModelCalls int32 `parquet:"model_calls"`
	// WarningCodes are the stable codes the turn's warnings start with
	// (context-full, context-truncated, context-overflow, …), each once;
	// part files written before the column read as none.
	WarningCodes []string `parquet:"warning_codes,list"`
	// The server's figures are null where it reported none (a server that
	// sends no durations, a stream without usage): zero is a measurement.
	PromptTokens     *int32     `parquet:"prompt_tokens,optional"`
	OutputTokens     *int32     `parquet:"output_tokens,optional"`
	PromptEvalTokens *int32     `parquet:"prompt_eval_tokens,optional"`
	CachedTokens     *int32     `parquet:"cached_tokens,optional"`
	TotalMS          int64      `parquet:"total_ms"`
	LoadMS           *int64     `parquet:"load_ms,optional"`
	PromptEvalMS     *int64     `parquet:"prompt_eval_ms,optional"`
	EvalMS           *int64     `parquet:"eval_ms,optional"`
	TTFTMS           *int64     `parquet:"ttft_ms,optional"`
	StartedAt        *time.Time `parquet:"started_at,optional,timestamp(microsecond:utc)"`
	EndedAt          *time.Time `parquet:"ended_at,optional,timestamp(microsecond:utc)"`
}

// MessageRow is one chat message of a turn's delta as the turns table
// stores it: a schemas.Message with its native tool calls as a JSON string,
// for Parquet has no column type for their free-form arguments.
type MessageRow struct {
	Role    string `parquet:"role,dict"`
	Content string `parquet:"content"`
	// ToolCalls are the message's native tool calls as JSON, "" for none.
	ToolCalls  string `parquet:"tool_calls"`
	ToolCallID string `parquet:"tool_call_id"`
}

// RunRow is one row of the runs table: one run (its last attempt), with its
// verdict, failure class, how it stopped and the suite counts.
type RunRow struct {
	RunID   string `parquet:"run_id"`
	Attempt int32  `parquet:"attempt"`
	CaseID  string `parquet:"case_id,dict"`
	Tier    int32  `parquet:"tier"`
	Pass    int32  `parquet:"pass"`
	// Backend and ModelName are the model as recorded; the model partition
	// is their schemas.Model.Label.
	Backend        string  `parquet:"backend,dict"`
	ModelName      string  `parquet:"model_name,dict"`
	ModelDigest    string  `parquet:"model_digest,dict"`
	Seed           int64   `parquet:"seed"`
	Temperature    float64 `parquet:"temperature"`
	NumCtx         int32   `parquet:"num_ctx"`
	NumPredict     int32   `parquet:"num_predict"`
	HarnessVersion string  `parquet:"harness_version,dict"`
	HarnessCommit  string  `parquet:"harness_commit,dict"`
	Task           string  `parquet:"task"`
	// Complete is false for a run whose trace has no run_end: its verdict
	// is "incomplete" and it is in no score.
	Complete     bool                 `parquet:"complete"`
	Verdict      schemas.Verdict      `parquet:"verdict,dict"`
	FailureClass schemas.FailureClass `parquet:"failure_class,dict"`
	ClaimedDone  bool                 `parquet:"claimed_done"`
	StopReason   schemas.StopReason   `parquet:"stop_reason,dict"`
	Steps        int32                `parquet:"steps"`
	ModelSteps   int32                `parquet:"model_steps"`
	// Turns counts the turn records read, which is Steps for a complete
	// run.
	Turns        int32   `parquet:"turns"`
	Writes       []Write `parquet:"writes,list"`
	ChecksRan    bool    `parquet:"checks_ran"`
	ChecksPassed bool    `parquet:"checks_passed"`
	FirstFailure string  `parquet:"first_failure"`

	SuiteBeforeRan         int32  `parquet:"suite_before_ran"`
	SuiteBeforePassed      int32  `parquet:"suite_before_passed"`
	SuiteBeforeFailed      int32  `parquet:"suite_before_failed"`
	SuiteBeforeErrors      int32  `parquet:"suite_before_errors"`
	SuiteBeforeImportError string `parquet:"suite_before_import_error"`
	SuiteAfterRan          int32  `parquet:"suite_after_ran"`
	SuiteAfterPassed       int32  `parquet:"suite_after_passed"`
	SuiteAfterFailed       int32  `parquet:"suite_after_failed"`
	SuiteAfterErrors       int32  `parquet:"suite_after_errors"`
	SuiteAfterImportError  string `parquet:"suite_after_import_error"`

	DurationMS int64      `parquet:"duration_ms"`
	StartedAt  *time.Time `parquet:"started_at,optional,timestamp(microsecond:utc)"`
	EndedAt    *time.Time `parquet:"ended_at,optional,timestamp(microsecond:utc)"`
	// TraceFile is the trace file's name under the trace directory, where
	// dedupe and export read the full text.
	TraceFile string `parquet:"trace_file"`
	// Tags are the run's tags (a dogfood manifest entry's), empty in part
	// files written before the column existed.
	Tags []string `parquet:"tags,list"`
}

// Write is one file a run changed.
type Write struct {
	Path    string `parquet:"path"`
	Added   int32  `parquet:"added"`
	Removed int32  `parquet:"removed"`
}

// Partition names the Hive partition a run's rows go to.
type Partition struct {
	Source string
	Model  string
}

// HasFeedback reports whether turns of a kind carry a feedback line: the
// refusals, nudges and parse failures.
func HasFeedback(kind schemas.Kind) bool {
	return kind == schemas.KindRefusalOrNudge || kind == schemas.KindParseFailure
}

// FeedbackOf is the Feedback column of a turn of a kind sent these messages.
func FeedbackOf(kind schemas.Kind, msgs []schemas.Message) string {
	if !HasFeedback(kind) {
		return ""
	}
	return turnlabel.FeedbackLine(turnlabel.Feedback(msgs))
}

// FeedbackOfRows is FeedbackOf for the messages as the table stores them.
func FeedbackOfRows(kind schemas.Kind, rows []MessageRow) string {
	if !HasFeedback(kind) {
		return "" // without converting the messages
	}
	msgs := make([]schemas.Message, len(rows))
	for i, m := range rows {
		msgs[i] = schemas.Message{Role: m.Role, Content: m.Content}
	}
	return FeedbackOf(kind, msgs)
}

// FillFeedback gives a row read from a part file written before the
// feedback column (or copied from one) its feedback line.
func (t *TurnRow) FillFeedback() {
	if t.Feedback == "" {
		t.Feedback = FeedbackOfRows(t.Kind, t.Messages)
	}
}
