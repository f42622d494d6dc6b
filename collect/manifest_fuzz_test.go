package collect

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseManifest: whatever bytes a manifest holds, the reader never
// panics; every error names the manifest, and every problem of a
// *ManifestError a line in it; every entry it returns (with or without
// problems) has an id, a repository and a task, a line, and an id no other
// entry has.
func FuzzParseManifest(f *testing.F) {
	for _, seed := range []string{
		"entries:\n  - id: textwrap-shorten\n    repo: ../textwrap\n    task: shorten() should keep a word\n    targets: [textwrap.py]\n    names: [shorten]\n    subject: shorten\n    scope: [\"*.py\"]\n    suite: \"{python} -m unittest test_textwrap\"\n    check: \"{python} -m pytest -q tests/test_shorten.py\"\n    script: drafts/textwrap.jsonl\n    tags: [stdlib, text]\n",
		"- id: a\n  repo: /r\n  task: t\n- id: a\n  repo: /r\n  task: again\n",
		"- id: typo\n  repo: /r\n  task: t\n  targts: [m.py]\n- repo: /r\n  task: no id\n",
		"- id: s\n  repo: /r\n  task: t\n  scope: [\"src/[\"]\n",
		"entries: 3\n",
		"other: x\n",
		"- just a string\n- [1, 2]\n",
		"- id: &a x\n  repo: *a\n  task: *a\n",
		"- id: t\n  repo: r\n  task: t\n  targets: {a: b}\n",
		"",
		"---\n...\n",
		"\t- id: tab\n",
	} {
		f.Add([]byte(seed))
	}
	const file = "fuzz/dogfood.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseManifest(file, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), file+":") {
				t.Fatalf("error does not name the manifest: %v", err)
			}
			var merr *ManifestError
			if errors.As(err, &merr) {
				if len(merr.Problems) == 0 {
					t.Fatal("a ManifestError with no problems")
				}
				for _, p := range merr.Problems {
					if p.Line < 1 || p.Msg == "" {
						t.Fatalf("a problem without a line or a message: %+v", p)
					}
				}
			} else if len(entries) > 0 {
				t.Fatalf("entries returned with an error that is not a ManifestError: %v", err)
			}
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if strings.TrimSpace(e.ID) == "" || strings.TrimSpace(e.Repo) == "" || strings.TrimSpace(e.Task) == "" {
				t.Fatalf("an entry without an id, repo or task: %+v", e)
			}
			if e.Line < 1 {
				t.Fatalf("entry %q has no line", e.ID)
			}
			if seen[e.ID] {
				t.Fatalf("two entries with id %q", e.ID)
			}
			seen[e.ID] = true
		}
	})
}
