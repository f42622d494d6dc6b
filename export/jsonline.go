package export

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/pyharness/pyharness/internal/swar"
)

// The JSONL files are written by the appenders below, not by
// encoding/json, which reflects over every row's structs and escapes text
// a byte at a time. They write exactly the bytes json.Encoder with
// SetEscapeHTML(false) (code is full of < > &: it stays readable) writes
// for the row shapes (messages, prompt-completion and preference rows,
// Meta), which the tests check against encoding/json. A tool call's
// arguments, any JSON, and the tools column are still encoded by
// encoding/json: only --keep-tool-calls has them.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with SetEscapeHTML(false): '"', '\\' and control characters escaped
// (\b \f \n \r \t by name, the others as \u00XX), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, everything else as it
// is. The ASCII between special bytes is copied as it is, found eight
// bytes at a time.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	bs := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	start := 0                                       // the first byte of s not yet in dst
	for i := 0; ; {
		if i = swar.SkipPlainJSON(bs, i); i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' { // a plain byte among the last seven
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on, with a one-digit exponent not padded. NaN and the
// infinities are not JSON.
func appendJSONFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return jsonValue(dst, f) // for encoding/json's own error
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, nil
}

// jsonValue appends v as encoding/json writes it with SetEscapeHTML(false),
// for the values the appenders leave to it.
func jsonValue(dst []byte, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}

// appendStringField appends the key (with its colon, and the comma or
// brace before it) and the string value.
func appendStringField(dst []byte, key, value string) []byte {
	dst = append(dst, key...)
	return appendJSONString(dst, value)
}

// appendMessages appends msgs as a JSON array of messages (null when nil,
// as encoding/json writes a nil slice).
func appendMessages(dst []byte, msgs []Message) ([]byte, error) {
	if msgs == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendMessage(dst, &msgs[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// encodedMessage is a message (as) and its encoding (json).
type encodedMessage struct {
	as   Message
	json []byte
}

// sameEncoding reports whether two messages without tool calls encode
// alike.
func sameEncoding(a, b *Message) bool {
	return len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0 && a.Role == b.Role && a.Content == b.Content &&
		a.ReasoningContent == b.ReasoningContent && a.ToolCallID == b.ToolCallID &&
		(a.Weight == b.Weight || a.Weight != nil && b.Weight != nil && *a.Weight == *b.Weight)
}

// appendMessage appends m as encoding/json writes a Message: as it was
// encoded for an earlier row, when the renderer kept that (m.encoded) and
// m is still the message encoded.
func appendMessage(dst []byte, m *Message) ([]byte, error) {
	e := m.encoded
	if e == nil || len(m.ToolCalls) > 0 {
		return appendMessageJSON(dst, m)
	}
	if e.json != nil && sameEncoding(&e.as, m) {
		return append(dst, e.json...), nil
	}
	start := len(dst)
	dst, err := appendMessageJSON(dst, m)
	if err == nil {
		// Appending never writes below len(dst), in this array or the
		// one a later append moves to: the bytes stay as they are.
		e.as, e.json = *m, dst[start:len(dst):len(dst)]
	}
	return dst, err
}

// appendMessageJSON encodes a message.
func appendMessageJSON(dst []byte, m *Message) ([]byte, error) {
	dst = appendStringField(dst, `{"role":`, m.Role)
	dst = appendStringField(dst, `,"content":`, m.Content)
	if m.ReasoningContent != "" {
		dst = appendStringField(dst, `,"reasoning_content":`, m.ReasoningContent)
	}
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for k, c := range m.ToolCalls {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendStringField(dst, `{"id":`, c.ID)
			dst = appendStringField(dst, `,"type":`, c.Type)
			dst = appendStringField(dst, `,"function":{"name":`, c.Function.Name)
			dst = append(dst, `,"arguments":`...)
			var err error
			if dst, err = jsonValue(dst, c.Function.Arguments); err != nil {
				return dst, err
			}
			dst = append(dst, "}}"...)
		}
		dst = append(dst, ']')
	}
	if m.ToolCallID != "" {
		dst = appendStringField(dst, `,"tool_call_id":`, m.ToolCallID)
	}
	if m.Weight != nil {
		dst = append(dst, `,"weight":`...)
		dst = strconv.AppendInt(dst, int64(*m.Weight), 10)
	}
	return append(dst, '}'), nil
}

// appendTools appends the tools column, after the messages, when there is
// one.
func appendTools(dst []byte, tools []tool) ([]byte, error) {
	if len(tools) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"tools":`...)
	return jsonValue(dst, tools)
}

// appendRowLine appends a row's training line as the JSONL files hold it,
// newline included: a preference pair when dpo is set (TRL DPOTrainer's
// conversational form), else the conversation in its layout (mlx-lm picks
// the format from the first row's keys, so nothing else is ever added):
// messages, or TRL's conversational prompt-completion, the tools after
// them with --keep-tool-calls.
func appendRowLine(dst []byte, r *row, dpo bool) ([]byte, error) {
	type field struct {
		key  string // with what comes before it
		msgs []Message
	}
	var fields []field
	switch {
	case dpo:
		fields = []field{{`{"prompt":`, r.prompt}, {`,"chosen":`, r.chosen}, {`,"rejected":`, r.rejected}}
	case r.messages != nil:
		fields = []field{{`{"messages":`, r.messages}}
	default:
		fields = []field{{`{"prompt":`, r.prompt}, {`,"completion":`, r.completion}}
	}
	var err error
	for _, f := range fields {
		dst = append(dst, f.key...)
		if dst, err = appendMessages(dst, f.msgs); err != nil {
			return dst, err
		}
	}
	if !dpo {
		if dst, err = appendTools(dst, r.tools); err != nil {
			return dst, err
		}
	}
	return append(dst, "}\n"...), nil
}

// metaLine is a row's meta.jsonl line with the two numbers only writing
// knows, its row number and which copy it is, left out: the line is
// head, the row, mid, the copy, tail.
type metaLine struct {
	b         []byte
	head, mid int // the ends of head and mid in b
}

// appendRowCopy appends the line of copy c of the row numbered row.
func (l *metaLine) appendRowCopy(dst []byte, row, c int) []byte {
	dst = append(dst, l.b[:l.head]...)
	dst = strconv.AppendInt(dst, int64(row), 10)
	dst = append(dst, l.b[l.head:l.mid]...)
	dst = strconv.AppendInt(dst, int64(c), 10)
	return append(dst, l.b[l.mid:]...)
}

// newMetaLine encodes m as encoding/json writes a Meta, newline included,
// leaving out Row and Copy (metaLine).
func newMetaLine(m *Meta) (metaLine, error) {
	var l metaLine
	b := make([]byte, 0, 256+len(m.AsWritten))
	b = appendStringField(b, `{"split":`, m.Split)
	b = append(b, `,"row":`...)
	l.head = len(b)
	b = appendStringField(b, `,"run_id":`, m.RunID)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(m.Step), 10)
	b = appendStringField(b, `,"case_id":`, m.CaseID)
	b = appendStringField(b, `,"group":`, m.Group)
	b = append(b, `,"tier":`...)
	b = strconv.AppendInt(b, int64(m.Tier), 10)
	b = appendStringField(b, `,"source":`, m.Source)
	b = appendStringField(b, `,"model":`, m.Model)
	b = appendStringField(b, `,"verdict":`, string(m.Verdict))
	b = appendStringField(b, `,"kind":`, string(m.Kind))
	if m.Code != "" {
		b = appendStringField(b, `,"code":`, string(m.Code))
	}
	b = append(b, `,"weight":`...)
	var err error
	if b, err = appendJSONFloat(b, m.Weight); err != nil {
		return l, err
	}
	b = append(b, `,"copy":`...)
	l.mid = len(b)
	b = append(b, `,"copies":`...)
	b = strconv.AppendInt(b, int64(m.Copies), 10)
	b = appendStringField(b, `,"key":`, m.Key)
	b = append(b, `,"multiplicity":`...)
	b = strconv.AppendInt(b, int64(m.Multiplicity), 10)
	b = append(b, `,"cluster_turns":`...)
	b = strconv.AppendInt(b, int64(m.ClusterTurns), 10)
	if m.RejectedRunID != "" {
		b = appendStringField(b, `,"rejected_run_id":`, m.RejectedRunID)
	}
	if m.RejectedStep != 0 {
		b = append(b, `,"rejected_step":`...)
		b = strconv.AppendInt(b, int64(m.RejectedStep), 10)
	}
	if m.PromptHash != "" {
		b = appendStringField(b, `,"prompt_hash":`, m.PromptHash)
	}
	if m.AsWritten != "" {
		b = appendStringField(b, `,"as_written":`, m.AsWritten)
	}
	l.b = append(b, "}\n"...)
	return l, nil
}
