package classify

import (
	"context"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/schemas"
)

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

// TurnSummaries streams the turns table of a dataset as TurnSummary rows,
// part file by part file. A refusal, nudge or parse failure with no
// feedback (in a part file written before the column existed, or copied
// from one) has it computed from its messages, which are read for those
// rows' batches only.
func TurnSummaries(ctx context.Context, dir string) iter.Seq2[Partitioned[TurnSummary], error] {
	return readTable(ctx, dir, TurnsTable, readTurnColumns)
}

// RunSummaries streams the runs table of a dataset as RunSummary rows,
// part file by part file.
func RunSummaries(ctx context.Context, dir string) iter.Seq2[Partitioned[RunSummary], error] {
	return readTable(ctx, dir, RunsTable, readRunColumns)
}

// readTurnSummaries reads a turns part file as TurnSummary rows through
// parquet-go's row reader: readTurnColumns's way for a file whose columns
// it cannot read page by page.
func readTurnSummaries(ctx context.Context, path string, part Partition, yield func(Partitioned[TurnSummary], error) bool) bool {
	var fb feedbackFiller
	defer fb.close()
	return readPartFilled(ctx, path, part, fb.fill, yield)
}

// turnMessages is the messages column of a turns row.
type turnMessages struct {
	Messages []MessageRow `parquet:"messages,list"`
}

// feedbackFiller computes the feedback of the turn summaries of one part
// file that lack it. It opens its reader of the messages at the first batch
// that needs them, and seeks it forward past the batches that do not.
type feedbackFiller struct {
	msgs *parquet.GenericReader[turnMessages]
	buf  []turnMessages
}

func lacksFeedback(t TurnSummary) bool {
	return t.Feedback == "" && hasFeedback(t.Kind)
}

func (fb *feedbackFiller) fill(f *parquet.File, first int64, rows []TurnSummary) error {
	if !slices.ContainsFunc(rows, lacksFeedback) {
		return nil
	}
	if fb.msgs == nil {
		fb.msgs = parquet.NewGenericReader[turnMessages](f)
	}
	if err := fb.msgs.SeekToRow(first); err != nil {
		return fmt.Errorf("read messages for the feedback: %w", err)
	}
	fb.buf = slices.Grow(fb.buf[:0], len(rows))[:len(rows)]
	clear(fb.buf)
	n, err := fb.msgs.Read(fb.buf)
	if n < len(rows) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read messages for the feedback: %w", err)
	}
	for i := range rows {
		if lacksFeedback(rows[i]) {
			rows[i].Feedback = feedbackOfRows(rows[i].Kind, fb.buf[i].Messages)
		}
	}
	return nil
}

func (fb *feedbackFiller) close() {
	if fb.msgs != nil {
		fb.msgs.Close()
	}
}
