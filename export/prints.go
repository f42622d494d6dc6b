package export

import (
	"slices"

	"github.com/pyharness/pyharness/dedupe"
)

// recentPrints serves the dedupe index the key texts and shingles of the
// pairs of the last few runs from the fingerprints the workers made of
// them, and reads any older run again from the traces (texts). Runs come
// group by group, so the first copy of a key, or a cluster's
// representative, is nearly always among the last few: confirming a key
// then costs no rendering of the pair again on the goroutine that takes the
// runs in order.
type recentPrints struct {
	texts dedupe.Texts
	runs  []printedRun // most recent last
}

// printedRun is a run's fingerprints, by turn: those of its selected
// turns made, the others zero.
type printedRun struct {
	run int32
	fps []dedupe.Fingerprint
}

// recentRuns is how many runs' fingerprints recentPrints keeps, as
// trace.Corpus keeps that many rebuilt runs.
const recentRuns = 8

// keep remembers the fingerprints of run.
func (p *recentPrints) keep(run int32, fps []dedupe.Fingerprint) {
	if len(p.runs) >= recentRuns {
		p.runs = slices.Delete(p.runs, 0, 1)
	}
	p.runs = append(p.runs, printedRun{run: run, fps: fps})
}

// print returns the fingerprint made of ref, or nil when its run is not
// among the recent ones (or the turn was not selected).
func (p *recentPrints) print(ref dedupe.Ref) *dedupe.Fingerprint {
	for i := len(p.runs) - 1; i >= 0; i-- {
		if r := &p.runs[i]; r.run == ref.Run {
			if int(ref.Turn) < len(r.fps) && r.fps[ref.Turn].KeyText != nil {
				return &r.fps[ref.Turn]
			}
			return nil
		}
	}
	return nil
}

// KeyText appends the key text of ref.
func (p *recentPrints) KeyText(dst []byte, ref dedupe.Ref) ([]byte, error) {
	if fp := p.print(ref); fp != nil {
		return append(dst, fp.KeyText...), nil
	}
	return p.texts.KeyText(dst, ref)
}

// Shingles appends the shingles of ref's near text.
func (p *recentPrints) Shingles(dst []uint64, ref dedupe.Ref) ([]uint64, error) {
	if fp := p.print(ref); fp != nil {
		return append(dst, fp.Shingles...), nil
	}
	return p.texts.Shingles(dst, ref)
}
