package schemas

import (
	"errors"
	"testing"
)

// TestCheckSchema: a reader of this build takes the schema it writes and
// turns away another major version or another format's name.
func TestCheckSchema(t *testing.T) {
	if err := CheckSchema(Schema); err != nil {
		t.Errorf("CheckSchema(%q) = %v, want nil: the schema this build writes", Schema, err)
	}
	for _, s := range []string{"", "pyharness.trace/v9", "pyharness.trace/v0", "pyharness.trace/1", "pyharness.trace/vx", "other.trace/v1"} {
		err := CheckSchema(s)
		var ue *UnsupportedSchemaError
		if !errors.As(err, &ue) || ue.Got != s {
			t.Errorf("CheckSchema(%q) = %v, want an *UnsupportedSchemaError for %q", s, err, s)
		}
	}
}
