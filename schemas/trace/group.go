package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// GroupOf names the group a run belongs to, by which a Corpus orders its
// runs, a dedupe index holds one at a time and export weights for
// variety: a benchmark case by its id; a dogfood task as dogfood/<id>; an
// ad-hoc run by its case id, or else by its repository and a short hash
// of its task. A run without a run_start (nil) has the group "".
func GroupOf(s *schemas.RunStart) string {
	switch {
	case s == nil:
		return ""
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
