package loop

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/ollama/ollama/api"
)

// MissingError is a tool or model the loop needs and did not find; it is
// reported before any stage runs.
type MissingError struct{ Problems []string }

func (e *MissingError) Error() string {
	return "the loop cannot run:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// preflight looks for what the planned stages need: the trainer's program
// (and an F32 base for llama-finetune), an Ollama server and the base model
// in it. Everything missing is named at once.
func (o *Options) preflight(ctx context.Context, plan map[string]bool) error {
	var problems []string
	if plan[stageTrain] {
		c, err := parseTrain(o.Train)
		if err != nil {
			return err
		}
		if _, err := exec.LookPath(c.program); err != nil {
			problems = append(problems, fmt.Sprintf("no trainer: %s is not found (%v); the train command needs %s", c.program, errors.Unwrap(err), whatItNeeds(c.program)))
		}
		if c.isLlamaFinetune() {
			if o.Data == DataJSONL {
				problems = append(problems, "llama-finetune reads one plain text file (-f), not the JSONL export: give --data plain")
			}
			if err := checkF32(o.BaseFile); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	viaOllama := o.Import != importLlamaServer
	if !viaOllama && (plan[stageImport] || plan[stageBenchTrained]) {
		if p := programOf(o.Serve); p != "" {
			if _, err := exec.LookPath(p); err != nil {
				problems = append(problems, fmt.Sprintf("no server: %s is not found (%v); --serve needs llama.cpp's llama-server (its server target)", p, errors.Unwrap(err)))
			}
		}
	}
	needOllama := plan[stageBenchBase] || (viaOllama && (plan[stageImport] || plan[stageBenchTrained])) ||
		(plan[stageExport] && o.Data != DataJSONL && o.Renderer == nil)
	if needOllama {
		if o.Ollama == nil {
			problems = append(problems, "no Ollama client was given")
		} else if _, err := o.Ollama.Version(ctx); err != nil {
			problems = append(problems, fmt.Sprintf("no Ollama: no server answers at %s (%v); the loop benches the models and imports the trained one through Ollama: start `ollama serve`, or point --base-url (or OLLAMA_HOST) at a server", o.Host, err))
		} else if _, err := o.Ollama.Show(ctx, &api.ShowRequest{Model: o.Base}); err != nil {
			problems = append(problems, fmt.Sprintf("the base model %s is not in Ollama at %s (%v): `ollama pull` it, or `ollama create` it from its GGUF", o.Base, o.Host, err))
		}
	}
	if len(problems) > 0 {
		return &MissingError{Problems: problems}
	}
	return nil
}
