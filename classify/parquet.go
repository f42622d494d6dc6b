package classify

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/internal/version"
)

// rowsPerGroup bounds what a writer holds in memory before it flushes a row
// group: a turn row holds at most a prompt's worth of text. A reader pays
// for every row group (its column chunks in the footer, a page or more per
// column it reads), so the groups are large: fewer footers and pages to
// decode for a little more of classify's memory.
const rowsPerGroup = 8192

// readAhead is how many runs classify reads ahead of the one it writes,
// and how many writes a part's encoder may have waiting. Writing is
// bursty: a row group is encoded and compressed when it fills, and with
// only a few runs of room the readers wait through each flush; 128 runs
// (a few MB) keep them busy.
const readAhead = 128

// rowsPerFile starts a new part file past this many rows, so that a rewrite
// (when a run gains a newer attempt) copies a bounded file.
const rowsPerFile = 100_000

// partWriter writes rows of one table into one part file. Encoding and
// compressing the rows happen on a goroutine of the part's own, so that
// the goroutine that takes the runs in order hands rows over and goes on
// rather than hold up the workers reading the next runs through each row
// group's flush. The encoder gets the rows in the writes they were given,
// so the file's pages and bytes are those of writing them in place.
type partWriter[T any] struct {
	rel    string // path under the dataset
	f      *os.File
	w      *parquet.GenericWriter[T]
	rows   int
	writes chan []T   // to the encoder, in order
	done   chan error // the encoder's first error, once writes is closed
	closed bool
}

func writerOptions[T any]() []parquet.WriterOption {
	var zero T
	return []parquet.WriterOption{
		parquet.Compression(pageCodec),
		parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.CreatedBy("pyharness", version.Harness().Version, ""),
		parquet.KeyValueMetadata("ARROW:schema", arrowSchemaMetadata(reflect.TypeOf(zero))),
	}
}

func createPart[T any](root, rel string) (*partWriter[T], error) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, fmt.Errorf("create part: %w", err)
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create part: %w", err)
	}
	p := &partWriter[T]{rel: rel, f: f, w: parquet.NewGenericWriter[T](f, writerOptions[T]()...),
		writes: make(chan []T, readAhead), done: make(chan error, 1)}
	go p.encode()
	return p, nil
}

// encode writes the rows in the order they came; after an error it
// drains the rest unwritten, and reports the error when writes closes.
func (p *partWriter[T]) encode() {
	var err error
	for rows := range p.writes {
		if err == nil {
			if _, werr := p.w.Write(rows); werr != nil {
				err = fmt.Errorf("write %s: %w", p.rel, werr)
			}
		}
	}
	p.done <- err
}

// write hands rows to the encoder, which owns them from then on: the
// caller must not change them. An error in writing them is close's: a
// batch commits only after every part closed.
func (p *partWriter[T]) write(rows []T) {
	if len(rows) == 0 {
		return
	}
	p.writes <- rows
	p.rows += len(rows)
}

// finish waits for the encoder to write what it was given.
func (p *partWriter[T]) finish() error {
	if p.closed {
		return nil
	}
	p.closed = true
	close(p.writes)
	return <-p.done
}

// close finishes the file and syncs it.
func (p *partWriter[T]) close() error {
	if err := p.finish(); err != nil {
		p.f.Close()
		return err
	}
	err := p.w.Close()
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("close %s: %w", p.rel, err)
	}
	return nil
}

// arrowSchemaMetadata is the ARROW:schema key Arrow writers store in a
// Parquet file: the Arrow schema of the rows, as an IPC message, in base64.
// It is what makes Arrow readers (pqarrow, pyarrow) read the codes back as
// dictionary strings and the times as UTC timestamps without being told.
func arrowSchemaMetadata(t reflect.Type) string {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrowSchema(t)))
	if err := w.Close(); err != nil {
		panic(fmt.Sprintf("serialize arrow schema of %s: %v", t, err)) // the types are fixed: a bug, not input
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

var timeType = reflect.TypeOf(time.Time{})

// arrowSchema is the Arrow schema of a row type of this package, read from
// its parquet tags: "dict" strings are dictionary<int32, utf8>, timestamps
// are timestamp[us, UTC], "list" slices are lists with "element" items.
func arrowSchema(t reflect.Type) *arrow.Schema {
	return arrow.NewSchema(arrowFields(t, false), nil)
}

// arrowFields maps the fields of a struct; nested fields (the items of a
// list) keep dictionary strings plain, as Arrow readers read nested
// dictionaries as plain strings anyway.
func arrowFields(t reflect.Type, nested bool) []arrow.Field {
	var fields []arrow.Field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := strings.Split(sf.Tag.Get("parquet"), ",")
		if tag[0] == "-" {
			continue
		}
		opts := map[string]bool{}
		for _, o := range tag[1:] {
			opts[o] = true
		}
		if nested {
			delete(opts, "dict")
		}
		fields = append(fields, arrow.Field{Name: tag[0], Type: arrowType(sf.Type, opts), Nullable: opts["optional"]})
	}
	return fields
}

func arrowType(t reflect.Type, opts map[string]bool) arrow.DataType {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case t.Kind() == reflect.String && opts["dict"]:
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	case t.Kind() == reflect.String:
		return arrow.BinaryTypes.String
	case t.Kind() == reflect.Bool:
		return arrow.FixedWidthTypes.Boolean
	case t.Kind() == reflect.Int32:
		return arrow.PrimitiveTypes.Int32
	case t.Kind() == reflect.Int64:
		return arrow.PrimitiveTypes.Int64
	case t.Kind() == reflect.Float64:
		return arrow.PrimitiveTypes.Float64
	case t.Kind() == reflect.Slice:
		return arrow.ListOfField(arrow.Field{Name: "element", Type: arrowType(t.Elem(), nil)})
	case t.Kind() == reflect.Struct:
		return arrow.StructOf(arrowFields(t, true)...)
	}
	panic(fmt.Sprintf("no arrow type for %s", t)) // the row types are fixed
}
