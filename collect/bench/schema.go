package bench

import (
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
)

// generateReportSchema reflects the Report type into its JSON Schema.
func generateReportSchema() ([]byte, error) {
	r := &jsonschema.Reflector{}
	s := r.Reflect(&Report{})
	s.ID = "https://pyharness.dev/schemas/bench-report.schema.json"
	s.Title = "pyharness bench --json"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("generate report schema: %w", err)
	}
	return append(b, '\n'), nil
}
