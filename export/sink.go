package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
)

// Meta is the provenance of one exported row, written to meta.jsonl (one
// line per row of the data files, in the same order) or as Parquet columns,
// never into a training row where trainers would trip over it.
type Meta struct {
	Split string `json:"split"`
	// Row is the row's number in its split's file, from 0.
	Row     int             `json:"row"`
	RunID   string          `json:"run_id"`
	Step    int             `json:"step"`
	CaseID  string          `json:"case_id"`
	Group   string          `json:"group"`
	Tier    int             `json:"tier"`
	Source  string          `json:"source"`
	Model   string          `json:"model"`
	Verdict schemas.Verdict `json:"verdict"`
	Kind    schemas.Kind    `json:"kind"`
	Code    schemas.Code    `json:"code,omitempty"`
	// Weight is the pair's variety weight (mean 1 over the export); Copy
	// and Copies say which of its materialised copies this row is.
	Weight float64 `json:"weight"`
	Copy   int     `json:"copy"`
	Copies int     `json:"copies"`
	// Key is the exact key of the pair (xxhash64, hex); Multiplicity the
	// raw turns with that key; ClusterTurns the raw turns of its
	// near-duplicate cluster.
	Key          string `json:"key"`
	Multiplicity int    `json:"multiplicity"`
	ClusterTurns int    `json:"cluster_turns"`
	// Rejected* name the rejected draft of a preference pair.
	RejectedRunID string `json:"rejected_run_id,omitempty"`
	RejectedStep  int    `json:"rejected_step,omitempty"`
	PromptHash    string `json:"prompt_hash,omitempty"`
	// AsWritten is the trained draft as the model wrote it (its answer,
	// its native calls as name and JSON arguments), set when the row
	// trains it in another form: the protocol's canonical one.
	AsWritten string `json:"as_written,omitempty"`
}

// row is one exported pair: an SFT conversation in one of the layouts, or
// a preference pair.
type row struct {
	// messages is the messages layout's conversation, the draft last.
	messages []Message
	// prompt is the context of the prompt-completion layout and of a
	// preference pair; completion (SFT), or chosen and rejected, answer it.
	prompt, completion, chosen, rejected []Message
	// tools is the tools column (--keep-tool-calls).
	tools []tool
	meta  Meta
	// numCtx is the context size the run asked for, for the summary.
	numCtx int
	// reasoned is set when the trained draft carries its reasoning.
	reasoned bool
	// line is the row as the JSONL files hold it (appendRowLine), and
	// metaLine its meta.jsonl line, set by the JSONL sink's encode.
	line     []byte
	metaLine metaLine
}

// sink receives the rows of an export, split by split, and writes them.
// Each format is one sink; the conformance test runs every one.
type sink interface {
	// encode does what of writing r needs nothing but r, on the worker
	// that rendered it; write then writes it, in order.
	encode(r *row) error
	write(r *row) error
	// close finishes the files and returns their paths relative to the
	// export directory.
	close() ([]string, error)
	// abort removes what was started.
	abort()
}

// Data file names, as the trainers look for them: mlx-lm reads train,
// valid and test .jsonl from --data DIR (mlx_lm/tuner/datasets.py).
var jsonlNames = map[string]string{SplitTrain: "train.jsonl", splitValidation: "valid.jsonl", splitTest: "test.jsonl"}

// atomicFile is written beside its final name and renamed into place on
// commit, so a failed export never leaves a half-written file under a
// name a trainer reads.
type atomicFile struct {
	f    *os.File
	w    *bufio.Writer
	path string
}

func createAtomic(path string) (*atomicFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create export directory: %w", err)
	}
	f, err := os.Create(path + ".partial")
	if err != nil {
		return nil, fmt.Errorf("create export file: %w", err)
	}
	return &atomicFile{f: f, w: bufio.NewWriterSize(f, 256<<10), path: path}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.w.Write(p) }

func (a *atomicFile) commit() error {
	err := a.w.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	return nil
}

func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

// jsonlSink writes train.jsonl, valid.jsonl (test.jsonl) and meta.jsonl.
// With dpo set the rows are preference pairs, else SFT conversations.
type jsonlSink struct {
	dir    string
	dpo    bool
	splits []string
	files  map[string]*atomicFile
	// outs are where the rows of each split go: the file, or a check of
	// each row against a chat template in front of it. Each Write is one
	// whole row, newline included.
	outs map[string]io.Writer
	rows map[string]int
	meta *atomicFile
	// metaBuf holds the meta.jsonl line being written.
	metaBuf []byte
}

func newJSONLSink(dir string, splits []string, dpo bool) (*jsonlSink, error) {
	s := &jsonlSink{dir: dir, dpo: dpo, splits: splits, files: map[string]*atomicFile{}, outs: map[string]io.Writer{}, rows: map[string]int{}}
	for _, sp := range splits {
		f, err := createAtomic(filepath.Join(dir, jsonlNames[sp]))
		if err != nil {
			s.abort()
			return nil, err
		}
		s.files[sp], s.outs[sp] = f, f
	}
	f, err := createAtomic(filepath.Join(dir, "meta.jsonl"))
	if err != nil {
		s.abort()
		return nil, err
	}
	s.meta = f
	return s, nil
}

// encode encodes the row's training line and its meta.jsonl line, which
// lacks only the row number and copy that write gives it.
func (s *jsonlSink) encode(r *row) error {
	line, err := appendRowLine(make([]byte, 0, lineSize(r)), r, s.dpo)
	if err != nil {
		return fmt.Errorf("encode row: %w", err)
	}
	r.line = line
	if r.metaLine, err = newMetaLine(&r.meta); err != nil {
		return fmt.Errorf("write row metadata: %w", err)
	}
	return nil
}

// lineSize is about the size of a row's training line: its texts and a
// little for the keys around each message.
func lineSize(r *row) int {
	n := 64
	for _, msgs := range [][]Message{r.messages, r.prompt, r.completion, r.chosen, r.rejected} {
		for i := range msgs {
			n += 64 + len(msgs[i].Content) + len(msgs[i].ReasoningContent)
		}
	}
	return n + n/32
}

func (s *jsonlSink) write(r *row) error {
	out, ok := s.outs[r.meta.Split]
	if !ok {
		return fmt.Errorf("write row: no %s split", r.meta.Split)
	}
	line := r.line
	copies := max(r.meta.Copies, 0)
	if s.dpo || r.meta.Split != SplitTrain {
		copies = 1
	}
	for c := 1; c <= copies; c++ {
		if _, err := out.Write(line); err != nil {
			return fmt.Errorf("write row: %w", err)
		}
		s.metaBuf = r.metaLine.appendRowCopy(s.metaBuf[:0], s.rows[r.meta.Split], c)
		s.rows[r.meta.Split]++
		if _, err := s.meta.Write(s.metaBuf); err != nil {
			return fmt.Errorf("write row metadata: %w", err)
		}
	}
	return nil
}

func (s *jsonlSink) close() ([]string, error) {
	var names []string
	var errs []error
	for _, sp := range s.splits {
		errs = append(errs, s.files[sp].commit())
		names = append(names, jsonlNames[sp])
	}
	errs = append(errs, s.meta.commit())
	names = append(names, "meta.jsonl")
	return names, errors.Join(errs...)
}

func (s *jsonlSink) abort() {
	for _, f := range s.files {
		f.abort()
	}
	if s.meta != nil {
		s.meta.abort()
	}
}

// The Parquet message structs: role, content and reasoning_content in
// every message of every row (a struct of optional keys comes back
// null-filled, which breaks templates; reasoning_content is "" where there
// is none, which the templates read as none), with the per-message weight
// in the messages layout, and the tool calls as a JSON string and the
// call id with --keep-tool-calls (older datasets versions have no JSON
// type, and arguments differ from tool to tool).
type parquetMessage struct {
	Role             string `parquet:"role"`
	Content          string `parquet:"content"`
	ReasoningContent string `parquet:"reasoning_content"`
}

type parquetWeightedMessage struct {
	Role             string `parquet:"role"`
	Content          string `parquet:"content"`
	ReasoningContent string `parquet:"reasoning_content"`
	Weight           int64  `parquet:"weight"`
}

type parquetToolMessage struct {
	Role             string `parquet:"role"`
	Content          string `parquet:"content"`
	ReasoningContent string `parquet:"reasoning_content"`
	ToolCalls        string `parquet:"tool_calls"`
	ToolCallID       string `parquet:"tool_call_id"`
}

type parquetWeightedToolMessage struct {
	Role             string `parquet:"role"`
	Content          string `parquet:"content"`
	ReasoningContent string `parquet:"reasoning_content"`
	ToolCalls        string `parquet:"tool_calls"`
	ToolCallID       string `parquet:"tool_call_id"`
	Weight           int64  `parquet:"weight"`
}

// parquetProvenance are the provenance columns of every Parquet row,
// the pair's variety weight included (not materialised).
type parquetProvenance struct {
	Weight       float64         `parquet:"weight"`
	CaseID       string          `parquet:"case_id"`
	Group        string          `parquet:"group"`
	RunID        string          `parquet:"run_id"`
	Step         int64           `parquet:"step"`
	Source       string          `parquet:"source"`
	Model        string          `parquet:"model"`
	Verdict      schemas.Verdict `parquet:"verdict"`
	Kind         schemas.Kind    `parquet:"kind"`
	Key          string          `parquet:"key"`
	Multiplicity int64           `parquet:"multiplicity"`
	ClusterTurns int64           `parquet:"cluster_turns"`
	AsWritten    string          `parquet:"as_written"`
}

// The Parquet rows, one per layout, with and without the tools column
// (a JSON string, for the reasons of the tool calls).
type parquetCompletionRow[M any] struct {
	Prompt     []M `parquet:"prompt,list"`
	Completion []M `parquet:"completion,list"`
	parquetProvenance
}

type parquetCompletionToolsRow struct {
	Prompt     []parquetToolMessage `parquet:"prompt,list"`
	Completion []parquetToolMessage `parquet:"completion,list"`
	Tools      string               `parquet:"tools"`
	parquetProvenance
}

type parquetMessagesRow[M any] struct {
	Messages []M `parquet:"messages,list"`
	parquetProvenance
}

type parquetMessagesToolsRow struct {
	Messages []parquetWeightedToolMessage `parquet:"messages,list"`
	Tools    string                       `parquet:"tools"`
	parquetProvenance
}

func provenance(m Meta) parquetProvenance {
	return parquetProvenance{Weight: m.Weight, CaseID: m.CaseID, Group: m.Group, RunID: m.RunID, Step: int64(m.Step),
		Source: m.Source, Model: m.Model, Verdict: m.Verdict, Kind: m.Kind, Key: m.Key, Multiplicity: int64(m.Multiplicity),
		ClusterTurns: int64(m.ClusterTurns), AsWritten: m.AsWritten}
}

func convert[M any](msgs []Message, conv func(Message) M) []M {
	out := make([]M, len(msgs))
	for i, m := range msgs {
		out[i] = conv(m)
	}
	return out
}

func plainMessage(m Message) parquetMessage {
	return parquetMessage{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent}
}

func weightedMessage(m Message) parquetWeightedMessage {
	return parquetWeightedMessage{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent, Weight: messageWeight(m)}
}

func toolMessage(m Message) parquetToolMessage {
	calls := ""
	if len(m.ToolCalls) > 0 {
		b, _ := json.Marshal(m.ToolCalls)
		calls = string(b)
	}
	return parquetToolMessage{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent, ToolCalls: calls, ToolCallID: m.ToolCallID}
}

func weightedToolMessage(m Message) parquetWeightedToolMessage {
	t := toolMessage(m)
	return parquetWeightedToolMessage{Role: t.Role, Content: t.Content, ReasoningContent: t.ReasoningContent,
		ToolCalls: t.ToolCalls, ToolCallID: t.ToolCallID, Weight: messageWeight(m)}
}

// messageWeight is a message's training weight in a Parquet struct, where
// every message has the field: 0 for the user, system and tool messages.
func messageWeight(m Message) int64 {
	if m.Weight == nil {
		return 0
	}
	return int64(*m.Weight)
}

func toolsJSON(tools []tool) string {
	b, _ := json.Marshal(tools)
	return string(b)
}

// newParquetRows is the Parquet sink of an export's layout.
func newParquetRows(o Options, counts map[string]int) sink {
	switch {
	case o.Layout == layoutMessages && o.KeepToolCalls:
		return newParquetSink(o.Out, counts, o.ShardRows, func(r *row) parquetMessagesToolsRow {
			return parquetMessagesToolsRow{Messages: convert(r.messages, weightedToolMessage), Tools: toolsJSON(r.tools), parquetProvenance: provenance(r.meta)}
		})
	case o.Layout == layoutMessages || o.Layout == layoutAssistantOnly:
		return newParquetSink(o.Out, counts, o.ShardRows, func(r *row) parquetMessagesRow[parquetWeightedMessage] {
			return parquetMessagesRow[parquetWeightedMessage]{Messages: convert(r.messages, weightedMessage), parquetProvenance: provenance(r.meta)}
		})
	case o.KeepToolCalls:
		return newParquetSink(o.Out, counts, o.ShardRows, func(r *row) parquetCompletionToolsRow {
			return parquetCompletionToolsRow{Prompt: convert(r.prompt, toolMessage), Completion: convert(r.completion, toolMessage),
				Tools: toolsJSON(r.tools), parquetProvenance: provenance(r.meta)}
		})
	}
	return newParquetSink(o.Out, counts, o.ShardRows, func(r *row) parquetCompletionRow[parquetMessage] {
		return parquetCompletionRow[parquetMessage]{Prompt: convert(r.prompt, plainMessage), Completion: convert(r.completion, plainMessage),
			parquetProvenance: provenance(r.meta)}
	})
}

// parquetShardName is the Hugging Face name of shard i of n of a split.
func parquetShardName(split string, i, n int) string {
	return fmt.Sprintf("data/%s-%05d-of-%05d.parquet", split, i, n)
}

// parquetSink writes data/<split>-0000i-of-0000N.parquet, rows already
// counted per split so that N is known before the first shard is opened.
type parquetSink[R any] struct {
	dir       string
	counts    map[string]int
	shardRows int
	conv      func(*row) R
	open      map[string]*parquetShard[R]
	written   map[string]int
	names     []string
}

// parquetRowsPerGroup bounds a row group, which the writer holds in memory
// until it is full: a thousand conversations are a few megabytes, where a
// whole shard (ShardRows) would be hundreds.
const parquetRowsPerGroup = 1000

type parquetShard[R any] struct {
	f *atomicFile
	w *parquet.GenericWriter[R]
}

func newParquetSink[R any](dir string, counts map[string]int, shardRows int, conv func(*row) R) *parquetSink[R] {
	return &parquetSink[R]{dir: dir, counts: counts, shardRows: shardRows, conv: conv,
		open: map[string]*parquetShard[R]{}, written: map[string]int{}}
}

func (s *parquetSink[R]) shards(split string) int {
	return max(1, (s.counts[split]+s.shardRows-1)/s.shardRows)
}

// encode leaves the row to write: a Parquet row is converted as it is
// written.
func (s *parquetSink[R]) encode(*row) error { return nil }

func (s *parquetSink[R]) write(r *row) error {
	sp := r.meta.Split
	n := s.written[sp]
	sh := s.open[sp]
	if sh == nil || n%s.shardRows == 0 && n > 0 {
		if sh != nil {
			if err := sh.finish(); err != nil {
				return err
			}
		}
		name := parquetShardName(sp, n/s.shardRows, s.shards(sp))
		f, err := createAtomic(filepath.Join(s.dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		sh = &parquetShard[R]{f: f, w: parquet.NewGenericWriter[R](f,
			parquet.CreatedBy("pyharness", version.Harness().Version, ""), parquet.Compression(&parquet.Snappy),
			parquet.MaxRowsPerRowGroup(parquetRowsPerGroup))}
		s.open[sp] = sh
		s.names = append(s.names, name)
	}
	if _, err := sh.w.Write([]R{s.conv(r)}); err != nil {
		return fmt.Errorf("write parquet row: %w", err)
	}
	s.written[sp]++
	return nil
}

func (sh *parquetShard[R]) finish() error {
	if err := sh.w.Close(); err != nil {
		sh.f.abort()
		return fmt.Errorf("close parquet shard: %w", err)
	}
	return sh.f.commit()
}

func (s *parquetSink[R]) close() ([]string, error) {
	var errs []error
	for _, sp := range []string{SplitTrain, splitValidation, splitTest} {
		if sh := s.open[sp]; sh != nil {
			errs = append(errs, sh.finish())
			delete(s.open, sp)
		}
	}
	slices.Sort(s.names)
	return s.names, errors.Join(errs...)
}

func (s *parquetSink[R]) abort() {
	for _, sh := range s.open {
		sh.f.abort()
	}
}

var (
	_ sink = (*jsonlSink)(nil)
	_ sink = (*parquetSink[parquetCompletionToolsRow])(nil)
)
