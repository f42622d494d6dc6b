package wiretest

import (
	"net/http"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// slotState is what the Ollama server's slots hold and counted: the free
// slots, the gate that holds replies (Ollama.HoldUntil), and the requests
// in flight and answering, now and at their most.
type slotState struct {
	once        sync.Once
	free        chan struct{}
	gate        chan struct{}
	mu          sync.Mutex
	inFlight    int
	busy        int
	maxInFlight int
	maxBusy     int
}

func (o *Ollama) slotsInit() {
	o.slots.once.Do(func() {
		if o.Slots > 0 {
			o.slots.free = make(chan struct{}, o.Slots)
			for range o.Slots {
				o.slots.free <- struct{}{}
			}
		}
		o.slots.gate = make(chan struct{})
		if o.HoldUntil <= 0 {
			close(o.slots.gate)
		}
	})
}

// takeSlot counts a chat request in flight, holds it at the gate until
// HoldUntil requests have been in flight at once, waits for a free slot,
// and holds the slot for ReplyDelay, as a server with OLLAMA_NUM_PARALLEL
// slots queues the requests beyond them and spends time generating. It
// returns the release the handler defers, and false when the client went
// away (or the server closed) while the request waited.
func (o *Ollama) takeSlot(r *http.Request) (release func(), ok bool) {
	o.slotsInit()
	s := &o.slots
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	if o.HoldUntil > 0 && s.inFlight == o.HoldUntil {
		select {
		case <-s.gate:
		default:
			close(s.gate)
		}
	}
	s.mu.Unlock()
	leave := func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
	wait := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		case <-r.Context().Done():
		case <-o.closed:
		}
		return false
	}
	if !wait(s.gate) {
		leave()
		return nil, false
	}
	if s.free != nil {
		select {
		case <-s.free:
		case <-r.Context().Done():
			leave()
			return nil, false
		case <-o.closed:
			leave()
			return nil, false
		}
	}
	s.mu.Lock()
	s.busy++
	s.maxBusy = max(s.maxBusy, s.busy)
	s.mu.Unlock()
	release = func() {
		s.mu.Lock()
		s.busy--
		s.mu.Unlock()
		if s.free != nil {
			s.free <- struct{}{}
		}
		leave()
	}
	if o.ReplyDelay > 0 {
		t := time.NewTimer(o.ReplyDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			release()
			return nil, false
		case <-o.closed:
			release()
			return nil, false
		}
	}
	return release, true
}

// Peak returns the most chat requests the server had in flight at once
// (received and not yet answered, queued ones included) and the most it
// was answering at once (its busy slots, never more than Slots).
func (o *Ollama) Peak() (inFlight, busy int) {
	o.slots.mu.Lock()
	defer o.slots.mu.Unlock()
	return o.slots.maxInFlight, o.slots.maxBusy
}

// Conversation answers every chat request that no queued step or model
// answer takes by its place in its own conversation: a request whose
// messages hold n assistant messages (the model's earlier replies) gets
// steps[n], the last step again past the end. Runs going at once each get
// the whole script, whatever order their requests arrive in.
func (o *Ollama) Conversation(steps ...Step) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.conversation = steps
}

// conversationStep is the step of Conversation for a request's messages.
func (o *Ollama) conversationStep(msgs []api.Message) (Step, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.conversation) == 0 {
		return Step{}, false
	}
	n := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			n++
		}
	}
	return o.conversation[min(n, len(o.conversation)-1)], true
}
