package derivedcache

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Open opens d's entries in dataset: every pack of d's name that is whole
// and of d's version. A dataset without any is an empty store.
func Open(dataset string, d Deriver) (*Store, error) {
	names, err := filepath.Glob(filepath.Join(dir(dataset), d.Name+"-*.bin"))
	if err == nil {
		var s *Store
		if s, err = openPacks(names, formatOf(d)); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("open %s entries: %w", d.Name, err)
}

// ErrRegroup says that a run was ordered by the group its entries were
// stored with, which its trace no longer has.
var ErrRegroup = errors.New("a run's group changed since classify")

// Regroup runs pass with a Lookup of s whose Groups order the runs by the
// groups s holds, and, when pass returns ErrRegroup, once more with every
// group read from its trace; regrouped says it did. A nil or empty s
// gives one pass that decodes every run.
func Regroup[T any](s *Store, pass func(Lookup) (T, error)) (res T, regrouped bool, err error) {
	if s.Len() == 0 {
		res, err = pass(Lookup{})
		return res, false, err
	}
	res, err = pass(Lookup{store: s, byGroup: true})
	if !errors.Is(err, ErrRegroup) {
		return res, false, err
	}
	res, err = pass(Lookup{store: s})
	return res, true, err
}

// Lookup finds runs' entries in a store for one pass over a corpus. The
// zero Lookup has no store: it decodes every run.
type Lookup struct {
	store *Store
	// byGroup says the pass orders its runs by the groups store holds.
	byGroup bool
}

// Stored reports whether l has entries to serve runs from; without, Load
// decodes every run.
func (l Lookup) Stored() bool { return l.store != nil }

// Groups is what the pass's corpus takes its runs' groups from
// (trace.OpenCorpus): the store's, or nil when every group is read from
// its trace.
func (l Lookup) Groups() func(trace.File) (string, bool) {
	if !l.byGroup {
		return nil
	}
	return l.store.storedGroup
}

// Found is what Load found of a run: an entry, or the run decoded.
type Found struct {
	// Entry is the stored entry accept took; nil when the run was decoded.
	Entry []byte
	// Unread says Entry was found by the trace's stamp, the trace not
	// read.
	Unread bool
	// Run is the run decoded when no entry served, as trace.ReadRun gives
	// it, and Err the problems of its file.
	Run *trace.Run
	Err error
}

// Load finds run f's entry, the first that accept takes of those made of
// the trace as it is now: by the trace's stamp, without reading it, else
// by the size and hash of its bytes. Failing that, it decodes the run,
// from the bytes read when they were. accept may keep what it decoded of
// the entry; it runs only on entries whose checksum holds.
//
// A run the pass ordered by the group the store holds for it (Groups)
// whose trace no longer has that group gives ErrRegroup. Load is safe on
// several goroutines at once.
func (l Lookup) Load(f trace.File, accept func(entry []byte) bool) (Found, error) {
	s := l.store
	var data []byte
	if s.has(f) {
		if stamp, err := wholefile.StatStamp(f.Path); err == nil {
			for e := range s.entriesByStamp(f, stamp) {
				if accept(e) {
					return Found{Entry: e, Unread: true}, nil
				}
			}
		}
		// A file that cannot be read is read again below, which says why.
		var done func()
		data, _, done, _ = wholefile.Read(f.Path)
		defer done()
		for e := range s.entries(f, data) {
			if accept(e) {
				return Found{Entry: e}, nil
			}
		}
	}
	var run *trace.Run
	var err error
	if data != nil {
		run, err = trace.ReadRunBytes(f, data)
	} else {
		run, err = trace.ReadRun(f)
	}
	if l.byGroup {
		if g, ok := s.storedGroup(f); ok && g != trace.GroupOf(run.Start) {
			return Found{}, ErrRegroup
		}
	}
	return Found{Run: run, Err: err}, nil
}
