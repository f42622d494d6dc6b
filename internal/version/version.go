package version

import (
	"runtime/debug"
	"sync"
)

// Version is the release of this build; set with -ldflags "-X" at release.
var Version = "0.1.0-dev"

// Commit may be set with -ldflags "-X"; otherwise it is read from the Go
// build's VCS stamp when there is one.
var Commit = ""

// Build is a build of pyharness: its release, its commit, and whether the
// tree it was built from held changes not committed. It has the fields of
// schemas.Harness, the block run_start records it as, and converts to it.
type Build struct {
	Version string
	Commit  string
	Dirty   bool
}

var info = sync.OnceValue(func() Build {
	h := Build{Version: Version, Commit: Commit}
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

// Harness returns the build that is running.
func Harness() Build { return info() }
