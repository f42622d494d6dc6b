package dedupe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

// Corpus is a trace directory read as training pairs: the last attempt of
// every run, each turn with the whole prompt it was sent, rebuilt from the
// recorded deltas and proved by its prompt_hash. Runs are read one at a
// time; a few recent ones are cached so that the text of a pair can be read
// again cheaply while duplicates are confirmed.
type Corpus struct {
	dir      string
	files    []trace.File
	setAside int
	cache    []*RebuiltRun // most recent last
}

// cacheRuns is how many rebuilt runs a Corpus keeps. Runs are read in run
// id order, which puts the passes of a case side by side, so the copies a
// new pair is compared with are nearly always among the last few.
const cacheRuns = 8

// OpenCorpus lists the traces of dir (DIR/runs/*.jsonl or DIR/*.jsonl).
func OpenCorpus(dir string) (*Corpus, error) {
	files, err := trace.ListFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("open traces: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("open traces: no trace files (*.jsonl) in %s or %s/runs", dir, dir)
	}
	latest, aside := trace.LatestAttempts(files)
	return &Corpus{dir: dir, files: latest, setAside: aside}, nil
}

// Len is the number of runs (last attempts).
func (c *Corpus) Len() int { return len(c.files) }

// SetAside is the number of earlier attempts left out.
func (c *Corpus) SetAside() int { return c.setAside }

// File returns the trace file of run i.
func (c *Corpus) File(i int) trace.File { return c.files[i] }

// RebuiltRun is one run's records with the rebuilt prompt of every turn.
type RebuiltRun struct {
	Index int32
	*trace.Run
	// ReadErr holds the errors met reading the file; the good records
	// before and after them are kept.
	ReadErr error
	// Prompts[i] is the whole prompt turn i was sent, or nil when it could
	// not be rebuilt (its hash did not match); PromptErrs says why.
	Prompts    [][]schemas.Message
	PromptErrs []error
}

// Worked reports whether the run ended with the verdict worked.
func (r *RebuiltRun) Worked() bool { return r.End != nil && r.End.Verdict == schemas.VerdictWorked }

// Group returns the run's group (GroupOf), or "" with no run_start.
func (r *RebuiltRun) Group() string {
	if r.Start == nil {
		return ""
	}
	return GroupOf(r.Start)
}

// Time is the moment of turn i, for choosing the newest copy.
func (r *RebuiltRun) Time(i int) int64 {
	if t := r.Turns[i].StartedAt; !t.IsZero() {
		return t.UnixNano()
	}
	if r.Start != nil {
		return r.Start.StartedAt.UnixNano()
	}
	return 0
}

// Load reads run i, from the cache when it is there.
func (c *Corpus) Load(i int) (*RebuiltRun, error) {
	for k, r := range c.cache {
		if int(r.Index) == i {
			c.cache = append(append(c.cache[:k:k], c.cache[k+1:]...), r)
			return r, nil
		}
	}
	r, err := c.read(i)
	if r != nil {
		c.keep(r)
	}
	return r, err
}

// keep puts a run at the recent end of the cache.
func (c *Corpus) keep(r *RebuiltRun) {
	if len(c.cache) >= cacheRuns {
		c.cache = slices.Delete(c.cache, 0, 1)
	}
	c.cache = append(c.cache, r)
}

// read reads and rebuilds run i, touching nothing of c but its file list,
// so that several runs can be read at once.
func (c *Corpus) read(i int) (*RebuiltRun, error) {
	tr, err := trace.ReadRun(c.files[i])
	if tr == nil {
		return nil, fmt.Errorf("read run: %w", err)
	}
	r := &RebuiltRun{Index: int32(i), Run: tr, ReadErr: err}
	var conv schemas.Conversation
	r.Prompts = make([][]schemas.Message, len(tr.Turns))
	r.PromptErrs = make([]error, len(tr.Turns))
	for k, t := range tr.Turns {
		msgs, err := conv.Apply(t)
		if err != nil {
			r.PromptErrs[k] = fmt.Errorf("%s: %w", c.files[i].Path, err)
			continue
		}
		r.Prompts[k] = slices.Clip(msgs)
	}
	return r, nil
}

// Runs streams every run in order. A file that cannot be read at all is
// yielded as an error and the stream goes on. Runs are read and rebuilt
// ahead on every core (reading, decoding and hashing the prompts is most
// of a dedupe or an export) and handed over in order.
func (c *Corpus) Runs(ctx context.Context) iter.Seq2[*RebuiltRun, error] {
	return func(yield func(*RebuiltRun, error) bool) {
		type loaded struct {
			r   *RebuiltRun
			err error
		}
		idx := make([]int, len(c.files))
		for i := range idx {
			idx[i] = i
		}
		read := func(i int) loaded {
			if ctx.Err() != nil {
				return loaded{}
			}
			r, err := c.read(i)
			return loaded{r, err}
		}
		for _, l := range ordered.Map(idx, runtime.GOMAXPROCS(0), read) {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if l.r != nil {
				c.keep(l.r)
			}
			if !yield(l.r, l.err) {
				return
			}
		}
	}
}

// Pair returns the prompt and draft of ref, read again from its trace.
func (c *Corpus) Pair(ref Ref) ([]schemas.Message, schemas.Reply, error) {
	r, err := c.Load(int(ref.Run))
	if err != nil {
		return nil, schemas.Reply{}, err
	}
	if int(ref.Turn) >= len(r.Turns) || r.Prompts[ref.Turn] == nil {
		return nil, schemas.Reply{}, errors.New("no such pair in " + c.files[ref.Run].Path)
	}
	return r.Prompts[ref.Turn], r.Turns[ref.Turn].Reply, nil
}

// KeyText appends the exact key text of ref, read again from its trace.
func (c *Corpus) KeyText(dst []byte, ref Ref) ([]byte, error) {
	p, d, err := c.Pair(ref)
	if err != nil {
		return dst, err
	}
	return AppendKeyText(dst, p, d), nil
}

// NearText appends the near-duplicate text of ref, read again from its trace.
func (c *Corpus) NearText(dst []byte, ref Ref) ([]byte, error) {
	p, d, err := c.Pair(ref)
	if err != nil {
		return dst, err
	}
	return AppendNearText(dst, p, d), nil
}

var _ Texts = (*Corpus)(nil)

// GroupOf names the group a run belongs to for variety: a benchmark case
// by its id; a dogfood task as dogfood/<id>; an ad-hoc run by its case id,
// or else by its repository and a short hash of its task.
func GroupOf(s *schemas.RunStart) string {
	switch {
	case s.Source == schemas.SourceBench && s.CaseID != "":
		return s.CaseID
	case s.CaseID != "":
		return s.Source + "/" + s.CaseID
	}
	repo := s.Repo.URL
	if repo == "" {
		repo = s.Repo.Path
	}
	repo = path.Base(strings.TrimSuffix(strings.ReplaceAll(repo, "\\", "/"), "/"))
	h := sha256.Sum256([]byte(s.Task))
	src := s.Source
	if src == "" {
		src = schemas.SourceAdhoc
	}
	return src + "/" + repo + "#" + hex.EncodeToString(h[:4])
}
