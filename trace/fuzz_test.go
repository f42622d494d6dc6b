package trace

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// FuzzRead: whatever bytes a trace file holds, the reader never panics, every
// error it yields carries a position, and every record it yields has a type.
func FuzzRead(f *testing.F) {
	var good bytes.Buffer
	for _, r := range sampleRun("r1") {
		line, _ := schemas.EncodeRecord(r)
		good.Write(line)
	}
	f.Add(bytes.Clone(good.Bytes()))
	f.Add(bytes.Clone(good.Bytes()[:good.Len()-7]))
	f.Add([]byte("{\"type\":\"turn\",\"step\":\"x\"}\n\xff\n"))
	f.Add([]byte("{\"type\":\"run_start\",\"schema\":\"pyharness.trace/v9\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for rec, err := range Read(bytes.NewReader(data), "fuzz.jsonl") {
			if err != nil {
				var pe *ParseError
				var te *tornLineError
				if !errors.As(err, &pe) && !errors.As(err, &te) {
					t.Fatalf("error without a position: %v", err)
				}
				continue
			}
			if rec.Type() == "" {
				t.Fatal("record without a type")
			}
		}
	})
}
