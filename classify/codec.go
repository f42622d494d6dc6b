package classify

import (
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdWindow bounds the history an encoder keeps. A page is compressed on
// its own and is far smaller than zstd's default 8 MiB window, so the
// bound costs nothing in ratio and saves allocating (and zeroing) that
// window each time an encoder is made.
const zstdWindow = 1 << 20

// zstdCodec compresses pages with zstd at its fastest level, keeping its
// encoders for the life of the process. The default level was a quarter
// of classify's CPU time; the fastest took 1.7 to 5.8 CPU seconds off a
// classify of 200,000 turns (of 26 to 35, four alternated pairs) for a
// turns table 9% larger, and stats and DuckDB, which read the small
// columns, took as long on either (docs/performance.md). parquet-go's own codec keeps its
// encoders in a sync.Pool, which every garbage collection empties: classify
// allocates fast, so it was making (and zeroing) an 8 MiB window per page.
type zstdCodec struct {
	encoders chan *zstd.Encoder
	decode   pqzstd.Codec
}

var _ compress.Codec = (*zstdCodec)(nil)

// pageCodec is shared by every part writer.
var pageCodec = &zstdCodec{encoders: make(chan *zstd.Encoder, 8)}

func (c *zstdCodec) String() string { return "ZSTD" }

func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	var e *zstd.Encoder
	select {
	case e = <-c.encoders:
	default:
		var err error
		e, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false), zstd.WithWindowSize(zstdWindow))
		if err != nil {
			return dst, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case c.encoders <- e:
	default: // more writers at once than the channel holds: let this one go
	}
	return out, nil
}

func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return c.decode.Decode(dst, src) }
