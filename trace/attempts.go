package trace

import (
	"context"
	"fmt"
	"iter"
)

// LastAttempt is the last attempt of one run: the file every reader of a
// trace directory takes for the run, and how many earlier attempts of it
// (a run retried after a crash or a cancel) were set aside.
type LastAttempt struct {
	File
	SetAside int
}

// LastAttempts streams the last attempt of every run of a trace directory
// (see TraceDir), in run id order. A listing error, or the context's, is
// yielded once and ends the stream. The directory is listed once, compactly
// (see Listing), so a million runs cost a few megabytes.
func LastAttempts(ctx context.Context, dir string) iter.Seq2[LastAttempt, error] {
	return func(yield func(LastAttempt, error) bool) {
		all, err := List(dir)
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
func (l *Listing) lastAttempts() iter.Seq2[int, int] {
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
// error, or the context's, comes with a nil run and ends it.
func Runs(ctx context.Context, dir string) iter.Seq2[*Run, error] {
	return func(yield func(*Run, error) bool) {
		for la, err := range LastAttempts(ctx, dir) {
			if err != nil {
				yield(nil, err)
				return
			}
			run, err := ReadRun(la.File)
			run.SetAside = la.SetAside
			if !yield(run, err) {
				return
			}
		}
	}
}
