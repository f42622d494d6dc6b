package classify

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pyharness/pyharness/classify/dataset"
)

// state is the contents of dataset.StateFile: which runs (and which
// attempt of each) are in the dataset, and which part files are live, so
// that a second classify of a directory that gained runs classifies only
// the new ones.
type state struct {
	Version int `json:"version"`
	// Batch is the number of the last classify that committed.
	Batch int `json:"batch"`
	// Traces are the trace directories classified into the dataset.
	Traces []string `json:"traces"`
	// Partitions are the partition directories; runs refer to them by index.
	Partitions []string `json:"partitions"`
	// Parts are the live part files, relative to the dataset. A part file
	// not listed is the leftover of a classify that did not commit.
	Parts []string `json:"parts"`
	// Runs maps a run id to what was classified of it.
	Runs map[string]runState `json:"runs"`
}

// runState is what a dataset holds of one run.
type runState struct {
	// Size is the trace file's size when classified.
	Size    int64 `json:"s"`
	Attempt int32 `json:"a"`
	// Batch and Part say which part files hold the run's rows: those of the
	// batch in the partition Partitions[Part].
	Batch int32 `json:"b"`
	Part  int32 `json:"p"`
	// Complete is true when the run had its run_end when classified; an
	// incomplete run is classified again when its file grows.
	Complete bool `json:"c,omitempty"`
}

func newState() *state {
	return &state{Version: dataset.StateVersion, Traces: []string{}, Partitions: []string{}, Parts: []string{}, Runs: map[string]runState{}}
}

func loadState(dir string) (*state, error) {
	b, err := os.ReadFile(filepath.Join(dir, dataset.StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read classify state: %w", err)
	}
	st := newState()
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("read classify state %s: %w", filepath.Join(dir, dataset.StateFile), err)
	}
	if st.Version != dataset.StateVersion {
		return nil, fmt.Errorf("read classify state %s: version %d, this build reads %d", filepath.Join(dir, dataset.StateFile), st.Version, dataset.StateVersion)
	}
	if st.Runs == nil {
		st.Runs = map[string]runState{}
	}
	return st, nil
}

// save writes the state through a temporary file and a rename, so that a
// crash leaves the old state or the new one, never half of either. It
// writes the runs one at a time, in run id order, so that saving the state
// of a large dataset does not hold its whole text in memory.
func (st *state) save(dir string) error {
	slices.Sort(st.Parts)
	tmp := filepath.Join(dir, dataset.StateFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write classify state: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if err := st.encode(w); err != nil {
		f.Close()
		return fmt.Errorf("write classify state %s: %w", tmp, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write classify state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write classify state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write classify state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, dataset.StateFile)); err != nil {
		return fmt.Errorf("write classify state: %w", err)
	}
	return syncDir(dir)
}

// encode writes the state as the JSON document json.Marshal would write
// (the runs in run id order), one run at a time.
func (st *state) encode(w *bufio.Writer) error {
	head, err := json.Marshal(struct {
		Version    int      `json:"version"`
		Batch      int      `json:"batch"`
		Traces     []string `json:"traces"`
		Partitions []string `json:"partitions"`
		Parts      []string `json:"parts"`
	}{st.Version, st.Batch, st.Traces, st.Partitions, st.Parts})
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1]) // without its closing brace
	w.WriteString(`,"runs":{`)
	ids := make([]string, 0, len(st.Runs))
	for id := range st.Runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if i > 0 {
			w.WriteByte(',')
		}
		k, err := json.Marshal(id)
		if err != nil {
			return err
		}
		v, err := json.Marshal(st.Runs[id])
		if err != nil {
			return err
		}
		w.Write(k)
		w.WriteByte(':')
		w.Write(v)
	}
	_, err = w.WriteString("}}\n")
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // not every system lets a directory be opened; the rename stands
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

// partition returns the index of a partition directory, adding it.
func (st *state) partition(dir string) int {
	if i := slices.Index(st.Partitions, dir); i >= 0 {
		return i
	}
	st.Partitions = append(st.Partitions, dir)
	return len(st.Partitions) - 1
}
