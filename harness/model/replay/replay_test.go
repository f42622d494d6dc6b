package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// newFromTrace writes data to r1.jsonl in a directory of t's and reads
// the backend from it with New; it returns the file's path too.
func newFromTrace(t *testing.T, data []byte) (*Backend, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r1.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := New(path)
	return b, path, err
}

func encode(t *testing.T, recs ...schemas.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := schemas.EncodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
	}
	return buf.Bytes()
}

func recordedRun(t *testing.T) []byte {
	start := schemas.Record{RunStart: &schemas.RunStart{RunID: "r1", Attempt: 1, Source: schemas.SourceBench,
		Model: schemas.Model{Backend: "ollama", Name: "llama3.1:8b", Digest: "sha256:46e0c10c", ContextLength: 131072}}}
	turn := func(step int, modelStep bool, reply schemas.Reply, m schemas.Metrics) schemas.Record {
		return schemas.Record{Turn: &schemas.Turn{RunID: "r1", Step: step, ModelStep: modelStep, Reply: reply, Metrics: m}}
	}
	return encode(t,
		start,
		turn(1, true, schemas.Reply{Content: "READ wordcount.py", FinishReason: "stop"}, schemas.Metrics{PromptTokens: new(300), OutputTokens: new(5)}),
		// A step the harness settled without the model: not a draft.
		turn(2, false, schemas.Reply{}, schemas.Metrics{}),
		turn(3, true, schemas.Reply{Thinking: "the off-by-one", ToolCalls: []schemas.ToolCall{{ID: "c1", Name: "run_tests", Arguments: map[string]any{}}}, FinishReason: "stop"}, schemas.Metrics{PromptTokens: new(420), OutputTokens: new(9)}),
		turn(4, true, schemas.Reply{Content: "DONE fixed", FinishReason: "stop"}, schemas.Metrics{PromptTokens: new(500), OutputTokens: new(3), TotalMS: 800}),
		schemas.Record{RunEnd: &schemas.RunEnd{RunID: "r1", Verdict: "worked", StopReason: "done"}},
	)
}

func TestPlaysRecordedDraftsInOrder(t *testing.T) {
	b, path, err := newFromTrace(t, recordedRun(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := b.Recorded()
	if len(rec) != 3 || rec[0].Step != 1 || rec[1].Step != 3 || rec[2].Step != 4 {
		t.Fatalf("Recorded() = %d turns, want the model steps 1, 3, 4", len(rec))
	}
	for i, want := range rec {
		req := model.Request{Options: schemas.Options{NumCtx: 8192}, Messages: []schemas.Message{{Role: "user", Content: "step"}}}
		got, err := b.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("draft %d: %v", i+1, err)
		}
		if !sameReply(got.Reply, want.Reply) || got.Metrics != want.Metrics || len(got.Attempts) != 1 {
			t.Errorf("draft %d = %+v %+v, want %+v %+v", i+1, got.Reply, got.Metrics, want.Reply, want.Metrics)
		}
		if b.Played() != i+1 {
			t.Errorf("Played() = %d, want %d", b.Played(), i+1)
		}
	}
	_, err = b.Chat(context.Background(), model.Request{})
	if codeOf(err) != model.CodeScriptExhausted {
		t.Errorf("after the last draft: %v, want script-exhausted", err)
	}
	info, _ := b.Info(context.Background())
	if want := (model.Info{Backend: "replay", Name: "llama3.1:8b", Digest: "sha256:46e0c10c", Host: path, ContextLength: 131072}); !reflect.DeepEqual(info, want) {
		t.Errorf("Info = %+v, want %+v", info, want)
	}
	if n := len(b.Requests()); n != 4 {
		t.Errorf("%d requests recorded, want 4", n)
	}
}

func TestReadErrors(t *testing.T) {
	good := recordedRun(t)
	tests := []struct {
		name    string
		trace   []byte
		wantErr string // "" for none
		drafts  int
	}{
		{name: "torn last line is skipped", trace: append(append([]byte{}, good...), `{"type":"turn","run_id":"r1","step":5,"model_st`...), drafts: 3},
		{name: "bad line in the middle", trace: append(append([]byte{}, good[:bytes.IndexByte(good, '\n')+1]...), "{\"type\":\"turn\",\"step\":\"two\"}\n"...), wantErr: `r1.jsonl:2: field "step"`},
		{name: "no run_start", trace: good[bytes.IndexByte(good, '\n')+1:], wantErr: "no run_start record"},
		{name: "newer major schema", trace: []byte(`{"type":"run_start","schema":"pyharness.trace/v2","run_id":"r1"}` + "\n"), wantErr: "unsupported schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _, err := newFromTrace(t, tt.trace)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				var pe *trace.ParseError
				if strings.Contains(tt.wantErr, ".jsonl:") && !errors.As(err, &pe) {
					t.Errorf("error %v is not a *trace.ParseError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(b.Recorded()); n != tt.drafts {
				t.Errorf("%d drafts, want %d", n, tt.drafts)
			}
		})
	}
}

// sameReply compares replies, an empty list of tool calls being the same
// as none (the trace writes [] for nil).
func sameReply(a, b schemas.Reply) bool {
	if len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0 {
		a.ToolCalls, b.ToolCalls = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// codeOf is the Code of the *model.Error in err's chain, or "" when there
// is none.
func codeOf(err error) string {
	var e *model.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
