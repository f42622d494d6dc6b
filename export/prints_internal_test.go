package export

import (
	"context"
	"slices"
	"testing"

	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/schemas/trace"
)

// TestRecentPrintsServeWhatTheTracesGive holds the fingerprints export
// confirms keys and near-duplicates with to the texts read again from the
// traces: for every selected pair, of a run still among the recent ones or
// long gone, recentPrints must give the key text and shingles CorpusTexts
// gives.
func TestRecentPrintsServeWhatTheTracesGive(t *testing.T) {
	ctx := context.Background()
	dir, c := generatedCorpus(t, 400)
	opts := DefaultOptions()
	opts.In = dir
	rd := newRenderer(opts, nil)
	texts := dedupe.CorpusTexts{Corpus: c, Render: rd.training}
	recent := &recentPrints{texts: texts}
	var refs []dedupe.Ref
	for m, err := range trace.MapRuns(ctx, c, nil, func(*trace.RebuiltRun) struct{} { return struct{}{} }, func(error) {}) {
		if err != nil {
			t.Fatal(err)
		}
		run := m.RebuiltRun
		if opts.runWhy(run.Start, run.End, false) != "" {
			continue
		}
		fps := make([]dedupe.Fingerprint, len(run.Turns))
		var f dedupe.Fingerprinter
		for i, tu := range run.Turns {
			var p parsedDraft
			if opts.turnWhy(run, i, &p) == "" {
				fps[i] = f.Make(rd.trainingOf(run.Prompts[i], tu.Reply, rd.trainedReplyOf(tu, &p)))
				refs = append(refs, dedupe.Ref{Run: run.Index, Turn: int32(i)})
			}
		}
		recent.keep(run.Index, fps)
		// Every pair so far, the recent runs' from their fingerprints, the
		// older ones read again.
		for _, ref := range refs[max(0, len(refs)-40):] {
			checkRef(t, recent, texts, ref)
		}
	}
	if len(refs) < 50 {
		t.Fatalf("only %d selected pairs: the corpus does not exercise the index", len(refs))
	}
	for _, ref := range refs {
		checkRef(t, recent, texts, ref)
	}
}

func checkRef(t *testing.T, recent *recentPrints, texts dedupe.Texts, ref dedupe.Ref) {
	t.Helper()
	gotKey, err := recent.KeyText(nil, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantKey, err := texts.KeyText(nil, ref)
	if err != nil {
		t.Fatal(err)
	}
	if string(gotKey) != string(wantKey) {
		t.Fatalf("key text of %v: recent prints give %d bytes, the traces %d", ref, len(gotKey), len(wantKey))
	}
	gotSh, err := recent.Shingles(nil, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantSh, err := texts.Shingles(nil, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotSh, wantSh) {
		t.Fatalf("shingles of %v: recent prints give %d, the traces %d", ref, len(gotSh), len(wantSh))
	}
}

// generatedCorpus generates a corpus of turns turns in a temporary
// directory and opens it as export reads it.
func generatedCorpus(t *testing.T, turns int) (string, *trace.Corpus) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	gen := synthetic.DefaultOptions()
	gen.Turns = turns
	if _, err := synthetic.Generate(ctx, dir, gen); err != nil {
		t.Fatal(err)
	}
	c, err := trace.OpenCorpus(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, c
}
