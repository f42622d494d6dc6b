package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/pyharness/pyharness/schemas"
)

// ParseError is a trace line that could not be read as a record.
type ParseError struct {
	File  string
	Line  int
	Field string // the JSON field at fault, when known
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: field %q: %v", e.File, e.Line, e.Field, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// tornLineError is a warning, not a failure: the file's last line was cut
// short (a crash mid-write). Every complete record before it was read.
type tornLineError struct {
	File  string
	Line  int
	Bytes int
}

func (e *tornLineError) Error() string {
	return fmt.Sprintf("%s:%d: torn last line (%d bytes, no newline) skipped: the writer stopped mid-record", e.File, e.Line, e.Bytes)
}

// IsWarning reports whether an error yielded by a reader is a warning after
// which reading went on normally.
func IsWarning(err error) bool {
	var torn *tornLineError
	return errors.As(err, &torn)
}

// ReadFile streams the records of one trace file; see Read.
func ReadFile(path string) iter.Seq2[schemas.Record, error] {
	return func(yield func(schemas.Record, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(schemas.Record{}, fmt.Errorf("open trace: %w", err))
			return
		}
		defer f.Close()
		for rec, err := range readRecords(f, path) {
			if !yield(rec, err) {
				return
			}
		}
	}
}

// readRecords streams the records of one trace. A bad line yields a *ParseError
// (file, line, field) and reading goes on with the next line; a torn last
// line yields a *tornLineError warning; a record of an unsupported major
// schema version ends the stream, since nothing after it can be trusted.
func readRecords(r io.Reader, name string) iter.Seq2[schemas.Record, error] {
	return read(r, name, readBufferSize)
}

// read is readRecords with a read buffer of the given size.
func read(r io.Reader, name string, size int) iter.Seq2[schemas.Record, error] {
	return records(lines(r, name, size))
}

// records decodes the lines of a trace as readRecords does.
func records(ls iter.Seq[line]) iter.Seq2[schemas.Record, error] {
	return func(yield func(schemas.Record, error) bool) {
		for l := range ls {
			if l.err != nil {
				if !yield(schemas.Record{}, l.err) {
					return
				}
				continue
			}
			rec, err := l.decode()
			if !yield(rec, err) {
				return
			}
			var ue *schemas.UnsupportedSchemaError
			if errors.As(err, &ue) {
				return
			}
		}
	}
}

// line is one non-blank line of a trace file.
type line struct {
	name string
	no   int
	body []byte // without the line ending
	last bool   // the file's last line, with no newline after it
	err  error  // a line that cannot be read at all (I/O, invalid UTF-8, torn)
}

// decode decodes the line into a record, turning a failure into a
// *ParseError, or a *tornLineError when the line is the cut-off last one.
func (l line) decode() (schemas.Record, error) {
	rec, err := decodeRecord(l.body)
	if err == nil {
		return rec, nil
	}
	if l.last {
		return schemas.Record{}, &tornLineError{File: l.name, Line: l.no, Bytes: len(l.body)}
	}
	pe := &ParseError{File: l.name, Line: l.no, Err: err}
	var fe *fieldError
	if errors.As(err, &fe) {
		pe.Field, pe.Err = fe.Field, fe.Err
	}
	var ue *schemas.UnsupportedSchemaError
	if errors.As(err, &ue) {
		pe.Field = "schema"
	}
	return schemas.Record{}, pe
}

// lines streams the non-blank lines of a trace, checking each is UTF-8. A
// line's body is valid until the next line is asked for: it is the read
// buffer itself, not a copy, since decoding copies what it keeps.
func lines(r io.Reader, name string, size int) iter.Seq[line] {
	return func(yield func(line) bool) {
		var br *bufio.Reader
		if size == readBufferSize {
			br = readers.Get().(*bufio.Reader)
			br.Reset(r)
			defer func() { br.Reset(nil); readers.Put(br) }()
		} else {
			br = bufio.NewReaderSize(r, size)
		}
		var long []byte // a line longer than the buffer, gathered
		for no := 1; ; no++ {
			raw, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				long = append(long[:0], raw...)
				for err == bufio.ErrBufferFull {
					raw, err = br.ReadSlice('\n')
					long = append(long, raw...)
				}
				raw = long
			}
			if len(raw) == 0 && err == io.EOF {
				return
			}
			if err != nil && err != io.EOF {
				yield(line{name: name, no: no, err: &ParseError{File: name, Line: no, Err: fmt.Errorf("read: %w", err)}})
				return
			}
			if l, ok := lineOf(name, no, raw, err == io.EOF); ok && !yield(l) {
				return
			}
		}
	}
}

// linesOf is lines of a trace read whole beforehand: its lines are data's
// own bytes, not copied into a read buffer first.
func linesOf(data []byte, name string) iter.Seq[line] {
	return func(yield func(line) bool) {
		for no := 1; len(data) > 0; no++ {
			raw := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				raw = data[:i+1]
			}
			data = data[len(raw):]
			last := raw[len(raw)-1] != '\n'
			if l, ok := lineOf(name, no, raw, last); ok && !yield(l) {
				return
			}
		}
	}
}

// lineOf is line no of a trace, raw with its line ending, checked to be
// UTF-8; ok is false for a blank line, which is not yielded.
func lineOf(name string, no int, raw []byte, last bool) (line, bool) {
	l := line{name: name, no: no, last: last, body: bytes.TrimRight(raw, "\r\n")}
	if len(bytes.TrimSpace(l.body)) == 0 {
		return l, false
	}
	if !utf8.Valid(l.body) {
		if l.last {
			l.err = &tornLineError{File: name, Line: no, Bytes: len(l.body)}
		} else {
			l.err = &ParseError{File: name, Line: no, Err: fmt.Errorf("not valid UTF-8 (byte %d)", invalidUTF8Offset(l.body))}
		}
	}
	return l, true
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i + 1
		}
		i += n
	}
	return 0
}

// readBufferSize is the read buffer of readRecords and of the validator. Such
// buffers are pooled, not allocated per file: a trace is read once, so a
// buffer per file would be garbage as large as the corpus, and the
// collector's work would follow it.
const readBufferSize = 64 << 10

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}
