package wiretest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// With k slots the server answers k chats at once and queues the rest,
// as Ollama does with OLLAMA_NUM_PARALLEL=k: five chats sent at once,
// held until all five are in flight, have two answering and never more; each
// conversation gets its own script by the replies it already holds.
func TestOllamaSlots(t *testing.T) {
	srv := NewOllama(t)
	srv.Slots, srv.HoldUntil, srv.ReplyDelay = 2, 5, 100*time.Millisecond
	srv.Conversation(Text("first"), Text("then"))
	client := api.NewClient(mustURL(t, srv.URL), srv.http.Client())
	var wg sync.WaitGroup
	got := make([]string, 5)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs := []api.Message{{Role: "user", Content: "go"}}
			if i%2 == 1 {
				msgs = append(msgs, api.Message{Role: "assistant", Content: "first"}, api.Message{Role: "user", Content: "go on"})
			}
			stream := false
			err := client.Chat(context.Background(), &api.ChatRequest{Model: "tiny", Messages: msgs, Stream: &stream}, func(r api.ChatResponse) error {
				got[i] += r.Message.Content
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	inFlight, busy := srv.Peak()
	if inFlight != 5 || busy != 2 {
		t.Errorf("peak %d in flight, %d answering; want 5 and 2 (the slots)", inFlight, busy)
	}
	for i, g := range got {
		want := map[bool]string{false: "first", true: "then"}[i%2 == 1]
		if g != want {
			t.Errorf("chat %d got %q, want %q", i, g, want)
		}
	}
}
