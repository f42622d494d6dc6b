package export

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/runpack"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
	"github.com/pyharness/pyharness/turnlabel"
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

// factsDir is where classify keeps the facts, beside dedupe's
// fingerprints: one pack file per classify, as those.
const factsDir = "fingerprints"

// factsFormat names everything an entry depends on: this layout (v2: the
// index holds each trace's stamp, runpack.Source), and
// dedupe's keying, shingling and banding, by the fingerprint of a fixed
// pair. A pack of another build is not read; its runs are decoded. A
// change to what export selects or redacts (turnWhy's facts, secretsOf)
// must change the version.
var factsFormat = sync.OnceValue(func() runpack.Format {
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
	return runpack.Format{
		Header:  fmt.Sprintf("pyharness.export.facts/v2 key=%016x print=%016x\n", fp.Key, h.Sum64()),
		Trailer: "FACTS1\n",
	}
})

// FactsWriter writes the facts of the runs one classify reads
// (EncodeRunFacts), each keyed by its trace file's size and content hash,
// to DATASET/fingerprints/facts-NNNNNN.bin. export --dataset reads them.
type FactsWriter struct{ w *runpack.Writer }

// NewFactsWriter starts the facts file of classify batch n in the dataset
// dir, and removes what an earlier classify that did not commit left.
func NewFactsWriter(dataset string, n int) (*FactsWriter, error) {
	dir := filepath.Join(dataset, factsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write export facts: %w", err)
	}
	if tmps, err := filepath.Glob(filepath.Join(dir, "facts-*.tmp")); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	w, err := runpack.Create(filepath.Join(dir, fmt.Sprintf("facts-%06d.bin", n)), factsFormat())
	if err != nil {
		return nil, fmt.Errorf("write export facts: %w", err)
	}
	return &FactsWriter{w: w}, nil
}

// Add adds the entry (EncodeRunFacts) of the run read from f as src, and
// whose group (dedupe.GroupOf of its run_start) is group: export orders
// the runs by it without reading every run_start first.
func (fw *FactsWriter) Add(f trace.File, group string, src runpack.Source, entry []byte) error {
	if err := fw.w.Add(f, group, src, entry); err != nil {
		return fmt.Errorf("write export facts: %w", err)
	}
	return nil
}

// Commit gives the facts file its name.
func (fw *FactsWriter) Commit() error {
	if err := fw.w.Commit(); err != nil {
		return fmt.Errorf("write export facts: %w", err)
	}
	return nil
}

// Abort drops the facts file.
func (fw *FactsWriter) Abort() { fw.w.Abort() }

// openFacts opens the facts classify stored in the dataset dir. A dataset
// without them (from a classify before them) is an empty store, and a pack
// that is not whole is left out: every run they do not vouch for is
// decoded from its trace, which gives the same export.
func openFacts(dataset string) (*runpack.Store, error) {
	names, err := runpack.Glob(filepath.Join(dataset, factsDir), "facts-*.bin")
	if err == nil {
		var s *runpack.Store
		if s, err = runpack.Open(names, factsFormat()); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("open export facts: %w", err)
}

// EncodeRunFacts returns the entry FactsWriter.Add takes for run, whose
// prompts are rebuilt (trace.Rebuild): made on the worker that read the
// run, it leaves the writer only the copy. prints, when not nil, is the
// run's entry in dedupe's store and f the Fingerprinter that made it
// (dedupe.RunPrints): the entry's fingerprints are copied for the turns
// whose training text is their pair text, and f, which has normalised
// every message of the run, fingerprints the others. A nil f is a
// Fingerprinter of the run's own.
func EncodeRunFacts(run *trace.RebuiltRun, prints []byte, f *dedupe.Fingerprinter) []byte {
	withTurns := DefaultOptions().runWhy(run.Start, run.End, false) == ""
	s := run.Start
	head := byte(0)
	if run.End != nil {
		head |= 1
	}
	if withTurns {
		head |= 2
	}
	// Room for the turns' fingerprints, most of an entry with turns and
	// about as many bytes as dedupe's entry: grown from a byte, the entry
	// was copied as often as it doubled.
	b := make([]byte, 1, 256+len(prints))
	b[0] = head
	if run.End != nil {
		b = runpack.AppendString(b, string(run.End.Verdict))
	}
	for _, v := range []string{s.Source, s.CaseID, s.Model.Backend, s.Model.Name, s.Repo.Path} {
		b = runpack.AppendString(b, v)
	}
	b = binary.AppendVarint(b, int64(s.Tier))
	b = binary.AppendUvarint(b, uint64(len(s.Tags)))
	for _, t := range s.Tags {
		b = runpack.AppendString(b, t)
	}
	secrets := secretsOf(run)
	b = binary.AppendUvarint(b, uint64(len(secrets)))
	for _, v := range secrets {
		b = runpack.AppendString(b, v)
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
		b = runpack.AppendString(b, string(turnlabel.Of(t).Kind))
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

// readRunFacts reads what EncodeRunFacts wrote. It checks every length
// against the bytes there are, so that a damaged entry is an error, never
// a wrong fact taken for a right one (the store checks a checksum first).
func readRunFacts(b []byte) (*runFacts, error) {
	r := runpack.NewReader(b)
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
