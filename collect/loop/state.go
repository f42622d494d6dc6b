package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// stateFile is the loop's record of its stages, in its output directory.
const stateFile = "loop.json"

// Stage status values.
const (
	stageRunning = "running"
	stageDone    = "done"
	failed       = "failed"
)

// StageState is what the state file says of one stage.
type StageState struct {
	Status  string    `json:"status"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// Seconds is the stage's wall time.
	Seconds float64 `json:"seconds,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Notes say what the stage did that a user should know (what the
	// import changed in the model file, the model it created).
	Notes []string `json:"notes,omitempty"`
	// Served says, for the import, how the student is served: an Ollama
	// model (FROM the base with an ADAPTER, or a whole model) or a
	// llama-server started with --lora. The table prints it.
	Served string `json:"served,omitempty"`
}

// State is the whole state file.
type State struct {
	// Inputs are the options that decide the stages' outputs; a loop run
	// again on the same directory with other inputs is refused.
	Inputs map[string]string      `json:"inputs"`
	Stages map[string]*StageState `json:"stages"`
}

func readState(dir string) (*State, error) {
	path := filepath.Join(dir, stateFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &State{Stages: map[string]*StageState{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read loop state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read loop state %s: %w", path, err)
	}
	if s.Stages == nil {
		s.Stages = map[string]*StageState{}
	}
	return &s, nil
}

// write replaces the state file whole (a rename), so that a kill leaves
// the old state or the new one, never half of one.
func (s *State) write(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write loop state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, stateFile)); err != nil {
		return fmt.Errorf("write loop state: %w", err)
	}
	return nil
}
