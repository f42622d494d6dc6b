package dedupe

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/schemas"
)

// benchPair is a turn shaped like a real one: a system prompt, a task, a
// file shown to the model and a tool result, then a write. The text is this
// package's own source: code, as the traces hold.
func benchPair(b *testing.B) ([]schemas.Message, schemas.Reply, []byte) {
	b.Helper()
	src, err := os.ReadFile("index.go")
	if err != nil {
		b.Fatal(err)
	}
	code := string(src)
	prompt := []schemas.Message{
		{Role: "system", Content: code[:2000]},
		{Role: "user", Content: "Task: make the index smaller.\n" + code[2000:2600]},
		{Role: "assistant", Content: "READ index.go"},
		{Role: "user", Content: "index.go (lines 1-200 of 300):\n```go\n" + code[2600:7600] + "\n```\nRan 12 tests in 0.031s\n"},
	}
	draft := schemas.Reply{Content: "WRITE index.go\n```go\n" + code[7600:8800] + "\n```"}
	var raw []byte
	for _, m := range prompt {
		raw = append(raw, m.Role...)
		raw = append(raw, m.Content...)
	}
	raw = append(raw, draft.Content...)
	return prompt, draft, raw
}

// BenchmarkExactKey is the normalise-and-hash key of one pair; compare its
// MB/s with BenchmarkXXHashRaw, the bare hash of the same bytes.
func BenchmarkExactKey(b *testing.B) {
	prompt, draft, raw := benchPair(b)
	var buf []byte
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		buf = appendKeyText(buf[:0], prompt, draft)
		_ = Key(buf)
	}
}

// BenchmarkRegexpKey is the key of the same pair with the tests' regular
// expression normaliser (referenceNormalize), the naive way, for scale.
func BenchmarkRegexpKey(b *testing.B) {
	prompt, draft, raw := benchPair(b)
	var buf []byte
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		buf = buf[:0]
		for _, m := range prompt {
			buf = append(buf, m.Role...)
			buf = append(buf, referenceNormalize(m.Content)...)
		}
		buf = append(buf, referenceNormalize(draft.Content)...)
		_ = Key(buf)
	}
}

func BenchmarkXXHashRaw(b *testing.B) {
	_, _, raw := benchPair(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		_ = xxhash.Sum64(raw)
	}
}

// BenchmarkMinHash is the near-duplicate signature of one pair: shingles of
// the draft and the message it answered, numPerm minima, Bands band hashes.
func BenchmarkMinHash(b *testing.B) {
	prompt, draft, _ := benchPair(b)
	near := AppendNearText(nil, prompt, draft)
	var sh []uint64
	b.SetBytes(int64(len(near)))
	b.ReportAllocs()
	for b.Loop() {
		sh = appendShingles(sh[:0], near)
		sig := signatureOf(sh)
		_ = bandHashes(&sig)
	}
}

// BenchmarkIndexMemory adds distinct pairs (every one its own cluster, the
// worst case) and reports the heap the index holds per unique pair: with
// every pair in one group, the cost of the open group's keys and band
// hashes; in groups of five (a case's turns over a few passes), what is
// left of closed groups.
func BenchmarkIndexMemory(b *testing.B) {
	const n = 100_000
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	keys := make([][]byte, n)
	nears := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key text %d", i)
		nears[i] = fmt.Appendf(nil, "draft %d answers message %d of case %d", i, i*7, i%15)
	}
	for _, bc := range []struct {
		name      string
		groupSize int
	}{{"one-group", n}, {"groups-of-5", 5}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				ix := NewIndex(0, texts, nil)
				for i := range keys {
					it := Item{Ref: Ref{Run: int32(i)}, Group: fmt.Sprint(i / bc.groupSize)}
					if _, err := ix.add(context.Background(), it, keys[i], nears[i]); err != nil {
						b.Fatal(err)
					}
				}
				ix.keyBuf, ix.fp, ix.shB, ix.cands = nil, Fingerprint{}, nil, nil
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/unique")
				runtime.KeepAlive(ix)
			}
		})
	}
}
