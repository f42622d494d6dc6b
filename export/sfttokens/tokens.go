package sfttokens

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

// Row is a row as the trainer reads it: the token ids of the rendered
// row, and the [start, end) ranges of the ids it trains (each the target
// of the position before it).
type Row struct {
	IDs     []int32  `json:"ids"`
	Trained [][2]int `json:"trained"`
}

// tokenize tokenizes a rendered row piece by piece, so that each trained
// span's ids are the tokens of that span's text alone.
func tokenize(tok Tokenizer, r Rendered) (Row, error) {
	var row Row
	for _, p := range r.Pieces {
		ids, err := tok.Encode(p.Text, false)
		if err != nil {
			return Row{}, fmt.Errorf("tokenize: %w", err)
		}
		start := len(row.IDs)
		row.IDs = append(row.IDs, ids...)
		if p.Trained && len(ids) > 0 {
			row.Trained = append(row.Trained, [2]int{start, len(row.IDs)})
		}
	}
	return row, nil
}

// Stats counts what Write wrote.
type Stats struct {
	Rows, Tokens, Trained int
	// Longest is the most tokens of a row.
	Longest int
}

// LineError is a row that could not be made into tokens.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Write reads the JSONL rows of r (named name, for errors) and writes a
// Row per line to w.
func Write(ctx context.Context, w io.Writer, r io.Reader, name string, tpl *chattemplate.Template, tok Tokenizer, mode Mode) (Stats, error) {
	var st Stats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	enc := json.NewEncoder(w)
	for n := 1; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rd, err := Render(tpl, line, mode)
		if err != nil {
			return st, &LineError{File: name, Line: n, Err: err}
		}
		row, err := tokenize(tok, rd)
		if err != nil {
			return st, &LineError{File: name, Line: n, Err: err}
		}
		if err := enc.Encode(row); err != nil {
			return st, fmt.Errorf("write tokens: %w", err)
		}
		st.Rows++
		st.Tokens += len(row.IDs)
		st.Longest = max(st.Longest, len(row.IDs))
		for _, s := range row.Trained {
			st.Trained += s[1] - s[0]
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("read %s: %w", name, err)
	}
	return st, nil
}
