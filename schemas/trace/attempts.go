package trace

import (
	"context"
	"fmt"
	"iter"
	"runtime"

	"github.com/pyharness/pyharness/internal/ordered"
)

// LastAttempt is the last attempt of one run: the file every reader of a
// trace directory takes for the run, and how many earlier attempts of it
// (a run retried after a crash or a cancel) were set aside.
type LastAttempt struct {
	File
	SetAside int
}

// LastAttempts streams the last attempt of every run of a trace directory
// (see Dir), in run id order. A listing error, or the context's, is
// yielded once and ends the stream. The directory is listed once, compactly
// (see listing), so a million runs cost a few megabytes.
func LastAttempts(ctx context.Context, dir string) iter.Seq2[LastAttempt, error] {
	return func(yield func(LastAttempt, error) bool) {
		all, err := list(dir)
		if err != nil {
			yield(LastAttempt{}, err)
			return
		}
		for i, aside := range all.lastAttempts() {
			if err := ctx.Err(); err != nil {
				yield(LastAttempt{}, fmt.Errorf("list traces: %w", err))
				return
			}
			if !yield(LastAttempt{File: all.File(i), SetAside: aside}, nil) {
				return
			}
		}
	}
}

// lastAttempts yields the index of the last attempt of each run of a
// listing sorted as List sorts, with how many earlier attempts it follows:
// the one rule for "the last attempt", used by LastAttempts and Latest.
func (l *listing) lastAttempts() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		first := 0 // the first file of the current run
		for i := range l.Len() {
			id, _, _ := ParseFileName(l.Name(i))
			if i+1 < l.Len() {
				if next, _, _ := ParseFileName(l.Name(i + 1)); next == id {
					continue
				}
			}
			if !yield(i, i-first) {
				return
			}
			first = i + 1
		}
	}
}

// Runs streams the last attempt of every run in a trace directory, read
// whole, each with how many earlier attempts were set aside. A run whose
// file has errors is yielded with them and the stream goes on; a listing
// error, or the context's, comes with a nil run and ends it. The runs are
// read ahead on every core and yielded in run id order: reading and
// decoding is most of what a pass over the runs costs (stats on a trace
// directory read them on one core).
func Runs(ctx context.Context, dir string) iter.Seq2[*Run, error] {
	return func(yield func(*Run, error) bool) {
		all, err := list(dir)
		if err != nil {
			yield(nil, err)
			return
		}
		type job struct{ file, setAside int32 }
		var jobs []job // 8 bytes a run: the listing holds the names
		for i, aside := range all.lastAttempts() {
			jobs = append(jobs, job{int32(i), int32(aside)})
		}
		type read struct {
			run *Run
			err error
		}
		readRun := func(j job) read {
			if ctx.Err() != nil {
				return read{}
			}
			run, err := ReadRun(all.File(int(j.file)))
			run.SetAside = int(j.setAside)
			return read{run, err}
		}
		for _, r := range ordered.Map(jobs, runtime.GOMAXPROCS(0), readRun) {
			if err := ctx.Err(); err != nil {
				yield(nil, fmt.Errorf("list traces: %w", err))
				return
			}
			if !yield(r.run, r.err) {
				return
			}
		}
	}
}
