package replay

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Backend plays the recorded drafts of one trace. It is safe for
// concurrent use: each call takes the next draft.
type Backend struct {
	name   string
	start  *schemas.RunStart
	turns  []*schemas.Turn
	mu     sync.Mutex
	next   int
	played []model.Request
}

// New reads the trace file at path.
func New(path string) (*Backend, error) {
	return fromRecords(trace.ReadFile(path), path)
}

func fromRecords(recs iter.Seq2[schemas.Record, error], name string) (*Backend, error) {
	b := &Backend{name: name}
	for rec, err := range recs {
		if err != nil {
			if trace.IsWarning(err) {
				// A torn last line lost one record; the drafts before it
				// are whole and still worth replaying.
				continue
			}
			return nil, fmt.Errorf("read recorded run: %w", err)
		}
		switch {
		case rec.RunStart != nil && b.start == nil:
			b.start = rec.RunStart
		case rec.Turn != nil && rec.Turn.ModelStep:
			b.turns = append(b.turns, rec.Turn)
		}
	}
	if b.start == nil {
		return nil, fmt.Errorf("read recorded run %s: no run_start record", name)
	}
	return b, nil
}

// Recorded returns the recorded model-step turns, in the order they are
// played.
func (b *Backend) Recorded() []*schemas.Turn { return b.turns }

// Played returns how many drafts have been handed out.
func (b *Backend) Played() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.next
}

// Requests returns every request Chat received, in order, to compare with
// what was sent when the run was recorded.
func (b *Backend) Requests() []model.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]model.Request(nil), b.played...)
}

// Chat returns the next recorded draft with its recorded metrics.
func (b *Backend) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	// Drafts never fail but for running out, which is not retried; Do
	// still gives the same attempt records and cancellation as a server.
	return model.Retry{Sleep: model.NoSleep}.Do(ctx, func(ctx context.Context) (model.Reply, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.played = append(b.played, req)
		if b.next >= len(b.turns) {
			return model.Reply{}, model.NewError(model.CodeScriptExhausted, fmt.Sprintf("recorded run %s: all %d model steps played", b.name, len(b.turns)), nil)
		}
		t := b.turns[b.next]
		b.next++
		reply := model.Reply{Reply: t.Reply, Metrics: t.Metrics}
		reply.ToolCalls = append([]schemas.ToolCall(nil), t.Reply.ToolCalls...)
		return reply, nil
	})
}

// Info describes the recorded model, labelled as a replay.
func (b *Backend) Info(ctx context.Context) (model.Info, error) {
	m := b.start.Model
	return model.Info{
		Backend:       schemas.BackendReplay,
		Name:          m.Name,
		Digest:        m.Digest,
		Host:          b.name,
		ContextLength: m.ContextLength,
	}, nil
}
