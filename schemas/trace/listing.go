package trace

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// listing is the trace files of a folder, held compactly: the folder once
// and the file names end to end in one string, so that the listing of a
// million runs costs a few megabytes, where a []File of it costs tens.
type listing struct {
	dir   string
	names string
	ends  []uint32 // end of each name in names
}

// list lists every trace file of a directory (see Dir), every attempt
// included, sorted by run id then attempt.
func list(dir string) (*listing, error) {
	tdir := Dir(dir)
	d, err := os.Open(tdir)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	defer d.Close()
	var names strings.Builder
	var ends []uint32
	// A thousand entries at a time: a folder of a million runs is not held
	// as directory entries on top of the listing.
	for {
		entries, err := d.ReadDir(1024)
		for _, e := range entries {
			if _, _, ok := ParseFileName(e.Name()); !ok || e.IsDir() {
				continue
			}
			names.WriteString(e.Name())
			if names.Len() > math.MaxUint32 {
				return nil, fmt.Errorf("list traces: the names of the files in %s are too long to list", tdir)
			}
			ends = append(ends, uint32(names.Len()))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list traces: %w", err)
		}
	}
	l := &listing{dir: tdir, names: names.String(), ends: ends}
	type key struct {
		id      string
		attempt int
	}
	keys := make([]key, l.Len())
	order := make([]int32, l.Len())
	for i := range keys {
		id, n, _ := ParseFileName(l.Name(i))
		keys[i], order[i] = key{id, n}, int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(strings.Compare(keys[a].id, keys[b].id), cmp.Compare(keys[a].attempt, keys[b].attempt))
	})
	return l.Select(order), nil
}

// Len is the number of files.
func (l *listing) Len() int { return len(l.ends) }

// Name is the name of file i.
func (l *listing) Name(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.names[start:l.ends[i]]
}

// File returns file i.
func (l *listing) File(i int) File {
	name := l.Name(i)
	id, n, _ := ParseFileName(name)
	return File{RunID: id, Attempt: n, Path: filepath.Join(l.dir, name)}
}

// Select returns the listing of the files order names, in that order.
func (l *listing) Select(order []int32) *listing {
	size := 0
	for _, i := range order {
		size += len(l.Name(int(i)))
	}
	var names strings.Builder
	names.Grow(size)
	out := &listing{dir: l.dir, ends: make([]uint32, len(order))}
	for k, i := range order {
		names.WriteString(l.Name(int(i)))
		out.ends[k] = uint32(names.Len())
	}
	out.names = names.String()
	return out
}

// Latest returns the listing of the last attempt of each run id, and how
// many earlier attempts it set aside. l must be sorted as List sorts.
func (l *listing) Latest() (*listing, int) {
	keep := make([]int32, 0, l.Len())
	for i := range l.lastAttempts() {
		keep = append(keep, int32(i))
	}
	return l.Select(keep), l.Len() - len(keep)
}

// Files returns every file as a []File.
func (l *listing) files() []File {
	out := make([]File, l.Len())
	for i := range out {
		out[i] = l.File(i)
	}
	return out
}
