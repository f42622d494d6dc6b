package schemas

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
)

// JSONSchemaID is the $id of the published JSON Schema.
const JSONSchemaID = "https://pyharness.dev/schemas/trace.v1.schema.json"

// JSONSchema is the published JSON Schema of one trace line,
// trace.v1.schema.json, as embedded in the binary.
//
//go:embed trace.v1.schema.json
var JSONSchema []byte

// generateJSONSchema reflects the record types into the JSON Schema of one
// trace line: one of run_start, turn or run_end. Unknown properties are
// allowed, since readers of a major version accept every minor.
func generateJSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{AllowAdditionalProperties: true}
	root := &jsonschema.Schema{
		Version:     jsonschema.Version,
		ID:          JSONSchemaID,
		Title:       Schema,
		Description: "One line of a pyharness trace file (JSON Lines, one file per attempt of a run).",
		Definitions: jsonschema.Definitions{},
	}
	for _, v := range []any{&RunStart{}, &Turn{}, &RunEnd{}} {
		s := r.Reflect(v)
		for name, def := range s.Definitions {
			if old, ok := root.Definitions[name]; ok && old != def {
				a, _ := json.Marshal(old)
				b, _ := json.Marshal(def)
				if string(a) != string(b) {
					return nil, fmt.Errorf("generate json schema: two definitions named %s", name)
				}
			}
			root.Definitions[name] = def
		}
		root.OneOf = append(root.OneOf, &jsonschema.Schema{Ref: s.Ref})
	}
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("generate json schema: %w", err)
	}
	return append(b, '\n'), nil
}
