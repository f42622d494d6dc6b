package wiretest

import (
	"errors"

	"github.com/pyharness/pyharness/harness/model"
)

// CodeOf is the Code of the *model.Error in err's chain, or "" when there
// is none: what a backend test checks a failed call against.
func CodeOf(err error) string {
	var e *model.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
