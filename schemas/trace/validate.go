package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/pyharness/pyharness/schemas"
)

// Severity of a validation problem.
const (
	severityError   = "error"
	SeverityWarning = "warning"
)

// Problem is one thing wrong with a trace file.
type Problem struct {
	Line     int    // 0 when the problem is the file as a whole
	Severity string // error or warning
	Message  string
}

// FileReport is what validation found in one trace file.
type FileReport struct {
	Path     string
	Records  int
	Turns    int
	Complete bool // the run ended with a run_end record
	Problems []Problem
	RunID    string
	Attempt  int
}

// Errors counts the problems of error severity.
func (r *FileReport) Errors() int {
	n := 0
	for _, p := range r.Problems {
		if p.Severity == severityError {
			n++
		}
	}
	return n
}

// Validator checks trace files against the published JSON Schema (with an
// independent validator, not the code that generated it) and the run
// invariants.
type Validator struct {
	byType map[string]*jsonschema.Schema
	any    *jsonschema.Schema
}

// NewValidator compiles the embedded JSON Schema.
func NewValidator() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.JSONSchema))
	if err != nil {
		return nil, fmt.Errorf("load trace json schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemas.JSONSchemaID, doc); err != nil {
		return nil, fmt.Errorf("load trace json schema: %w", err)
	}
	v := &Validator{byType: map[string]*jsonschema.Schema{}}
	if v.any, err = c.Compile(schemas.JSONSchemaID); err != nil {
		return nil, fmt.Errorf("compile trace json schema: %w", err)
	}
	for typ, def := range map[string]string{schemas.TypeRunStart: "RunStart", schemas.TypeTurn: "Turn", schemas.TypeRunEnd: "RunEnd"} {
		s, err := c.Compile(schemas.JSONSchemaID + "#/$defs/" + def)
		if err != nil {
			return nil, fmt.Errorf("compile trace json schema %s: %w", def, err)
		}
		v.byType[typ] = s
	}
	return v, nil
}

// ValidateFile checks one trace file.
func (v *Validator) ValidateFile(path string) *FileReport {
	rep := &FileReport{Path: path}
	if id, n, ok := ParseFileName(filepath.Base(path)); ok {
		rep.RunID, rep.Attempt = id, n
	}
	f, err := os.Open(path)
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Severity: severityError, Message: err.Error()})
		return rep
	}
	defer f.Close()
	v.validate(f, rep)
	return rep
}

func (v *Validator) validate(r io.Reader, rep *FileReport) {
	add := func(line int, sev, format string, args ...any) {
		rep.Problems = append(rep.Problems, Problem{Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	var (
		started  bool
		ended    bool
		lastStep int
		foreign  = map[string]bool{}
	)
	for l := range lines(r, rep.Path, readBufferSize) {
		if l.err != nil {
			if IsWarning(l.err) {
				add(l.no, SeverityWarning, "%s", problemText(l.err))
			} else {
				add(l.no, severityError, "%s", problemText(l.err))
			}
			continue
		}
		rec, err := l.decode()
		if err != nil {
			if IsWarning(err) {
				add(l.no, SeverityWarning, "%s", problemText(err))
				continue
			}
			add(l.no, severityError, "%s", problemText(err))
			var ue *schemas.UnsupportedSchemaError
			if errors.As(err, &ue) {
				return
			}
			continue
		}
		rep.Records++
		for _, msg := range v.schemaProblems(rec.Type(), l.body) {
			add(l.no, severityError, "%s", msg)
		}
		if id := rec.RunID(); rep.RunID != "" && id != rep.RunID && !foreign[id] {
			foreign[id] = true // said once per id, not on every line
			add(l.no, severityError, "field \"run_id\": %q in the file of run %q", id, rep.RunID)
		}
		if ended {
			add(l.no, severityError, "%s record after run_end", rec.Type())
		}
		switch {
		case rec.RunStart != nil:
			if started {
				add(l.no, severityError, "a second run_start record")
			} else if rep.Records != 1 {
				add(l.no, severityError, "run_start is not the first record")
			}
			started = true
			if rep.Attempt != 0 && rec.RunStart.Attempt != rep.Attempt {
				add(l.no, severityError, "field \"attempt\": %d in the file of attempt %d", rec.RunStart.Attempt, rep.Attempt)
			}
		case rec.Turn != nil:
			rep.Turns++
			if !started {
				add(l.no, severityError, "turn before run_start")
			}
			if rec.Turn.Step != lastStep+1 {
				add(l.no, severityError, "field \"step\": %d after step %d (steps count up from 1)", rec.Turn.Step, lastStep)
			}
			lastStep = rec.Turn.Step
		case rec.RunEnd != nil:
			if !started {
				add(l.no, severityError, "run_end before run_start")
			}
			if ended {
				add(l.no, severityError, "a second run_end record")
			}
			ended = true
			if rec.RunEnd.Steps != lastStep {
				add(l.no, severityError, "field \"steps\": %d, but the trace holds %d turns", rec.RunEnd.Steps, lastStep)
			}
		}
	}
	rep.Complete = ended
	switch {
	case rep.Records == 0 && len(rep.Problems) == 0:
		// Nothing was lost: the writer stopped between creating the file
		// and its first record (a crash, a kill), as a torn line is.
		add(0, SeverityWarning, "empty trace: no records (the writer stopped before its first record)")
	case !started && rep.Records > 0:
		add(0, severityError, "no run_start record")
	case !ended && started:
		add(0, SeverityWarning, "incomplete run: no run_end record (the run was cut off, or is still going)")
	}
}

var printer = message.NewPrinter(language.English)

// schemaProblems validates one line against the definition of its record
// type and returns one message per failing leaf, naming the field.
func (v *Validator) schemaProblems(typ string, body []byte) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return []string{err.Error()}
	}
	s := v.byType[typ]
	if s == nil {
		s = v.any
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			field := strings.Join(e.InstanceLocation, ".")
			msg := "schema: " + e.ErrorKind.LocalizedString(printer)
			if field != "" {
				msg = fmt.Sprintf("field %q: %s", field, msg)
			}
			out = append(out, msg)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// problemText drops the file:line prefix of reader errors, which a report
// already shows.
func problemText(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		if pe.Field != "" {
			return fmt.Sprintf("field %q: %v", pe.Field, pe.Err)
		}
		return pe.Err.Error()
	}
	var te *tornLineError
	if errors.As(err, &te) {
		return fmt.Sprintf("torn last line (%d bytes, no newline) skipped: the writer stopped mid-record; every record before it was read", te.Bytes)
	}
	return err.Error()
}
