package dedupe

import (
	"fmt"

	"github.com/pyharness/pyharness/classify/derivedcache"
)

// printsVersion names everything a run's fingerprints depend on: a pack
// made by a build that keys, confirms or shingles otherwise is not read
// (its runs are decoded again), never misread.
var printsVersion = fmt.Sprintf("v4 %s %s bands=%d rows=%d shingle=%d", keyVersion, confirmVersion, Bands, Rows, ShingleSize)

// Deriver is dedupe's deriver: the fingerprints of each run (runPrints,
// in appendRunPrints's form), which classify makes while it has the run
// decoded and dedupe reads instead of decoding the trace again.
func Deriver() derivedcache.Deriver {
	return derivedcache.Deriver{Name: "prints", Version: printsVersion, Derive: func(r *derivedcache.Run) []byte {
		entry, _ := PrintsOf(r)
		return entry
	}}
}

type printsKey struct{}

type madePrints struct {
	entry []byte
	f     *Fingerprinter
}

// PrintsOf returns the run's entry in dedupe's store, made once per run
// whichever deriver asks first, and the Fingerprinter that made it, until
// the derivers are done with the run: it holds the normal form of every
// text of the run, so that a fingerprint it makes of another draft to one
// of the run's prompts (export's training text, the draft in canonical
// form) normalises the draft alone.
func PrintsOf(r *derivedcache.Run) (entry []byte, f *Fingerprinter) {
	m := derivedcache.Shared(r, printsKey{}, func() (madePrints, func()) {
		entry, f, release := runPrintsEntry(r.RebuiltRun)
		return madePrints{entry, f}, release
	})
	return m.entry, m.f
}

// openPrints opens the fingerprints classify stored in a dataset.
func openPrints(dataset string) (*derivedcache.Store, error) {
	return derivedcache.Open(dataset, Deriver())
}

// readPrints is an accept function for derived.Lookup.Load: it reads an
// entry into *p, and takes it when it reads whole.
func readPrints(p **runPrints) func([]byte) bool {
	return func(b []byte) bool {
		var err error
		*p, err = readRunPrints(b)
		return err == nil
	}
}
