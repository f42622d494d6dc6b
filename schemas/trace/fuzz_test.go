package trace

import (
	"bytes"
	"errors"
	"iter"
	"reflect"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// FuzzRead: whatever bytes a trace file holds, the reader never panics, every
// error it yields carries a position, and every record it yields has a type;
// and a trace read whole beforehand (ReadRunBytes's lines, linesOf) yields
// the same records and errors as one read through a buffer, however small.
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
	f.Add(append([]byte("\r\n  \n"), bytes.ReplaceAll(good.Bytes(), []byte("\n"), []byte("\r\n\n"))...))
	f.Fuzz(func(t *testing.T, data []byte) {
		type result struct {
			rec schemas.Record
			err string
		}
		collect := func(recs iter.Seq2[schemas.Record, error]) []result {
			var out []result
			for rec, err := range recs {
				r := result{rec: rec}
				if err != nil {
					r.err = err.Error()
				}
				out = append(out, r)
			}
			return out
		}
		whole := collect(records(linesOf(data, "fuzz.jsonl")))
		if buffered := collect(read(bytes.NewReader(data), "fuzz.jsonl", 16)); !reflect.DeepEqual(whole, buffered) {
			t.Fatalf("read whole:\n%+v\nread through a buffer:\n%+v", whole, buffered)
		}
		for rec, err := range readRecords(bytes.NewReader(data), "fuzz.jsonl") {
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
