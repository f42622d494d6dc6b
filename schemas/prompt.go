package schemas

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strings"
	"unsafe"
)

// PromptHash returns "sha256:<hex>" over the messages of a prompt, each
// message's role, content and tool calls length-prefixed in order, so two
// prompts hash equal exactly when they are the same messages.
func PromptHash(msgs []Message) string {
	h := sha256.New()
	writeMessages(h, msgs, nil)
	return promptHashOf(h)
}

// writeMessages writes msgs to h as PromptHash hashes them. The hash of a
// prompt is the hash of its messages one after the other, so a hash of
// some messages goes on to hash a prompt that adds to them. buf is room
// to gather the fields in, returned for the next call.
func writeMessages(h hash.Hash, msgs []Message, buf []byte) []byte {
	buf = buf[:0]
	for _, m := range msgs {
		buf = writeField(h, buf, m.Role)
		buf = writeField(h, buf, m.Content)
		if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			calls, _ := json.Marshal(m.ToolCalls) // maps marshal with sorted keys
			buf = writeField(h, buf, unsafe.String(unsafe.SliceData(calls), len(calls)))
			buf = writeField(h, buf, m.ToolCallID)
		}
	}
	h.Write(buf)
	return buf[:0]
}

func promptHashOf(h hash.Hash) string { return promptHashPrefix + hex.EncodeToString(h.Sum(nil)) }

const promptHashPrefix = "sha256:"

// promptHashIs reports whether want is promptHashOf(h), laying the hash
// out on the stack: Apply checks every turn's recorded hash, and the
// string made for each was three allocations a turn.
func promptHashIs(h hash.Hash, want string) bool {
	rest, ok := strings.CutPrefix(want, promptHashPrefix)
	if !ok || len(rest) != 2*sha256.Size {
		return false
	}
	var sum [sha256.Size]byte
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], h.Sum(sum[:0]))
	return string(text[:]) == rest
}

// gatherField is the longest field writeField gathers in its buffer
// rather than writing it to the hash on its own.
const gatherField = 256

// writeField appends s, after its length, to what buf gathers for h. A
// long s is written to h straight from its bytes. Two writes a field, the
// length from an array of its own and the text converted to a slice, made
// two allocations a field and a copy of every text.
func writeField(h hash.Hash, buf []byte, s string) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s)))
	if len(s) <= gatherField {
		return append(buf, s...)
	}
	h.Write(buf)
	// A Writer neither changes nor keeps what it is given (io.Writer).
	h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
	return buf[:0]
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
	buf  []byte // writeMessages's
}

// Apply adds a turn's sent messages and returns the whole prompt the turn
// was sent. It fails when the rebuilt prompt does not hash to the recorded
// prompt_hash.
func (c *Conversation) Apply(t *Turn) ([]Message, error) {
	if t.Sent.Replaced || c.hash == nil {
		c.msgs = append(c.msgs[:0:0], t.Sent.Messages...)
		c.hash = sha256.New()
		c.buf = writeMessages(c.hash, c.msgs, c.buf)
	} else {
		c.msgs = append(c.msgs, t.Sent.Messages...)
		c.buf = writeMessages(c.hash, t.Sent.Messages, c.buf)
	}
	if t.Sent.PromptHash != "" {
		if !promptHashIs(c.hash, t.Sent.PromptHash) {
			return c.msgs, fmt.Errorf("rebuild prompt of step %d: hash %s does not match recorded %s", t.Step, promptHashOf(c.hash), t.Sent.PromptHash)
		}
	}
	return c.msgs, nil
}

// Messages returns the prompt as last rebuilt.
func (c *Conversation) Messages() []Message { return c.msgs }
