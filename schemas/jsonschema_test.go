package schemas

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite trace.v1.schema.json from the Go types")

// The published schema is the one the Go types generate: a field added to a
// type without regenerating the file fails here.
func TestJSONSchemaMatchesGoTypes(t *testing.T) {
	got, err := generateJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("trace.v1.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, JSONSchema) {
		t.Fatal("schemas/trace.v1.schema.json is out of date with the Go types: run go test ./schemas -run TestJSONSchemaMatchesGoTypes -update")
	}
}
