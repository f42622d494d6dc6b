package export

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/internal/binfmt"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// runFacts is what export's first pass reads of a run, which classify
// stores while it has the run decoded (FactsWriter) so that export need not
// decode it again: the fields of run_start and run_end the run filters and
// the summary read, the run's secret values, and, for a run the default
// run filters take, each turn's facts and the fingerprint of its training
// text.
type runFacts struct {
	// start and end hold those fields only; end is nil for a run without
	// a run_end.
	start   *schemas.RunStart
	end     *schemas.RunEnd
	secrets []string
	turns   int
	// turnFacts is nil for a run the default run filters leave out: an
	// export that takes it (--include-failed-runs, --include-scripted)
	// decodes it.
	turnFacts []turnFacts
}

// turnFacts is what selecting a turn as an SFT pair reads of it.
type turnFacts struct {
	time  int64 // trace.RebuiltRun.Time
	facts turnFact
	kind  schemas.Kind
	// print is the fingerprint of the turn's training text under the
	// default options (MakeConfirmed: its KeyText the SHA-256), for a turn
	// that has every fact but perhaps its kind; zero otherwise.
	print dedupe.Fingerprint
}

// turnFact is a fact about a turn that turnWhy reads, as a bit.
type turnFact uint8

const (
	factModelStep turnFact = 1 << iota
	factRebuilt
	factParsed
	factAccepted
	factAlternates
	factCanonical

	// factsOfPair are the facts of a turn every SFT export of the default
	// options takes (its kind aside).
	factsOfPair = factModelStep | factRebuilt | factParsed | factAccepted | factAlternates | factCanonical
)

// factsOf finds the facts of turn i of run. The canonical form is looked
// for (a parse, the costly one) only when canonical is set and every other
// fact holds: turnWhy asks for it last.
func factsOf(r *trace.RebuiltRun, i int, p *parsedDraft, canonical bool) turnFact {
	t := r.Turns[i]
	var f turnFact
	set := func(bit turnFact, ok bool) {
		if ok {
			f |= bit
		}
	}
	set(factModelStep, t.ModelStep)
	set(factRebuilt, r.Prompts[i] != nil)
	set(factParsed, parsed(t))
	set(factAccepted, accepted(t))
	set(factAlternates, r.Prompts[i] != nil && alternates(r.Prompts[i]))
	if canonical && f == factsOfPair&^factCanonical {
		set(factCanonical, hasCanonical(t, p))
	}
	return f
}

// trainingPrint is the fingerprint of turn i's training text under the
// renderer's options, with the parse p holds or makes.
func trainingPrint(f *dedupe.Fingerprinter, rd *renderer, r *trace.RebuiltRun, i int, p *parsedDraft, confirmed bool) dedupe.Fingerprint {
	prompt, reply, _ := trainingText(rd, r, i, p)
	if confirmed {
		return f.MakeConfirmed(prompt, reply)
	}
	return f.Make(prompt, reply)
}

// trainingText is turn i's training text under the renderer's options,
// with the parse p holds or makes. asPair reports whether it is the turn's
// pair text (dedupe's), as it is for a draft trained as written in the
// text protocol: its fingerprint is then the pair's, made already.
func trainingText(rd *renderer, r *trace.RebuiltRun, i int, p *parsedDraft) (prompt []schemas.Message, reply schemas.Reply, asPair bool) {
	t := r.Turns[i]
	prompt, reply = rd.trainingOf(r.Prompts[i], t.Reply, rd.trainedReplyOf(t, p))
	asPair = reply.Content == t.Reply.Content && len(reply.ToolCalls)+len(t.Reply.ToolCalls) == 0 &&
		len(prompt) == len(r.Prompts[i]) && (len(prompt) == 0 || &prompt[0] == &r.Prompts[i][0])
	return prompt, reply, asPair
}

// factsVersion names everything an entry depends on: this layout, and
// dedupe's keying, shingling and banding, by the fingerprint of a fixed
// pair. A pack of another version is not read; its runs are decoded. A
// change to what export selects or redacts (turnWhy's facts, secretsOf)
// must change the version.
var factsVersion = sync.OnceValue(func() string {
	var f dedupe.Fingerprinter
	fp := f.MakeConfirmed([]schemas.Message{{Role: "user", Content: "Fix the failing test in calc.py: add(2, 3) returns 6."}},
		schemas.Reply{Content: "PATCH calc.py\nFIND:\n```python\n    return a * b\n```\nREPLACE:\n```python\n    return a + b\n```"})
	h := xxhash.New()
	h.Write(fp.KeyText)
	for _, b := range fp.Bands {
		h.Write(binary.LittleEndian.AppendUint32(nil, b))
	}
	for _, s := range fp.Shingles {
		h.Write(binary.LittleEndian.AppendUint64(nil, s))
	}
	return fmt.Sprintf("v2 key=%016x print=%016x", fp.Key, h.Sum64())
})

// Deriver is export's deriver: the facts its first pass reads of each run
// (encodeRunFacts), which classify makes while it has the run decoded and
// export --dataset reads instead of decoding the trace again.
func Deriver() derivedcache.Deriver {
	return derivedcache.Deriver{Name: "facts", Version: factsVersion(), Derive: func(r *derivedcache.Run) []byte {
		prints, f := dedupe.PrintsOf(r)
		return encodeRunFacts(r.RebuiltRun, prints, f)
	}}
}

// openFacts opens the facts classify stored in a dataset. A dataset
// without them is an empty store, and a pack that is not whole is left
// out: every run they do not vouch for is decoded from its trace, which
// gives the same export.
func openFacts(dataset string) (*derivedcache.Store, error) {
	return derivedcache.Open(dataset, Deriver())
}

// encodeRunFacts returns export's entry of run (Deriver), whose prompts
// are rebuilt (trace.Rebuild). prints, when not nil, is the run's entry in
// dedupe's store and f the Fingerprinter that made it (dedupe.PrintsOf):
// the entry's fingerprints are copied for the turns whose training text
// is their pair text, and f, which has normalised every message of the
// run, fingerprints the others. A nil f is a Fingerprinter of the run's
// own.
func encodeRunFacts(run *trace.RebuiltRun, prints []byte, f *dedupe.Fingerprinter) []byte {
	bp := factsBuffers.Get().(*[]byte)
	b := appendRunFacts((*bp)[:0], run, prints, f)
	entry := bytes.Clone(b)
	*bp = b
	factsBuffers.Put(bp)
	return entry
}

// factsBuffers keep encodeRunFacts's buffers from one run to the next: an
// entry is laid out in one and copied out once, at its size. Grown from a
// byte, an entry was copied as often as it doubled; made with room for
// dedupe's whole entry (every pair's fingerprint), it took about twice the
// bytes it used.
var factsBuffers = sync.Pool{New: func() any { return new([]byte) }}

// appendRunFacts appends run's entry (encodeRunFacts) to b.
func appendRunFacts(b []byte, run *trace.RebuiltRun, prints []byte, f *dedupe.Fingerprinter) []byte {
	withTurns := DefaultOptions().runWhy(run.Start, run.End, false) == ""
	s := run.Start
	head := byte(0)
	if run.End != nil {
		head |= 1
	}
	if withTurns {
		head |= 2
	}
	b = append(b, head)
	if run.End != nil {
		b = binfmt.AppendString(b, string(run.End.Verdict))
	}
	for _, v := range []string{s.Source, s.CaseID, s.Model.Backend, s.Model.Name, s.Repo.Path} {
		b = binfmt.AppendString(b, v)
	}
	b = binary.AppendVarint(b, int64(s.Tier))
	b = binary.AppendUvarint(b, uint64(len(s.Tags)))
	for _, t := range s.Tags {
		b = binfmt.AppendString(b, t)
	}
	secrets := secretsOf(run)
	b = binary.AppendUvarint(b, uint64(len(secrets)))
	for _, v := range secrets {
		b = binfmt.AppendString(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(run.Turns)))
	if !withTurns {
		return b
	}
	rd := newRenderer(DefaultOptions(), nil)
	if f == nil {
		f = new(dedupe.Fingerprinter)
	}
	var pairs [][]byte
	if prints != nil {
		// An entry that does not read is made again below, turn by turn.
		if ps, err := dedupe.PairPrintBytes(prints); err == nil && len(ps) == len(run.Turns) {
			pairs = ps
		}
	}
	for i, t := range run.Turns {
		var p parsedDraft
		facts := factsOf(run, i, &p, true)
		b = binary.AppendVarint(b, run.Time(i))
		b = append(b, byte(facts))
		b = binfmt.AppendString(b, string(turnlabel.Of(t).Kind))
		if facts != factsOfPair {
			continue
		}
		prompt, reply, asPair := trainingText(rd, run, i, &p)
		if asPair && pairs != nil && pairs[i] != nil {
			b = append(b, pairs[i]...)
			continue
		}
		fp := f.MakeConfirmed(prompt, reply)
		b = dedupe.AppendFingerprint(b, &fp)
	}
	return b
}

var errShortFacts = errors.New("cut short")

// readRunFacts reads what encodeRunFacts wrote. It checks every length
// against the bytes there are, so that a damaged entry is an error, never
// a wrong fact taken for a right one (the store checks a checksum first).
func readRunFacts(b []byte) (*runFacts, error) {
	r := binfmt.NewReader(b)
	head := r.Byte()
	if head > 3 {
		return nil, fmt.Errorf("export facts: run head %d", head)
	}
	rf := &runFacts{start: &schemas.RunStart{}}
	if head&1 != 0 {
		rf.end = &schemas.RunEnd{Verdict: schemas.Verdict(r.Text())}
	}
	s := rf.start
	for _, v := range []*string{&s.Source, &s.CaseID, &s.Model.Backend, &s.Model.Name, &s.Repo.Path} {
		*v = r.Text()
	}
	s.Tier = int(r.Varint())
	tags := r.Uvarint()
	if tags > uint64(r.Len()) {
		return nil, fmt.Errorf("export facts: tags: %w", errShortFacts)
	}
	for range tags {
		s.Tags = append(s.Tags, r.Text())
	}
	secrets := r.Uvarint()
	if secrets > uint64(r.Len()) {
		return nil, fmt.Errorf("export facts: secret values: %w", errShortFacts)
	}
	for range secrets {
		rf.secrets = append(rf.secrets, r.Text())
	}
	turns := r.Uvarint()
	if turns > uint64(len(b)) {
		return nil, fmt.Errorf("export facts: turns: %w", errShortFacts)
	}
	rf.turns = int(turns)
	if head&2 != 0 {
		rf.turnFacts = make([]turnFacts, turns)
		for i := range rf.turnFacts {
			t := &rf.turnFacts[i]
			t.time = r.Varint()
			t.facts = turnFact(r.Byte())
			t.kind = schemas.Kind(r.Text())
			if t.facts&^factsOfPair != 0 {
				return nil, fmt.Errorf("export facts: turn %d: facts %#x", i, t.facts)
			}
			if t.facts != factsOfPair {
				continue
			}
			var err error
			if t.print, err = dedupe.ReadFingerprint(r); err != nil {
				return nil, fmt.Errorf("export facts: turn %d: %w", i, err)
			}
		}
	}
	if r.Short() {
		return nil, fmt.Errorf("export facts: %w", errShortFacts)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("export facts: %d bytes after the last turn", r.Len())
	}
	return rf, nil
}

// whyOf is turnWhy of a turn's facts; kindWanted says whether its kind is
// in --kind.
func (o Options) whyOf(f turnFact, kindWanted bool) string {
	switch {
	case f&factModelStep == 0:
		return whyNoModel
	case f&factRebuilt == 0:
		return whyNotRebuilt
	case !kindWanted:
		return whyKind
	case f&factParsed == 0:
		return whyNotParsed
	case f&factAccepted == 0:
		return whyNotApplied
	case f&factAlternates == 0:
		return whyAlternation
	case !o.AsWritten && f&factCanonical == 0:
		return whyNoCanonical
	}
	return ""
}

// kindIn reports whether a stored kind is in --kind, as kindWanted does
// for a decoded turn.
func (o Options) kindIn(k schemas.Kind) bool {
	return len(o.Kinds) == 0 || slices.Contains(o.Kinds, string(k))
}
