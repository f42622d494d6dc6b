package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// WriteRecords copies the records of a run's trace file as they are, one
// JSON document a line, fields this build does not know included. Lines
// that are not JSON (a torn last line, a corrupt one) are left out; Load
// names them.
func WriteRecords(w io.Writer, r *Run) error {
	f, err := os.Open(r.File.Path)
	if err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		body := bytes.TrimSpace(line)
		if len(body) > 0 && json.Valid(body) {
			if _, werr := w.Write(append(body, '\n')); werr != nil {
				return fmt.Errorf("write records: %w", werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("write records: %w", err)
		}
	}
}
