package dataset

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StateFile is the file in a dataset that records which runs (and which
// attempt of each) are in it, and which part files are live. Package
// classify writes it; a reader of the tables takes the live part files
// from it.
const StateFile = "classify-state.json"

// StateVersion is the layout of StateFile this build reads and writes.
const StateVersion = 1

// loadStateParts reads the live part files the state of dir lists, and
// stops there: the state is written with its runs last, and a reader of the
// tables has no use for them (a large dataset's state is megabytes of
// runs). A dataset without a state lists none.
func loadStateParts(dir string) ([]string, error) {
	path := filepath.Join(dir, StateFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read classify state: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	bad := func(err error) ([]string, error) { return nil, fmt.Errorf("read classify state %s: %w", path, err) }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return bad(cmp.Or(err, errors.New("not a JSON object")))
	}
	version := -1
	var parts []string
	for dec.More() && (version < 0 || parts == nil) {
		t, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		switch t {
		case "version":
			err = dec.Decode(&version)
		case "parts":
			err = dec.Decode(&parts)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return bad(err)
		}
	}
	if version != StateVersion {
		return bad(fmt.Errorf("version %d, this build reads %d", version, StateVersion))
	}
	return parts, nil
}
