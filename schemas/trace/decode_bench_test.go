package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bytedance/sonic"

	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// BenchmarkDecodeRecord weighs decodeRecord against other ways of
// decoding a trace line, on the lines of a generated corpus held in
// memory: MB/s of lines.
//
//   - encoding-json-twice: decodeStrict, a head for the type, then the
//     record (the path of every line the fast decoders leave);
//   - encoding-json-once: the type read from the line's start, one decode;
//   - encoding-json-valid: json.Valid alone, the floor of any decode by
//     encoding/json;
//   - sonic-once: one decode with bytedance/sonic's default configuration
//     (strings pointing into the line, control characters taken, unknown
//     fields skipped), to show what decodeRecord's settings of it cost;
//   - decode: decodeRecord;
//   - stats-fields-*: a turn's labels only (kind, code, verb, shape,
//     status), what a summary of the turns needs.
func BenchmarkDecodeRecord(b *testing.B) {
	o := synthetic.DefaultOptions()
	o.Turns = 3000
	dir := b.TempDir()
	if _, err := synthetic.Generate(context.Background(), dir, o); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	var lines [][]byte
	var size int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
		for l := range bytes.Lines(data) {
			lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		}
	}
	type labels struct {
		Type    string `json:"type"`
		Step    int    `json:"step"`
		Sent    struct{ Kind, Code string }
		Action  struct{ Verb, Shape string }
		Outcome struct{ Status, Code string }
	}
	once := func(unmarshal func([]byte, any) error) func([]byte) error {
		return func(l []byte) error {
			var v any
			switch {
			case bytes.HasPrefix(l, []byte(`{"type":"turn"`)):
				v = new(schemas.Turn)
			case bytes.HasPrefix(l, []byte(`{"type":"run_end"`)):
				v = new(schemas.RunEnd)
			default:
				v = new(schemas.RunStart)
			}
			return unmarshal(l, v)
		}
	}
	for _, c := range []struct {
		name string
		f    func([]byte) error
	}{
		{"encoding-json-twice", func(l []byte) error { _, err := trace.DecodeStrict(l); return err }},
		{"encoding-json-once", once(json.Unmarshal)},
		{"encoding-json-valid", func(l []byte) error { json.Valid(l); return nil }},
		{"sonic-once", once(sonic.Unmarshal)},
		{"decode", func(l []byte) error { _, err := trace.DecodeRecord(l); return err }},
		{"stats-fields-encoding-json", func(l []byte) error { var v labels; return json.Unmarshal(l, &v) }},
		{"stats-fields-sonic", func(l []byte) error { var v labels; return sonic.Unmarshal(l, &v) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					if err := c.f(l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
