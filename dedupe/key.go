package dedupe

import (
	"encoding/binary"
	"encoding/json"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/schemas"
)

// keyVersion is hashed at the head of every exact key: a change to the
// normal form or to the layout below changes it, so keys made by different
// versions never compare equal.
const keyVersion = "pyharness.dedupe.key/v1"

// appendKeyText appends the bytes an exact key hashes: the version tag, the
// number of messages, each message's role, normalised content and tool calls,
// then the draft's normalised content and tool calls, every field prefixed
// with its length. Only training text goes in, never run metadata (run id,
// model, times), so the same pair recorded by two runs keys the same.
func appendKeyText(dst []byte, prompt []schemas.Message, draft schemas.Reply) []byte {
	return appendKeyTextNorm(dst, prompt, draft, appendNormalizedString)
}

// appendKeyTextNorm is appendKeyText with norm appending the normal form of a
// text (appendNormalizedString, or a Fingerprinter's copy of it).
func appendKeyTextNorm(dst []byte, prompt []schemas.Message, draft schemas.Reply, norm func([]byte, string) []byte) []byte {
	dst = appendField(dst, keyVersion, nil)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(prompt)))
	for _, m := range prompt {
		dst = appendMessage(dst, m, norm)
	}
	return appendDraft(dst, draft, norm)
}

// appendMessage appends a message's fields: its role, normalised content
// and tool calls.
func appendMessage(dst []byte, m schemas.Message, norm func([]byte, string) []byte) []byte {
	dst = appendField(dst, m.Role, nil)
	dst = appendField(dst, m.Content, norm)
	return appendCalls(dst, m.ToolCalls)
}

// appendDraft appends a draft's fields: its normalised content and tool
// calls.
func appendDraft(dst []byte, draft schemas.Reply, norm func([]byte, string) []byte) []byte {
	dst = appendField(dst, draft.Content, norm)
	return appendCalls(dst, draft.ToolCalls)
}

// confirmVersion heads the confirm text (appendConfirmText), as keyVersion
// heads the key text.
const confirmVersion = "pyharness.dedupe.confirm/v2"

// appendConfirmText appends the text whose SHA-256 confirms equal keys in
// classify's store (confirmDigest): the fields of the key text, the
// version tag first, with the number of messages moved from the head to
// the end. A turn's prompt is the prompt before it and more, so its
// confirm text starts with the last turn's less the draft and the number,
// and its SHA-256 goes on from where the last one's messages left it
// (Fingerprinter.confirmedKey) instead of hashing the whole prompt again.
// The key keeps its text: it is what export writes. v1 was the SHA-256
// of the key text itself.
func appendConfirmText(dst []byte, prompt []schemas.Message, draft schemas.Reply, norm func([]byte, string) []byte) []byte {
	dst = appendField(dst, confirmVersion, nil)
	for _, m := range prompt {
		dst = appendMessage(dst, m, norm)
	}
	dst = appendDraft(dst, draft, norm)
	return binary.LittleEndian.AppendUint32(dst, uint32(len(prompt)))
}

// Key is the exact key of a key text: xxhash64 of its bytes.
func Key(text []byte) uint64 { return xxhash.Sum64(text) }

// AppendNearText appends the text near-duplicates are found on: the
// normalised draft, then the normalised last message it answered. The rest
// of the context is left out: the system prompt and the task would make
// every turn of a case look alike.
func AppendNearText(dst []byte, prompt []schemas.Message, draft schemas.Reply) []byte {
	return appendNearText(dst, prompt, draft, appendNormalizedString)
}

func appendNearText(dst []byte, prompt []schemas.Message, draft schemas.Reply, norm func([]byte, string) []byte) []byte {
	dst = norm(dst, draft.Content)
	dst = appendCallText(dst, draft.ToolCalls)
	if len(prompt) > 0 {
		last := prompt[len(prompt)-1]
		dst = append(dst, '\n')
		dst = norm(dst, last.Content)
		dst = appendCallText(dst, last.ToolCalls)
	}
	return dst
}

// appendField appends a 4-byte length and the field, normalised by norm
// unless it is nil. The length is written after the field, into the room
// kept for it, so the field is normalised straight into dst with no copy.
func appendField(dst []byte, field string, norm func([]byte, string) []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	if norm != nil {
		dst = norm(dst, field)
	} else {
		dst = append(dst, field...)
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// appendCalls appends the tool calls as one length-prefixed field (empty
// when there are none).
func appendCalls(dst []byte, calls []schemas.ToolCall) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendCallText(dst, calls)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// appendCallText writes each call as name(JSON arguments), one a line. The
// call id is left out: servers make it up per request.
func appendCallText(dst []byte, calls []schemas.ToolCall) []byte {
	for i, c := range calls {
		if i > 0 {
			dst = append(dst, '\n')
		}
		dst = append(dst, c.Name...)
		args, err := json.Marshal(c.Arguments) // map keys marshal sorted
		if err != nil {
			args = []byte("{}")
		}
		dst = append(dst, '(')
		dst = appendNormalized(dst, args)
		dst = append(dst, ')')
	}
	return dst
}
