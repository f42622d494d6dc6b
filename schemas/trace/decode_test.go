package trace

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/pyharness/pyharness/schemas"
)

// sampleLines are the records of a small run with every kind of field
// filled in (pointers, maps, lists, times), as EncodeRecord writes them.
func sampleLines(t testing.TB) []string {
	t.Helper()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	start := &schemas.RunStart{Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: "r1", Attempt: 2, Source: schemas.SourceBench,
		CaseID: "initials", Tier: 1, Pass: 2,
		Model: schemas.Model{Backend: "ollama", Name: "qwen3:8b", Digest: "sha256:abc",
			Options:       schemas.Options{Seed: 7, Temperature: 0.2, NumCtx: 8192, NumPredict: 1024},
			ContextLength: 32768, Context: &schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 32768, Effective: 8192, Source: schemas.ContextFromRequested}},
		Harness: schemas.Harness{Version: "0.1.0", Commit: "deadbeef", Dirty: true},
		Task:    "Add initials(name) — «ünïcode» \"quoted\"\n\ttabbed", Targets: []string{"initials.py"},
		Names: []string{"initials"}, Scope: []string{"**"}, Suite: "python3 -m unittest",
		Repo: schemas.Repo{Path: "repo", Commit: "c0ffee"}, MaxSteps: 20, Tags: []string{"a", "b"}, StartedAt: t0}
	turn := &schemas.Turn{RunID: "r1", Step: 1,
		Sent: schemas.Sent{Kind: schemas.KindToolResult, Code: "x", Messages: []schemas.Message{
			{Role: "assistant", Content: "", ToolCalls: []schemas.ToolCall{{ID: "c1", Name: "read", Arguments: map[string]any{"path": "a.py", "n": 3.5, "deep": []any{true, nil, "s"}}}}},
			{Role: "tool", Content: "line\u2028one\n```\n<b>&amp;</b>", ToolCallID: "c1"}},
			PromptHash: "sha256:0", Elided: []schemas.Elision{{What: "repo-map", Ref: "x", Tokens: 12}}, PromptTokensEstimate: 99},
		Reply:     schemas.Reply{Content: "READ a.py", Thinking: "hm", FinishReason: "stop", ToolCalls: []schemas.ToolCall{{Name: "n", Arguments: map[string]any{}}}},
		Action:    schemas.Action{Verb: "READ", Path: "a.py", Shape: "canonical", Via: "text", Repairs: []string{"r"}},
		Outcome:   schemas.Outcome{Status: schemas.StatusApplied, FilesChanged: []string{"a.py"}},
		Metrics:   schemas.Metrics{PromptTokens: new(40), OutputTokens: new(0), TotalMS: 120, EvalMS: new(int64(-1))},
		ModelStep: true, Attempts: []schemas.Attempt{{N: 1, Error: "boom", Status: 500, WaitMS: 10}, {N: 2}},
		Warnings: []string{"w"}, StartedAt: t0, EndedAt: t0.Add(time.Second)}
	end := &schemas.RunEnd{RunID: "r1", Verdict: schemas.VerdictFailed, FailureClass: schemas.FailWroteNothing,
		Checks: schemas.Checks{Ran: true, FirstFailure: "AssertionError"}, StopReason: schemas.StopBudget, Steps: 1, ModelSteps: 1,
		Writes: []schemas.Write{{Path: "a.py", Added: 1, Removed: 2}}, SuiteAfter: schemas.SuiteCounts{Ran: 3, Failed: 1, TimedOut: true},
		Patch: "--- a\n+++ b\n", DurationMS: 2000, Error: "e", Stuck: &schemas.Stuck{Code: schemas.CodeQuoteRequired, Times: 3, FromStep: 1, Draft: "DONE «ok»"},
		EndedAt: t0.Add(2 * time.Second)}
	var lines []string
	for _, r := range []schemas.Record{{RunStart: start}, {Turn: turn}, {RunEnd: end}} {
		b, err := schemas.EncodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSuffix(string(b), "\n"))
	}
	return lines
}

// sameAsStrict fails unless decodeRecord decides line exactly as the
// encoding/json decoder does: the same record, or the same error.
func sameAsStrict(t *testing.T, line []byte) {
	t.Helper()
	// The trace reader reuses its buffer, so the record is decoded from a
	// copy that is then overwritten: a string left pointing into its line
	// shows as a difference.
	buf := bytes.Clone(line)
	got, gerr := decodeRecord(buf)
	for i := range buf {
		buf[i] = '#'
	}
	want, werr := decodeStrict(line)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%q:\nerror  %v\nstrict %v", line, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\ndecoded %s\nstrict  %s", line, dump(got), dump(want))
	}
}

func dump(r schemas.Record) string {
	switch {
	case r.RunStart != nil:
		return fmt.Sprintf("%+v", *r.RunStart)
	case r.Turn != nil:
		return fmt.Sprintf("%+v", *r.Turn)
	case r.RunEnd != nil:
		return fmt.Sprintf("%+v", *r.RunEnd)
	}
	return "no record"
}

// edgeLines are lines on which a second JSON decoder is most likely to
// disagree with encoding/json.
func edgeLines(lines []string) map[string]string {
	start, turn, end := lines[0], lines[1], lines[2]
	return map[string]string{
		"type repeated":           strings.Replace(turn, `"step":1`, `"step":1,"type":"run_end"`, 1),
		"type in another case":    strings.Replace(turn, `"step":1`, `"step":1,"TYPE":"run_end"`, 1),
		"field in another case":   strings.Replace(turn, `"step":1`, `"STEP":4`, 1),
		"field repeated":          strings.Replace(turn, `"step":1`, `"step":1,"step":3`, 1),
		"unknown fields":          strings.Replace(turn, `"step":1`, `"step":1,"future":{"a":[1,{"b":null}]},"x":"\u00e9"`, 1),
		"null fields":             strings.Replace(turn, `"step":1`, `"step":null,"sent":null,"warnings":null`, 1),
		"wrong type":              strings.Replace(turn, `"step":1`, `"step":"two"`, 1),
		"float into int":          strings.Replace(turn, `"step":1`, `"step":1.5`, 1),
		"exponent into int":       strings.Replace(turn, `"step":1`, `"step":1e2`, 1),
		"int overflow":            strings.Replace(turn, `"step":1`, `"step":99999999999999999999`, 1),
		"negative zero":           strings.Replace(turn, `"step":1`, `"step":-0`, 1),
		"leading zero":            strings.Replace(turn, `"step":1`, `"step":01`, 1),
		"bad time":                strings.Replace(turn, `"started_at":"2026`, `"started_at":"x2026`, 1),
		"time as number":          strings.Replace(turn, `"started_at":"2026-11-29T12:00:00.123456789Z"`, `"started_at":5`, 1),
		"lone surrogate":          strings.Replace(turn, `"content":"READ a.py"`, `"content":"\ud800 and \udc00x"`, 1),
		"escaped slash":           strings.Replace(turn, `"content":"READ a.py"`, `"content":"a\/b\u0041\t"`, 1),
		"bad escape":              strings.Replace(turn, `"content":"READ a.py"`, `"content":"a\qb"`, 1),
		"control character":       strings.Replace(turn, `"content":"READ a.py"`, "\"content\":\"a\x01b\"", 1),
		"trailing garbage":        turn + `x`,
		"trailing object":         turn + `{}`,
		"trailing space":          turn + " \t",
		"truncated":               turn[:len(turn)/2],
		"empty object":            `{}`,
		"type only":               `{"type":"turn"}`,
		"type not a string":       `{"type":1}`,
		"unknown type":            `{"type":"turns"}`,
		"space before type":       ` {"type":"turn","step":2}`,
		"schema missing":          strings.Replace(start, `"schema":"pyharness.trace/v1",`, ``, 1),
		"schema null":             strings.Replace(start, `"schema":"pyharness.trace/v1"`, `"schema":null`, 1),
		"schema empty":            strings.Replace(start, `"schema":"pyharness.trace/v1"`, `"schema":""`, 1),
		"schema of another major": strings.Replace(start, `/v1"`, `/v9"`, 1),
		"schema of v9 and a bad body": strings.Replace(strings.Replace(start, `/v1"`, `/v9"`, 1),
			`"tier":1`, `"tier":"one"`, 1),
		"schema repeated":          strings.Replace(start, `"schema_minor":1`, `"schema_minor":1,"schema":"pyharness.trace/v9"`, 1),
		"arguments not an object":  strings.Replace(turn, `"arguments":{}`, `"arguments":[]`, 1),
		"metrics pointer null":     strings.Replace(turn, `"prompt_tokens":40`, `"prompt_tokens":null`, 1),
		"bool as string":           strings.Replace(turn, `"model_step":true`, `"model_step":"true"`, 1),
		"string tag on a bool":     strings.Replace(end, `"claimed_done":false`, `"claimed_done":0`, 1),
		"nested wrong type":        strings.Replace(end, `"added":1`, `"added":"1"`, 1),
		"array where object":       strings.Replace(end, `"checks":{`, `"checks":[{`, 1),
		"deep nesting":             strings.Replace(turn, `"step":1`, `"step":1,"x":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000), 1),
		"very deep nesting":        strings.Replace(turn, `"step":1`, `"step":1,"x":`+strings.Repeat("[", 3_000_000), 1),
		"many brackets in strings": strings.Replace(turn, `"content":"READ a.py"`, `"content":"`+strings.Repeat("{[", 6000)+`"`, 1),
		"big number in any":        strings.Replace(turn, `"n":3.5`, `"n":1e400`, 1),
		"number forms in any":      strings.Replace(turn, `"n":3.5`, `"n":[-0.0,1E+2,0.1e-3,123456789012345678901234567890]`, 1),
		"invalid utf-8":            strings.Replace(turn, `"content":"READ a.py"`, "\"content\":\"a\xff\xfeb\xc3\"", 1),
		"control in a key":         strings.Replace(turn, `"step":1`, "\"st\x7fep\x1f\":1", 1),
		"tab between tokens":       strings.Replace(turn, `"step":1`, "\"step\":\t1", 1),
		"utf-8 bom":                "\ufeff" + turn,
		"run_end first":            strings.Replace(end, `"run_id":"r1"`, `"run_id":"r1","attempts":[{"n":"x"}]`, 1),
		"run_start whole":          start,
		"turn whole":               turn,
		"run_end whole":            end,
		"run_start without schema": `{"type":"run_start"}`,
		"invalid utf-8 skipped":    strings.Replace(turn, `"step":1`, "\"step\":1,\"future\":[\"a\xffb\"]", 1),
		"control skipped":          strings.Replace(turn, `"step":1`, "\"step\":1,\"future\":{\"a\":\"\x01\"}", 1),
		"bad escape skipped":       strings.Replace(turn, `"step":1`, `"step":1,"future":["\q"]`, 1),
		"bad number skipped":       strings.Replace(turn, `"step":1`, `"step":1,"future":[01]`, 1),
		"bad literal skipped":      strings.Replace(turn, `"step":1`, `"step":1,"future":[tru]`, 1),
		"invalid utf-8 in a key":   strings.Replace(turn, `"step":1`, "\"step\":1,\"a\xff\":1", 1),
		"invalid utf-8 in any":     strings.Replace(turn, `"n":3.5`, "\"n\":\"a\xffb\"", 1),
		"control in any":           strings.Replace(turn, `"n":3.5`, "\"n\":\"a\x1fb\"", 1),
		"lone surrogate in any":    strings.Replace(turn, `"n":3.5`, `"n":"\udc00\ud800x"`, 1),
		"surrogate pair":           strings.Replace(turn, `"content":"READ a.py"`, `"content":"\ud83d\ude00 \uD83D\uDE00"`, 1),
		"escaped key":              strings.Replace(turn, `"step":1`, `"\u0073tep":7`, 1),
		"long s folds to s":        strings.Replace(end, `"steps":1`, `"ſteps":4`, 1),
		"kelvin folds to k":        strings.Replace(end, `"suite_after":{`, `"suite_after":{"s\u212aipped":4,`, 1),
		"escaped long s":           strings.Replace(end, `"steps":1`, `"\u017Fteps":4`, 1),
		"escaped kelvin":           strings.Replace(end, `"suite_after":{`, `"suite_after":{"s\u212Aipped":4,`, 1),
		"case-variant duplicates":  strings.Replace(end, `"timed_out":true`, `"timed_out":true,"Timed_Out":false,"TIMED_out":true`, 1),
		"case-variant last false":  strings.Replace(end, `"timed_out":true`, `"Timed_Out":true,"timed_out":false`, 1),
	}
}

func TestDecodeRecordMatchesStrict(t *testing.T) {
	lines := sampleLines(t)
	for name, line := range edgeLines(lines) {
		t.Run(name, func(t *testing.T) { sameAsStrict(t, []byte(line)) })
	}
	for name, line := range turnLineEdges(writerTurnLines(t)) {
		t.Run(name, func(t *testing.T) { sameAsStrict(t, []byte(line)) })
	}
}

// writerTurnLines are turns as the harness writes them without native
// tool calls, which decodeTurnLine decodes: one with every optional field
// set, one with none, with text that needs every kind of escape.
func writerTurnLines(t testing.TB) []string {
	t.Helper()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 120000000, time.UTC)
	text := "def f():\n\treturn \"<a & b>\" \\ 'é' \u2028 😀 \x7f \x00 \x1f"
	full := &schemas.Turn{RunID: "r1", Step: 3,
		Sent: schemas.Sent{Kind: schemas.KindRefusalOrNudge, Code: schemas.CodeRepeatRead, Messages: []schemas.Message{
			{Role: "assistant", Content: "READ a.py"},
			{Role: "tool", Content: text, ToolCallID: "c1"}, {Role: "user", Content: ""}},
			Replaced: true, PromptHash: "sha256:0", Elided: []schemas.Elision{{What: "repo-map", Ref: "x", Tokens: 12}, {What: "message", Ref: "4", Tokens: 0}},
			PromptTokensEstimate: 99},
		Reply:     schemas.Reply{Content: text, Thinking: "hm\n", FinishReason: "length"},
		Action:    schemas.Action{Verb: "PATCH", Path: "a b/ü.py", Shape: "fenced", Via: "text", Repairs: []string{"r", ""}},
		Outcome:   schemas.Outcome{Status: schemas.StatusRefused, Code: schemas.CodeRepeatRead, Message: "already read\n", FilesChanged: []string{"a.py", "b.py"}},
		Metrics:   schemas.Metrics{PromptTokens: new(40), OutputTokens: new(0), PromptEvalTokens: new(-3), CachedTokens: new(999999999999999999), TotalMS: -120, LoadMS: new(int64(1)), PromptEvalMS: new(int64(2)), EvalMS: new(int64(-1)), TTFTMS: new(int64(0))},
		ModelStep: true, Reasoning: &schemas.Reasoning{Text: "think " + text, Tokens: 5, Source: schemas.ReasoningThinkTag, Cut: true},
		Attempts: []schemas.Attempt{{N: 1, Error: "boom", Status: 500, WaitMS: 10, PromptTokensEstimate: 7, Messages: 2}, {N: 2}},
		Warnings: []string{"w", "context-full: x"}, StartedAt: t0, EndedAt: t0.Add(time.Second).In(time.FixedZone("", 2*3600))}
	bare := &schemas.Turn{RunID: "r1", Step: 1, StartedAt: t0, EndedAt: t0}
	var lines []string
	for _, turn := range []*schemas.Turn{full, bare} {
		b, err := schemas.EncodeRecord(schemas.Record{Turn: turn})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSuffix(string(b), "\n"))
	}
	return lines
}

// turnLineEdges are lines on which decodeTurnLine could disagree with
// encoding/json: it must decode them the same, or leave them to the
// decoders after it.
func turnLineEdges(lines []string) map[string]string {
	full, bare := lines[0], lines[1]
	return map[string]string{
		"writer turn full":        full,
		"writer turn bare":        bare,
		"escaped letters":         strings.Replace(bare, `"content":""`, `"content":"\u00e9\u00E9\u003c\u0000\/"`, 1),
		"escaped surrogate pair":  strings.Replace(bare, `"content":""`, `"content":"\ud83d\ude00"`, 1),
		"escaped lone surrogate":  strings.Replace(bare, `"content":""`, `"content":"a\udc00"`, 1),
		"short escape":            strings.Replace(bare, `"content":""`, `"content":"\u12"`, 1),
		"escape at the end":       strings.Replace(bare, `"content":""`, `"content":"ab\\"`, 1),
		"bad escape":              strings.Replace(bare, `"content":""`, `"content":"a\x41"`, 1),
		"raw control character":   strings.Replace(bare, `"content":""`, "\"content\":\"a\tb\"", 1),
		"raw invalid utf-8":       strings.Replace(bare, `"content":""`, "\"content\":\"a\xc3(\"", 1),
		"raw utf-8 at a word end": strings.Replace(bare, `"content":""`, "\"content\":\"1234567\u00e9\U0001F600\"", 1),
		"encoded surrogate":       strings.Replace(bare, `"content":""`, "\"content\":\"\xed\xa0\x80\"", 1),
		"replacement character":   strings.Replace(bare, `"content":""`, "\"content\":\"\ufffd\"", 1),
		"step of 18 digits":       strings.Replace(bare, `"step":1`, `"step":123456789012345678`, 1),
		"step of 19 digits":       strings.Replace(bare, `"step":1`, `"step":1234567890123456789`, 1),
		"step over int64":         strings.Replace(bare, `"step":1`, `"step":92233720368547758070`, 1),
		"step negative zero":      strings.Replace(bare, `"step":1`, `"step":-0`, 1),
		"step a minus":            strings.Replace(bare, `"step":1`, `"step":-`, 1),
		"step leading zero":       strings.Replace(bare, `"step":1`, `"step":00`, 1),
		"step fraction":           strings.Replace(bare, `"step":1`, `"step":1.0`, 1),
		"step exponent":           strings.Replace(bare, `"step":1`, `"step":1e0`, 1),
		"step null":               strings.Replace(bare, `"step":1`, `"step":null`, 1),
		"metric null":             strings.Replace(full, `"prompt_tokens":40`, `"prompt_tokens":null`, 1),
		"metrics empty":           strings.Replace(bare, `"metrics":{"total_ms":0}`, `"metrics":{}`, 1),
		"metrics reordered":       strings.Replace(full, `"prompt_tokens":40,"output_tokens":0`, `"output_tokens":0,"prompt_tokens":40`, 1),
		"field missing":           strings.Replace(bare, `"thinking":"",`, ``, 1),
		"field repeated":          strings.Replace(bare, `"thinking":"",`, `"thinking":"a","thinking":"",`, 1),
		"field in another case":   strings.Replace(bare, `"thinking":`, `"Thinking":`, 1),
		"unknown field":           strings.Replace(bare, `"model_step":false`, `"model_step":false,"x":1`, 1),
		"space after a colon":     strings.Replace(bare, `"step":1`, `"step": 1`, 1),
		"tool call in a message":  strings.Replace(full, `"tool_call_id":"c1"`, `"tool_calls":[{"name":"read","arguments":{}}],"tool_call_id":"c1"`, 1),
		"tool call in the reply":  strings.Replace(bare, `"tool_calls":[]`, `"tool_calls":[{"name":"read","arguments":{"a":1}}]`, 1),
		"reasoning null":          strings.Replace(bare, `"model_step":false`, `"model_step":false,"reasoning":null`, 1),
		"attempts empty":          strings.Replace(bare, `"model_step":false`, `"model_step":false,"attempts":[]`, 1),
		"warnings null":           strings.Replace(bare, `"model_step":false`, `"model_step":false,"warnings":null`, 1),
		"bool as number":          strings.Replace(bare, `"replaced":false`, `"replaced":0`, 1),
		"time escaped":            strings.Replace(bare, `"started_at":"2`, `"started_at":"\u0032`, 1),
		"time not a time":         strings.Replace(bare, `"started_at":"2`, `"started_at":"x2`, 1),
		"time as number":          strings.Replace(bare, `"started_at":"2026-11-29T12:00:00.12Z"`, `"started_at":1`, 1),
		"trailing comma":          strings.Replace(bare, `"repairs":[]`, `"repairs":["a",]`, 1),
		"list unclosed":           strings.Replace(bare, `"repairs":[]`, `"repairs":["a"`, 1),
		"trailing garbage":        bare + "}",
		"cut short":               bare[:len(bare)-1],
		"cut in a string":         full[:strings.Index(full, "def f")+10],
	}
}

// TestDecodeRecordTakesTheFastPath checks that the lines Writer
// writes are decoded by decodeFast, so that the benchmark figures are
// those of the decoder in use, not of the fallback.
func TestDecodeRecordTakesTheFastPath(t *testing.T) {
	for _, line := range sampleLines(t) {
		if _, ok := decodeFast([]byte(line)); !ok {
			t.Errorf("not decoded by the fast path: %.60s…", line)
		}
	}
	for _, line := range writerTurnLines(t) {
		if _, ok := decodeTurnLine([]byte(line)); !ok {
			t.Errorf("not decoded by decodeTurnLine: %.60s…", line)
		}
	}
}

// FuzzDecodeRecord holds decodeRecord to encoding/json's decisions on any
// line: the same record, or the same error.
func FuzzDecodeRecord(f *testing.F) {
	lines := sampleLines(f)
	for _, line := range edgeLines(lines) {
		if len(line) < 8<<10 { // the deep ones would slow every mutation down
			f.Add([]byte(line))
		}
	}
	for _, line := range turnLineEdges(writerTurnLines(f)) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { sameAsStrict(t, line) })
}

// fillAll sets every field of v, at every depth: strings, numbers, two
// elements in every list, a value behind every pointer, an entry of each
// kind in every map of any.
func fillAll(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("value %d", *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fillAll(v.Index(0), n)
		fillAll(v.Index(1), n)
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]any{fmt.Sprintf("key %d", *n): "text", "list": []any{"a", 1.0}, "object": map[string]any{"k": "v"}}))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 12, 0, 0, *n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fillAll(v.Field(i), n)
		}
	default:
		panic(fmt.Sprintf("fillAll: no value for %s", v.Type()))
	}
}

// strs appends every string reachable from v: fields, elements, map keys
// and values.
func strs(v reflect.Value, out []string) []string {
	switch v.Kind() {
	case reflect.String:
		return append(out, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return strs(v.Elem(), out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = strs(v.Index(i), out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			out = strs(it.Value(), strs(it.Key(), out))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return out
		}
		for i := range v.NumField() {
			out = strs(v.Field(i), out)
		}
	}
	return out
}

// TestDecodedStringsKeepNoLine keeps every string of many decoded records,
// each decoded from its own copy of a line padded with 64 kB of spaces,
// and then overwrites the copy, as the trace reader reuses its buffer: the
// strings must stay what the strict decoder reads, and what stays in
// memory must be the strings, not the lines they were read from.
func TestDecodedStringsKeepNoLine(t *testing.T) {
	pad := strings.Repeat(" ", 64<<10)
	for _, rec := range []schemas.Record{{RunStart: new(schemas.RunStart)}, {Turn: new(schemas.Turn)}, {RunEnd: new(schemas.RunEnd)}} {
		t.Run(rec.Type(), func(t *testing.T) {
			n := 0
			switch {
			case rec.RunStart != nil:
				fillAll(reflect.ValueOf(rec.RunStart).Elem(), &n)
				rec.RunStart.Schema = schemas.Schema
			case rec.Turn != nil:
				fillAll(reflect.ValueOf(rec.Turn).Elem(), &n)
			case rec.RunEnd != nil:
				fillAll(reflect.ValueOf(rec.RunEnd).Elem(), &n)
			}
			b, err := schemas.EncodeRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			head := `{"type":"` + rec.Type() + `",`
			line := []byte(strings.Replace(strings.TrimSuffix(string(b), "\n"), head, head+pad, 1))
			if _, ok := decodeFast(line); !ok {
				t.Fatalf("the padded line is not decoded by the fast path: %.80s…", line)
			}
			strict, err := decodeStrict(line)
			if err != nil {
				t.Fatal(err)
			}
			want := strs(reflect.ValueOf(strict), nil)
			const records = 200
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			kept := make([][]string, 0, records)
			for range records {
				buf := bytes.Clone(line)
				got, err := decodeRecord(buf)
				if err != nil {
					t.Fatal(err)
				}
				kept = append(kept, strs(reflect.ValueOf(got), nil))
				for i := range buf {
					buf[i] = '#'
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			if lines := int64(records * len(line)); grew > lines/8 {
				t.Errorf("keeping the %d strings of %d records kept %d kB: the lines (%d kB) are still referenced", len(kept[0]), records, grew>>10, lines>>10)
			}
			for _, k := range kept {
				slices.Sort(k)
			}
			slices.Sort(want)
			for i, k := range kept {
				if !slices.Equal(k, want) {
					t.Fatalf("record %d changed when its line was overwritten:\ngot  %q\nwant %q", i, k, want)
				}
			}
		})
	}
}

// TestUTCTimeIsUnmarshalJSON holds the fast reading of a time to
// time.Time's own: the same Time for the writer's form, nothing for any
// other.
func TestUTCTimeIsUnmarshalJSON(t *testing.T) {
	for _, text := range []string{
		"2026-11-29T12:00:00Z", "2026-11-29T12:00:00.1Z", "2026-11-29T12:00:00.123456789Z",
		"2026-11-29T12:00:00.1234567891Z", "2026-11-29T12:00:00.Z", "2026-11-29T12:00:00,5Z",
		"2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-31T23:59:59.999Z",
		"2026-11-29T24:00:00Z", "2026-11-29T12:60:00Z", "2026-11-29T12:00:60Z", "2026-13-01T00:00:00Z",
		"2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
		"2026-11-29t12:00:00Z", "2026-11-29T12:00:00z", "2026-11-29T12:00:00+02:00", "2026-11-29 12:00:00Z",
		"+026-11-29T12:00:00Z", "2026-1-29T12:00:00Z", "2026-11-29T12:00:0Z", "2026-11-29T12:00:00.-1Z",
	} {
		var want time.Time
		werr := want.UnmarshalJSON([]byte(`"` + text + `"`))
		got, ok := utcTime([]byte(text))
		switch {
		case ok && werr != nil:
			t.Errorf("%s: read as %v, UnmarshalJSON: %v", text, got, werr)
		case ok && !reflect.DeepEqual(got, want):
			t.Errorf("%s: read as %#v, UnmarshalJSON %#v", text, got, want)
		case !ok && werr == nil && strings.HasSuffix(text, "Z") && !strings.ContainsAny(text[19:], ",") && len(text) <= 30:
			t.Errorf("%s: not read, UnmarshalJSON reads it", text)
		}
	}
}

// TestWriterLinesKeepNoLine is TestDecodedStringsKeepNoLine for the lines
// decodeTurnLine, decodeRunStartLine and decodeRunEndLine take (every field
// set, no tool call): no string of the record points into its line, and
// the record is what the strict decoder reads after the line is
// overwritten.
func TestWriterLinesKeepNoLine(t *testing.T) {
	n := 0
	start, turn, end := new(schemas.RunStart), new(schemas.Turn), new(schemas.RunEnd)
	fillAll(reflect.ValueOf(start).Elem(), &n)
	start.Schema = schemas.Schema
	fillAll(reflect.ValueOf(turn).Elem(), &n)
	turn.Reply.ToolCalls = nil
	for i := range turn.Sent.Messages {
		turn.Sent.Messages[i].ToolCalls = nil
	}
	turn.Sent.Messages[0].Role = "system" // the cached system prompt, too
	fillAll(reflect.ValueOf(end).Elem(), &n)
	for _, rec := range []schemas.Record{{RunStart: start}, {Turn: turn}, {RunEnd: end}, {Turn: turn}} {
		b, err := schemas.EncodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		line := bytes.TrimSuffix(b, []byte("\n"))
		var ok bool
		switch {
		case rec.RunStart != nil:
			_, ok = decodeRunStartLine(line)
		case rec.Turn != nil:
			_, ok = decodeTurnLine(line)
		case rec.RunEnd != nil:
			_, ok = decodeRunEndLine(line)
		}
		if !ok {
			t.Fatalf("not decoded by the writer's layout: %.80s…", line)
		}
		want, err := decodeStrict(line)
		if err != nil {
			t.Fatal(err)
		}
		buf := bytes.Clone(line)
		got, err := decodeRecord(buf)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[len(buf)-1]))
		for _, s := range strs(reflect.ValueOf(got), nil) {
			if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && p >= lo && p <= hi {
				t.Errorf("%s: %q points into its line", rec.Type(), s)
			}
		}
		for i := range buf {
			buf[i] = '#'
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed when its line was overwritten:\ngot  %s\nwant %s", rec.Type(), dump(got), dump(want))
		}
	}
}
