package bench

import (
	"bytes"
	"fmt"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
)

// CaseScript plays a benchmark case's own scripted drafts, the variant of
// the (case, pass) chosen by Variant, as --model scripted and the demo do.
func CaseScript(c datasets.Case, pass int, opts schemas.Options) (harness.Chatter, schemas.Model, error) {
	variant := Variant(c.ID, pass, c.Scripts())
	raw, err := c.Script(variant)
	if err != nil {
		return nil, schemas.Model{}, fmt.Errorf("script %s of %s: %w", variant, c.ID, err)
	}
	m, err := scripted.NewFromReader(bytes.NewReader(raw), c.Dir+"/scripts/"+variant+".jsonl")
	if err != nil {
		return nil, schemas.Model{}, err
	}
	return m, schemas.Model{Backend: schemas.BackendScripted, Name: c.ID + "/" + variant, Options: opts}, nil
}
