package schemas

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// PromptHash returns "sha256:<hex>" over the messages of a prompt, each
// message's role, content and tool calls length-prefixed in order, so two
// prompts hash equal exactly when they are the same messages.
func PromptHash(msgs []Message) string {
	h := sha256.New()
	writeMessages(h, msgs)
	return promptHashOf(h)
}

// writeMessages writes msgs to h as PromptHash hashes them. The hash of a
// prompt is the hash of its messages one after the other, so a hash of
// some messages goes on to hash a prompt that adds to them.
func writeMessages(h hash.Hash, msgs []Message) {
	for _, m := range msgs {
		writeField(h, m.Role)
		writeField(h, m.Content)
		if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			calls, _ := json.Marshal(m.ToolCalls) // maps marshal with sorted keys
			writeField(h, string(calls))
			writeField(h, m.ToolCallID)
		}
	}
}

func promptHashOf(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }

func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// Conversation rebuilds the whole prompt of each turn of a run from the
// deltas recorded on its turns.
type Conversation struct {
	msgs []Message
	// hash has been written msgs (writeMessages) and not reset: each turn
	// that adds to the prompt hashes only what it adds, where hashing the
	// whole prompt again made the hashing of a run grow with the square
	// of its turns.
	hash hash.Hash
}

// Apply adds a turn's sent messages and returns the whole prompt the turn
// was sent. It fails when the rebuilt prompt does not hash to the recorded
// prompt_hash.
func (c *Conversation) Apply(t *Turn) ([]Message, error) {
	if t.Sent.Replaced || c.hash == nil {
		c.msgs = append(c.msgs[:0:0], t.Sent.Messages...)
		c.hash = sha256.New()
		writeMessages(c.hash, c.msgs)
	} else {
		c.msgs = append(c.msgs, t.Sent.Messages...)
		writeMessages(c.hash, t.Sent.Messages)
	}
	if t.Sent.PromptHash != "" {
		if got := promptHashOf(c.hash); got != t.Sent.PromptHash {
			return c.msgs, fmt.Errorf("rebuild prompt of step %d: hash %s does not match recorded %s", t.Step, got, t.Sent.PromptHash)
		}
	}
	return c.msgs, nil
}

// Messages returns the prompt as last rebuilt.
func (c *Conversation) Messages() []Message { return c.msgs }
