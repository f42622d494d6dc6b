package schemas

import (
	"errors"
	"testing"
)

// One validator for a case, a manifest entry and a run: each malformed
// field is named, and a well-formed spec passes whatever it leaves out.
func TestTaskSpecValidate(t *testing.T) {
	tests := []struct {
		name  string
		spec  TaskSpec
		field string // "" when valid
	}{
		{name: "empty", spec: TaskSpec{}},
		{name: "everything", spec: TaskSpec{Task: "t", Targets: []string{"a.py", "src/b.py"}, Names: []string{"thing", "_x2"}, Subject: "thing", Scope: []string{"**", "src/**", "*.py", "{a,b}/*.py", "[ab].py"}, Suite: "{python} -m unittest"}},
		{name: "target climbs out", spec: TaskSpec{Targets: []string{"../a.py"}}, field: "targets"},
		{name: "absolute target", spec: TaskSpec{Targets: []string{"/a.py"}}, field: "targets"},
		{name: "dot target", spec: TaskSpec{Targets: []string{"./a.py"}}, field: "targets"},
		{name: "backslash target", spec: TaskSpec{Targets: []string{`src\a.py`}}, field: "targets"},
		{name: "root target", spec: TaskSpec{Targets: []string{"."}}, field: "targets"},
		{name: "call as a name", spec: TaskSpec{Names: []string{"thing()"}}, field: "names"},
		{name: "dotted name", spec: TaskSpec{Names: []string{"a.b"}}, field: "names"},
		{name: "empty glob", spec: TaskSpec{Scope: []string{""}}, field: "scope"},
		{name: "open class", spec: TaskSpec{Scope: []string{"src/["}}, field: "scope"},
		// path.Match takes an unclosed brace as a letter; the harness's
		// matcher (doublestar) cannot, so no reader may take it.
		{name: "open brace", spec: TaskSpec{Scope: []string{"src/{a"}}, field: "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			var se *TaskSpecError
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.field != "" && !errors.As(err, &se):
				t.Fatalf("Validate() = %v, want a *TaskSpecError on %s", err, tt.field)
			case tt.field != "" && se.Field != tt.field:
				t.Fatalf("Validate() names field %s (%v), want %s", se.Field, err, tt.field)
			}
		})
	}
}
