package rawtext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Message is one chat message of an exported row.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Renderer lays a whole conversation out as its model's chat template
// does for training: the last message is the trained draft, and nothing
// (no generation prompt) follows it.
type Renderer interface {
	Render(messages []Message) (string, error)
	// Name says which template this is, for the README.
	Name() string
}

// Layout is a text layout a trainer reads.
type Layout string

const (
	// Plain is one text file per split, the rows one after another
	// (llama-finetune -f cuts it into windows of its context).
	Plain Layout = "plain"
	// TextJSONL is one {"text": …} row per line (mlx-lm's text format).
	TextJSONL Layout = "text-jsonl"
)

// Layouts are the layouts Write knows, in the order it writes them.
var Layouts = []Layout{Plain, TextJSONL}

// FileName is the file a split is written to in a layout.
func FileName(l Layout, split string) string {
	if l == Plain {
		return split + ".txt"
	}
	return split + ".jsonl"
}

// Summary says what Write wrote.
type Summary struct {
	Template string         `json:"template"`
	Rows     map[string]int `json:"rows"`
	Files    []string       `json:"files"`
	// EarlierDrafts counts rows whose context holds assistant messages
	// before the trained one: a raw-text trainer learns those too.
	EarlierDrafts int `json:"rows_with_earlier_drafts"`
}

// RowError is a row that could not be read or rendered, with its file and
// line.
type RowError struct {
	File string
	Line int
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// row is an exported row: {"messages": […]} or, in the prompt/completion
// layout, {"prompt": […], "completion": […]}.
type row struct {
	Messages   []Message `json:"messages"`
	Prompt     []Message `json:"prompt"`
	Completion []Message `json:"completion"`
}

func (r row) conversation() ([]Message, error) {
	if len(r.Messages) > 0 {
		return r.Messages, nil
	}
	if len(r.Prompt) > 0 && len(r.Completion) > 0 {
		return append(append([]Message(nil), r.Prompt...), r.Completion...), nil
	}
	return nil, errors.New(`the row has neither "messages" nor "prompt" and "completion"`)
}

// Write renders the rows of every split file (train.jsonl, valid.jsonl,
// test.jsonl) found in the JSONL export in, and writes each layout to
// out/LAYOUT/, with a README.md. A row that does not render stops it with
// the row's file and line; nothing partial is left in out.
func Write(ctx context.Context, in, out string, r Renderer, layouts []Layout) (*Summary, error) {
	s := &Summary{Template: r.Name(), Rows: map[string]int{}}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), ".rawtext-")
	if err != nil {
		return nil, fmt.Errorf("rawtext: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, l := range layouts {
		if err := os.MkdirAll(filepath.Join(tmp, string(l)), 0o755); err != nil {
			return nil, fmt.Errorf("rawtext: %w", err)
		}
	}
	found := 0
	for _, split := range []string{"train", "valid", "test"} {
		src := filepath.Join(in, split+".jsonl")
		if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
			continue
		}
		found++
		if err := s.writeSplit(ctx, src, tmp, split, r, layouts); err != nil {
			return nil, err
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("rawtext: %s holds no train.jsonl, valid.jsonl or test.jsonl", in)
	}
	if err := os.WriteFile(filepath.Join(tmp, "README.md"), []byte(s.readme(layouts)), 0o644); err != nil {
		return nil, fmt.Errorf("rawtext: %w", err)
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, fmt.Errorf("rawtext: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, fmt.Errorf("rawtext: %w", err)
	}
	return s, nil
}

func (s *Summary) writeSplit(ctx context.Context, src, dir, split string, r Renderer, layouts []Layout) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("rawtext: %w", err)
	}
	defer f.Close()
	outs := map[Layout]*bufio.Writer{}
	for _, l := range layouts {
		name := FileName(l, split)
		w, err := os.Create(filepath.Join(dir, string(l), name))
		if err != nil {
			return fmt.Errorf("rawtext: %w", err)
		}
		defer w.Close()
		bw := bufio.NewWriter(w)
		defer bw.Flush()
		outs[l] = bw
		s.Files = append(s.Files, filepath.Join(string(l), name))
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	line := 0
	for sc.Scan() {
		line++
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rw row
		if err := json.Unmarshal(sc.Bytes(), &rw); err != nil {
			return &RowError{File: src, Line: line, Err: err}
		}
		msgs, err := rw.conversation()
		if err != nil {
			return &RowError{File: src, Line: line, Err: err}
		}
		if last := msgs[len(msgs)-1]; last.Role != "assistant" {
			return &RowError{File: src, Line: line, Err: fmt.Errorf("the last message is %q, not the assistant's draft", last.Role)}
		}
		for _, m := range msgs[:len(msgs)-1] {
			if m.Role == "assistant" {
				s.EarlierDrafts++
				break
			}
		}
		text, err := r.Render(msgs)
		if err != nil {
			return &RowError{File: src, Line: line, Err: fmt.Errorf("template %s: %w", r.Name(), err)}
		}
		for l, w := range outs {
			if err := writeRow(w, l, text); err != nil {
				return fmt.Errorf("rawtext: %w", err)
			}
		}
		s.Rows[split]++
	}
	if err := sc.Err(); err != nil {
		return &RowError{File: src, Line: line + 1, Err: err}
	}
	for _, w := range outs {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("rawtext: %w", err)
		}
	}
	return nil
}

func writeRow(w io.Writer, l Layout, text string) error {
	if l == Plain {
		// The rendered row ends with the template's end-of-turn mark; the
		// newline only keeps the file readable.
		_, err := io.WriteString(w, text+"\n")
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]string{"text": text})
}

// CardSection is what a dataset card says of the text rows: where they
// are and what a raw-text trainer learns from them.
func (s *Summary) CardSection() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Text for raw-text trainers\n\n")
	fmt.Fprintf(&b, "`text/` holds every row rendered through the chat template %s: `text/plain/train.txt` for llama.cpp's `llama-finetune -f`, `text/text-jsonl/` (`{\"text\": …}` rows) for mlx-lm. ", s.Template)
	b.WriteString(s.everyToken())
	b.WriteString(" `text/README.md` has the details.\n")
	return b.String()
}

func (s *Summary) everyToken() string {
	var b strings.Builder
	b.WriteString("**Every token is trained.** A raw-text trainer cannot mask the prompt: the harness's prompt is learned along with the draft that answers it")
	if s.EarlierDrafts > 0 {
		fmt.Fprintf(&b, ", and %d row(s) hold earlier drafts of their run in the context, which are learned too, whether the harness accepted them or not", s.EarlierDrafts)
	}
	b.WriteString(". Only the last message of each row is the selected draft. A trainer that masks the prompt (TRL or mlx-lm on the prompt/completion rows, mlx-lm's `--mask-prompt`) trains that draft alone.")
	return b.String()
}

func (s *Summary) readme(layouts []Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Text rows for raw-text trainers\n\n")
	fmt.Fprintf(&b, "Each row of the JSONL export beside this directory, rendered through the chat template %s.\n\n", s.Template)
	fmt.Fprintf(&b, "| split | rows |\n|---|---|\n")
	for _, split := range []string{"train", "valid", "test"} {
		if n, ok := s.Rows[split]; ok {
			fmt.Fprintf(&b, "| %s | %d |\n", split, n)
		}
	}
	b.WriteString("\n")
	for _, l := range layouts {
		switch l {
		case Plain:
			b.WriteString("- `plain/train.txt`: the rows one after another, for llama.cpp's `llama-finetune -f plain/train.txt`, which cuts the file into windows of its `-c` tokens. Its b5929 reads the file without parsing special tokens: the template's markers are learned as the plain text they are spelled with, not as the token ids a server sends the model.\n")
		case TextJSONL:
			b.WriteString("- `text-jsonl/`: `{\"text\": …}` rows, mlx-lm's text format (`mlx_lm.lora --data text-jsonl`).\n")
		}
	}
	b.WriteString("\n" + s.everyToken() + "\n")
	return b.String()
}
