package dataset

import "github.com/pyharness/pyharness/schemas"

// TurnSummary is the columns of a turns row that a summary of the table
// needs. Reading a part file as TurnSummary reads these column chunks only,
// none of the text (messages, draft), which is most of the file.
type TurnSummary struct {
	CaseID    string       `parquet:"case_id,dict"`
	Tier      int32        `parquet:"tier"`
	Kind      schemas.Kind `parquet:"kind,dict"`
	Code      schemas.Code `parquet:"code,dict"`
	LabelFrom string       `parquet:"label_from,dict"`
	Feedback  string       `parquet:"feedback,dict"`
	// The turn's own action and outcome, for how the model wrote it.
	Verb        string         `parquet:"verb,dict"`
	Shape       string         `parquet:"shape,dict"`
	Status      schemas.Status `parquet:"status,dict"`
	OutcomeCode schemas.Code   `parquet:"outcome_code,dict"`
	ModelStep   bool           `parquet:"model_step"`
	// WarningCodes are the codes of the turn's warnings (context-full and
	// the like).
	WarningCodes []string `parquet:"warning_codes,list"`
	// ReasoningSource and ReasoningTokens say whether the reply had
	// reasoning, where it was found and its estimated size.
	ReasoningSource string `parquet:"reasoning_source,dict"`
	ReasoningTokens int32  `parquet:"reasoning_tokens"`
}

// Summary is the turn's columns that TurnSummary holds.
func (t *TurnRow) Summary() TurnSummary {
	return TurnSummary{CaseID: t.CaseID, Tier: t.Tier, Kind: t.Kind, Code: t.Code, LabelFrom: t.LabelFrom, Feedback: t.Feedback,
		Verb: t.Verb, Shape: t.Shape, Status: t.Status, OutcomeCode: t.OutcomeCode, ModelStep: t.ModelStep, WarningCodes: t.WarningCodes,
		ReasoningSource: t.ReasoningSource, ReasoningTokens: t.ReasoningTokens}
}

// RunSummary is the columns of a runs row that a summary of the table
// needs: not the task text, the model's settings or the suite counts.
type RunSummary struct {
	RunID        string               `parquet:"run_id"`
	CaseID       string               `parquet:"case_id,dict"`
	Tier         int32                `parquet:"tier"`
	Pass         int32                `parquet:"pass"`
	Verdict      schemas.Verdict      `parquet:"verdict,dict"`
	FailureClass schemas.FailureClass `parquet:"failure_class,dict"`
	ClaimedDone  bool                 `parquet:"claimed_done"`
	StopReason   schemas.StopReason   `parquet:"stop_reason,dict"`
	ModelSteps   int32                `parquet:"model_steps"`
	Turns        int32                `parquet:"turns"`
	// Writes are read for their number.
	Writes       []Write  `parquet:"writes,list"`
	FirstFailure string   `parquet:"first_failure"`
	Tags         []string `parquet:"tags,list"`
}

// Summary is the run's columns that RunSummary holds.
func (r *RunRow) Summary() RunSummary {
	return RunSummary{
		RunID: r.RunID, CaseID: r.CaseID, Tier: r.Tier, Pass: r.Pass,
		Verdict: r.Verdict, FailureClass: r.FailureClass, ClaimedDone: r.ClaimedDone, StopReason: r.StopReason,
		ModelSteps: r.ModelSteps, Turns: r.Turns, Writes: r.Writes, FirstFailure: r.FirstFailure, Tags: r.Tags,
	}
}
