package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

// TemplateCheck is what checking every written row against the chat
// template of the model to train (--chat-template) found and changed.
type TemplateCheck struct {
	Template string `json:"template"`
	// Traits say what the template does with system prompts, the
	// generation prompt, reasoning and tool calls, as probes found.
	Traits string `json:"traits"`
	// Rows checked, copies of a weighted training row included.
	Rows int `json:"rows"`
	// Adaptations counts the rows each adaptation changed.
	Adaptations map[chattemplate.Adaptation]int `json:"adaptations,omitempty"`
	// NotPrefix counts the rows that render, but whose prompt is not a
	// prefix of the conversation under this template; NotPrefixExample
	// shows the first.
	NotPrefix        int    `json:"not_prefix,omitempty"`
	NotPrefixExample string `json:"not_prefix_example,omitempty"`
}

// TemplateRowError is a written row the chat template cannot render as
// meant: the export fails on it.
type TemplateRowError struct {
	File  string
	Split string
	// Line is the row's line in File, from 1 (meta.jsonl has its
	// provenance on the same line).
	Line int
	Err  error
}

func (e *TemplateRowError) Error() string {
	// meta.jsonl says which run and step the row came from.
	return fmt.Sprintf("%s:%d (meta.jsonl split %s, row %d): %v", e.File, e.Line, e.Split, e.Line-1, e.Err)
}

func (e *TemplateRowError) Unwrap() error { return e.Err }

// checkRows puts a template check between each split's encoder and its
// file, so every row is checked, and adapted, as it is written.
func (e *exporter) checkRows(s *jsonlSink) {
	c := chattemplate.NewChecker(e.opts.ChatTemplate)
	tc := &TemplateCheck{Template: c.T.Name, Traits: c.Traits.String(), Adaptations: map[chattemplate.Adaptation]int{}}
	e.sum.Template = tc
	for sp, f := range s.files {
		s.outs[sp] = &rowChecker{file: jsonlNames[sp], split: sp, w: f, c: c, tc: tc}
	}
}

// rowChecker checks the rows of one split file. json.Encoder hands it one
// whole row, newline included, per Write.
type rowChecker struct {
	file  string
	split string
	w     io.Writer
	c     *chattemplate.Checker
	tc    *TemplateCheck
	line  int
	// The copies of a weighted row follow each other: the last row and
	// its outcome are kept so that a copy is not checked again.
	last    []byte
	checked chattemplate.Checked
}

func (r *rowChecker) Write(p []byte) (int, error) {
	r.line++
	row := bytes.TrimSuffix(p, []byte("\n"))
	if !bytes.Equal(row, r.last) {
		ch, err := r.c.Check(row)
		if err != nil {
			return 0, &TemplateRowError{File: r.file, Split: r.split, Line: r.line, Err: err}
		}
		r.last, r.checked = append(r.last[:0], row...), ch
		r.checked.Row = bytes.Clone(ch.Row)
	}
	r.tc.Rows++
	for _, a := range r.checked.Adaptations {
		r.tc.Adaptations[a]++
	}
	if r.checked.NotPrefix != "" {
		if r.tc.NotPrefix == 0 {
			r.tc.NotPrefixExample = fmt.Sprintf("%s:%d: %s", r.file, r.line, r.checked.NotPrefix)
		}
		r.tc.NotPrefix++
	}
	if _, err := r.w.Write(append(r.checked.Row, '\n')); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (tc *TemplateCheck) sortedAdaptations() []chattemplate.Adaptation {
	var as []chattemplate.Adaptation
	for a := range tc.Adaptations {
		as = append(as, a)
	}
	slices.Sort(as)
	return as
}

// writeText is the summary's line about the template check.
func (tc *TemplateCheck) writeText(b *strings.Builder) {
	if tc == nil {
		return
	}
	fmt.Fprintf(b, "chat template %s: %d rows render (%s)\n", tc.Template, tc.Rows, tc.Traits)
	for _, a := range tc.sortedAdaptations() {
		fmt.Fprintf(b, "  adapted: %s: %d rows\n", a, tc.Adaptations[a])
	}
	if tc.NotPrefix > 0 {
		fmt.Fprintf(b, "  warning: %d rows whose prompt is not a prefix of the conversation under this template (e.g. %s)\n", tc.NotPrefix, tc.NotPrefixExample)
	}
}

// writeCard is the dataset card's section about the template check.
func (tc *TemplateCheck) writeCard(b *strings.Builder) {
	if tc == nil {
		return
	}
	b.WriteString("## Chat template\n\n")
	fmt.Fprintf(b, "Every row was rendered through the chat template `%s` as transformers' `apply_chat_template` renders it "+
		"(jinja2 sandboxed, trim_blocks, lstrip_blocks, raise_exception, strftime_now, tojson keeping non-ASCII text), "+
		"and checked: it renders, with the system prompt, every trained answer unaltered, its reasoning and its tool calls. "+
		"%d rows checked. What the template does: %s.\n\n", tc.Template, tc.Rows, tc.Traits)
	if len(tc.Adaptations) > 0 {
		b.WriteString("| adaptation | rows |\n|---|---:|\n")
		for _, a := range tc.sortedAdaptations() {
			fmt.Fprintf(b, "| %s | %d |\n", a, tc.Adaptations[a])
		}
		b.WriteString("\n")
	} else {
		b.WriteString("No row needed an adaptation.\n\n")
	}
	if tc.NotPrefix > 0 {
		ex, _ := json.Marshal(tc.NotPrefixExample)
		fmt.Fprintf(b, "Warning: in %d rows the prompt rendered with the generation prompt is not a prefix of the whole conversation, "+
			"and no change to the answer makes it one: TRL's prompt/completion training and mlx-lm's `--mask-prompt` start the loss "+
			"at the wrong place there. First: %s\n\n", tc.NotPrefix, ex)
	}
}
