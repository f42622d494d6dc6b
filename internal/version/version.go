package version

import (
	"runtime/debug"
	"sync"

	"github.com/pyharness/pyharness/schemas"
)

// Version is the release of this build; set with -ldflags "-X" at release.
var Version = "0.1.0-dev"

// Commit may be set with -ldflags "-X"; otherwise it is read from the Go
// build's VCS stamp when there is one.
var Commit = ""

var info = sync.OnceValue(func() schemas.Harness {
	h := schemas.Harness{Version: Version, Commit: Commit}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if h.Commit == "" {
					h.Commit = s.Value
				}
			case "vcs.modified":
				h.Dirty = s.Value == "true"
			}
		}
	}
	if h.Commit == "" {
		h.Commit = "unknown"
	}
	return h
})

// Harness returns the version block recorded on run_start.
func Harness() schemas.Harness { return info() }
