package classify

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go/compress"
	pqsnappy "github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// snappyCodec compresses every page classify writes with s2's standard
// snappy encoder: plain snappy blocks, which any Parquet reader decodes.
// It costs much less a byte than zstd or s2's "better" snappy, for a
// somewhat larger table, and nothing of ours decompresses the pages on
// the hot path (stats reads package countcache's counts files);
// docs/performance.md has the figures.
type snappyCodec struct {
	decode pqsnappy.Codec
}

var _ compress.Codec = (*snappyCodec)(nil)

// pageCodec is shared by every part writer: it holds no state.
var pageCodec = &snappyCodec{}

func (c *snappyCodec) String() string { return "SNAPPY" }

func (c *snappyCodec) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (c *snappyCodec) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst[:0], src), nil
}

func (c *snappyCodec) Decode(dst, src []byte) ([]byte, error) { return c.decode.Decode(dst, src) }
