package export

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/dedupe"
)

// TestRunFactsAreWhatTheFirstPassReads holds what classify stores of a run
// (encodeRunFacts, read back by readRunFacts) to what the first pass finds
// in the decoded run: the run filters' verdict under several options, the
// secret values, and for every turn its time, why it is no pair (or its
// fingerprint, the one made of the decoded turn). And an entry cut short,
// or with a byte too many, is an error, never facts.
func TestRunFactsAreWhatTheFirstPassReads(t *testing.T) {
	_, c := generatedCorpus(t, 400)
	options := map[string]Options{"defaults": DefaultOptions()}
	for name, change := range map[string]func(*Options){
		"kind tool-result":    func(o *Options) { o.Kinds = []string{"tool-result"} },
		"include failed runs": func(o *Options) { o.IncludeFailedRuns = true },
		"source dogfood":      func(o *Options) { o.Sources = []string{"dogfood"} },
		"model":               func(o *Options) { o.Models = []string{"gen-corpus:synthetic"} },
	} {
		o := DefaultOptions()
		change(&o)
		options[name] = o
	}
	rd := newRenderer(DefaultOptions(), nil)
	withTurns, pairs := 0, 0
	for i := range c.Len() {
		run, err := c.Read(i)
		if err != nil {
			t.Fatal(err)
		}
		// As export's deriver makes it: given dedupe's entry, whose
		// fingerprints serve the turns trained as written; and without it.
		d := derivedcache.NewRun(run)
		entry := Deriver().Derive(d)
		d.Release()
		if alone := encodeRunFacts(run, nil, nil); !bytes.Equal(entry, alone) {
			t.Fatalf("%s: the entry made with dedupe's fingerprints differs from the one made without", run.File.Path)
		}
		rf, err := readRunFacts(entry)
		if err != nil {
			t.Fatalf("%s: %v", run.File.Path, err)
		}
		if !slices.Equal(rf.secrets, secretsOf(run)) || rf.turns != len(run.Turns) {
			t.Fatalf("%s: stored %d secret values and %d turns, the run has %d and %d", run.File.Path, len(rf.secrets), rf.turns, len(secretsOf(run)), len(run.Turns))
		}
		for name, o := range options {
			for _, forDPO := range []bool{false, true} {
				if got, want := o.runWhy(rf.start, rf.end, forDPO), o.runWhy(run.Start, run.End, forDPO); got != want {
					t.Fatalf("%s, %s: the stored run is left out for %q, the decoded one for %q", run.File.Path, name, got, want)
				}
			}
		}
		if s := rf.start; !reflect.DeepEqual(s.Tags, run.Start.Tags) || s.Repo.Path != run.Start.Repo.Path {
			t.Fatalf("%s: stored tags %q and repository %q, the run's %q and %q", run.File.Path, s.Tags, s.Repo.Path, run.Start.Tags, run.Start.Repo.Path)
		}
		if (rf.turnFacts != nil) != (DefaultOptions().runWhy(run.Start, run.End, false) == "") {
			t.Fatalf("%s: turns stored %v, want them for the runs the default filters take", run.File.Path, rf.turnFacts != nil)
		}
		if rf.turnFacts != nil {
			withTurns++
			var f dedupe.Fingerprinter
			for k, tf := range rf.turnFacts {
				if tf.time != run.Time(k) {
					t.Fatalf("%s turn %d: stored time %d, the run's %d", run.File.Path, k, tf.time, run.Time(k))
				}
				for name, o := range options {
					var p parsedDraft
					if got, want := o.whyOf(tf.facts, o.kindIn(tf.kind)), o.turnWhy(run, k, &p); got != want {
						t.Fatalf("%s turn %d, %s: stored facts say %q, the decoded turn %q", run.File.Path, k, name, got, want)
					}
				}
				if tf.facts != factsOfPair {
					continue
				}
				pairs++
				var p parsedDraft
				want := trainingPrint(&f, rd, run, k, &p, true)
				if tf.print.Key != want.Key || !bytes.Equal(tf.print.KeyText, want.KeyText) || tf.print.Bands != want.Bands || !slices.Equal(tf.print.Shingles, want.Shingles) {
					t.Fatalf("%s turn %d: the stored fingerprint is not the decoded turn's", run.File.Path, k)
				}
			}
		}
		for n := range len(entry) {
			if _, err := readRunFacts(entry[:n]); err == nil {
				t.Fatalf("%s: the entry cut to %d of %d bytes read as facts", run.File.Path, n, len(entry))
			}
		}
		if _, err := readRunFacts(append(slices.Clip(entry), 0)); err == nil {
			t.Fatalf("%s: the entry with a byte more read as facts", run.File.Path)
		}
	}
	if withTurns == 0 || pairs < 50 {
		t.Fatalf("%d runs with turns stored, %d pairs: the corpus does not exercise the store", withTurns, pairs)
	}
}
