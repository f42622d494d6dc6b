package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

func options(in, out, format string) export.Options {
	o := export.DefaultOptions()
	o.In, o.Out, o.Format = in, out, format
	o.Seed = 7
	return o
}

func runExport(t *testing.T, o export.Options) (*export.Summary, string) {
	t.Helper()
	var out bytes.Buffer
	sum, err := export.Run(context.Background(), o, &out)
	if err != nil {
		t.Fatalf("export %s: %v\n%s", o.Format, err, out.String())
	}
	return sum, out.String()
}

// readFiles returns every file under dir, by relative path.
func readFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readMeta(t *testing.T, dir string) []export.Meta {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "meta.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []export.Meta
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m export.Meta
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// The conformance suite every format passes: repeated exports are byte
// for byte the same, no group is in two splits, the validation split is
// not empty, the planted secrets are nowhere, and the card's counts are the
// rows written.
func TestFormatsConformance(t *testing.T) {
	in := writeFixture(t)
	for _, format := range []string{export.FormatJSONL, export.FormatParquet, export.FormatDPO} {
		t.Run(format, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			sum, text := runExport(t, options(in, a, format))
			runExport(t, options(in, b, format))
			fa, fb := readFiles(t, a), readFiles(t, b)
			if len(fa) == 0 {
				t.Fatal("no files written")
			}
			for name, data := range fa {
				if !bytes.Equal(data, fb[name]) {
					t.Errorf("%s differs between two exports of the same traces", name)
				}
			}
			// Exporting again into the same directory changes nothing either.
			runExport(t, options(in, a, format))
			for name, data := range readFiles(t, a) {
				if !bytes.Equal(data, fb[name]) {
					t.Errorf("%s differs after exporting again over it", name)
				}
			}

			for name, data := range fa {
				for _, secret := range []string{secretToken, secretPassword, secretAnalytics} {
					if bytes.Contains(data, []byte(secret)) {
						t.Errorf("%s holds the planted secret %q", name, secret)
					}
				}
			}
			if sum.Redactions == 0 && format != export.FormatDPO {
				t.Error("no redactions counted")
			}

			splitOf := map[string]string{}
			for _, g := range sum.Groups {
				if prev, ok := splitOf[g.Group]; ok && prev != g.Split {
					t.Errorf("group %s in %s and %s", g.Group, prev, g.Split)
				}
				splitOf[g.Group] = g.Split
			}
			if format != export.FormatParquet {
				for _, m := range readMeta(t, a) {
					if splitOf[m.Group] != m.Split {
						t.Errorf("row %s/%d of group %s is in %s, its group in %s", m.Split, m.Row, m.Group, m.Split, splitOf[m.Group])
					}
				}
			}
			if sum.Splits["validation"].Rows == 0 {
				t.Errorf("empty validation split: %+v\n%s", sum.Splits, text)
			}
			card := string(fa["README.md"])
			for _, sp := range []string{export.SplitTrain, "validation"} {
				want := "- name: " + sp + "\n      num_examples: " + itoa(sum.Splits[sp].Rows) + "\n"
				if !strings.Contains(card, want) {
					t.Errorf("the card does not declare %q:\n%s", want, card)
				}
			}
			if format == export.FormatJSONL {
				for sp, name := range map[string]string{export.SplitTrain: "train.jsonl", "validation": "valid.jsonl"} {
					if n := bytes.Count(fa[name], []byte("\n")); n != sum.Splits[sp].Rows {
						t.Errorf("%s has %d rows, the summary says %d", name, n, sum.Splits[sp].Rows)
					}
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The default selection takes applied drafts of worked runs from a model:
// the scripted run, the failed, incomplete and error runs are left out,
// each counted with its reason.
func TestSelection(t *testing.T) {
	in := writeFixture(t)
	out := t.TempDir()
	sum, _ := runExport(t, options(in, out, export.FormatJSONL))
	wantRuns := map[string]int{
		"incomplete: no run_end record":                               1,
		"not judged: ended error or cancelled":                        1,
		"failed run (--include-failed-runs takes its applied drafts)": 2,
	}
	for why, n := range wantRuns {
		if sum.RunsLeftOut[why] != n {
			t.Errorf("runs left out for %q: %d, want %d (%v)", why, sum.RunsLeftOut[why], n, sum.RunsLeftOut)
		}
	}
	if n := countPrefix(sum.RunsLeftOut, "scripted or replay backend"); n != 1 {
		t.Errorf("scripted runs left out: %d, want 1 (%v)", n, sum.RunsLeftOut)
	}
	// alpha p1, p2: 4 + 4; beta p1: 3 of 4 (one refused); gamma p1, p2: 4 + 4; tool-x: 2.
	if sum.Selected != 21 {
		t.Errorf("selected %d turns, want 21", sum.Selected)
	}
	// alpha's two passes are exact copies but for a duration: 4 pairs.
	// gamma's second pass read .env with a tool call: rendered in the text
	// protocol it is its first pass again, but for its DONE, which answered
	// another test output: 5 pairs, not 8.
	if sum.Dedupe.ExactUnique != 4+3+5+2 {
		t.Errorf("exact-unique %d, want 14", sum.Dedupe.ExactUnique)
	}
	for _, m := range readMeta(t, out) {
		if m.Verdict != schemas.VerdictWorked || strings.HasPrefix(m.Model, "scripted:") {
			t.Errorf("row from a %s run of %s", m.Verdict, m.Model)
		}
	}
	wide := options(in, t.TempDir(), export.FormatJSONL)
	wide.IncludeFailedRuns, wide.IncludeScripted = true, true
	sumWide, _ := runExport(t, wide)
	if sumWide.Selected <= sum.Selected || sumWide.ScriptedRuns != 1 {
		t.Errorf("with failed and scripted runs: %d selected, %d scripted runs", sumWide.Selected, sumWide.ScriptedRuns)
	}
	one := options(in, t.TempDir(), export.FormatJSONL)
	one.Cases, one.Kinds = []string{"alpha"}, []string{string(schemas.KindOpening)}
	sumOne, _ := runExport(t, one)
	if sumOne.Selected != 2 {
		t.Errorf("--case alpha --kind opening selected %d, want 2", sumOne.Selected)
	}
}

func countPrefix(t export.Tally, prefix string) int {
	n := 0
	for k, v := range t {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// An export never replaces a README.md it did not write.
func TestExportKeepsForeignReadme(t *testing.T) {
	in := writeFixture(t)
	out := t.TempDir()
	readme := filepath.Join(out, "README.md")
	if err := os.WriteFile(readme, []byte("# My project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := export.Run(context.Background(), options(in, out, export.FormatJSONL), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "not a pyharness dataset card") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(readme); string(b) != "# My project\n" {
		t.Fatal("the README.md was replaced")
	}
}

// Scripted runs alone export nothing, say why, and write no file.
func TestNothingWithoutIncludeScripted(t *testing.T) {
	in := writeScriptedOnly(t)
	out := filepath.Join(t.TempDir(), "export")
	var buf bytes.Buffer
	_, err := export.Run(context.Background(), options(in, out, export.FormatJSONL), &buf)
	var nothing *export.NothingError
	if !errors.As(err, &nothing) {
		t.Fatalf("err %v, want a NothingError", err)
	}
	for _, want := range []string{"scripted", "--include-scripted", "teach nothing true"} {
		if !strings.Contains(nothing.Why, want) || !strings.Contains(buf.String(), want) {
			t.Errorf("the reason does not say %q:\n%s", want, buf.String())
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("files written for an empty export: %v", err)
	}
	o := options(in, out, export.FormatJSONL)
	o.IncludeScripted = true
	sum, _ := runExport(t, o)
	card, _ := os.ReadFile(filepath.Join(out, "README.md"))
	if sum.Splits[export.SplitTrain].Rows == 0 || !strings.Contains(string(card), "Scripted runs included") {
		t.Errorf("with --include-scripted: %+v; the card must say scripted runs are in it", sum.Splits)
	}
}

// readRows returns every training row of a JSONL export (train, then
// validation), decoded.
func readRows(t *testing.T, dir string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, name := range []string{"train.jsonl", "valid.jsonl", "test.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) && name == "test.jsonl" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			var row map[string]any
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// conversation is a row's messages in order, whatever its layout: the
// messages, or the prompt then the completion.
func conversation(row map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"messages", "prompt", "completion"} {
		list, _ := row[key].([]any)
		for _, m := range list {
			out = append(out, m.(map[string]any))
		}
	}
	return out
}

var callIDRE = regexp.MustCompile(`^[A-Za-z0-9]{9}$`)

// Native tool calls are written as the text protocol, or kept with
// --keep-tool-calls in the shape chat templates take: arguments a JSON
// object, every call an id of nine letters and digits, every tool message
// the id of the call it answers, and the harness's tools in a tools column.
func TestToolCalls(t *testing.T) {
	in := writeFixture(t)
	text := options(in, t.TempDir(), export.FormatJSONL)
	text.Cases = []string{"gamma"}
	runExport(t, text)
	found := false
	for _, row := range readRows(t, text.Out) {
		msgs := conversation(row)
		if _, ok := row["tools"]; ok {
			t.Errorf("a tools column without --keep-tool-calls: %v", row)
		}
		for _, m := range msgs {
			if m["tool_calls"] != nil || m["role"] == "tool" {
				t.Errorf("a tool call or tool message without --keep-tool-calls: %v", m)
			}
		}
		// Both passes answer the opening the same way once rendered.
		if len(msgs) == 3 && msgs[2]["content"] == "READ .env" {
			found = true
		}
	}
	if !found {
		t.Error("no opening row trains READ .env")
	}

	wantTools := []string{"read_file", "write_file", "patch_file", "run_tests", "skill", "ask", "done"}
	for _, layout := range []string{"prompt-completion", "messages"} {
		t.Run(layout, func(t *testing.T) {
			keep := options(in, t.TempDir(), export.FormatJSONL)
			keep.Cases, keep.KeepToolCalls, keep.Layout = []string{"gamma"}, true, layout
			runExport(t, keep)
			calls, answered, trainedCall := 0, 0, false
			for _, row := range readRows(t, keep.Out) {
				tools, _ := row["tools"].([]any)
				var names []string
				for _, tool := range tools {
					fn := tool.(map[string]any)["function"].(map[string]any)
					names = append(names, fn["name"].(string))
					// Templates test "name in parameters.required".
					if _, ok := fn["parameters"].(map[string]any)["required"].([]any); !ok {
						t.Errorf("tool %s: required is %v, not a list", fn["name"], fn["parameters"].(map[string]any)["required"])
					}
				}
				if !slices.Equal(names, wantTools) {
					t.Errorf("tools column %v, want the harness's tools %v", names, wantTools)
				}
				msgs := conversation(row)
				lastCall := ""
				for i, m := range msgs {
					tc, _ := m["tool_calls"].([]any)
					for _, c := range tc {
						calls++
						call := c.(map[string]any)
						if id, _ := call["id"].(string); !callIDRE.MatchString(id) {
							t.Errorf("call id %q is not nine letters and digits", call["id"])
						}
						if _, ok := call["function"].(map[string]any)["arguments"].(map[string]any); !ok {
							t.Errorf("arguments are not a JSON object: %v", call)
						}
					}
					if len(tc) > 0 {
						lastCall = tc[0].(map[string]any)["id"].(string)
						if i == len(msgs)-1 {
							trainedCall = true
						}
					}
					if m["role"] == "tool" {
						answered++
						if m["tool_call_id"] != lastCall || lastCall == "" {
							t.Errorf("tool message answers %v, the call before it is %q", m["tool_call_id"], lastCall)
						}
					}
				}
			}
			if calls == 0 || answered == 0 || !trainedCall {
				t.Errorf("--keep-tool-calls lost the tool call: %d calls, %d tool messages, a trained call: %v", calls, answered, trainedCall)
			}
		})
	}
}

// Every preference pair answers one prompt: the chosen draft was applied in
// a worked run, the rejected one refused or from a failed run, and both
// turns were sent the identical prompt.
func TestDPOPairs(t *testing.T) {
	in := writeFixture(t)
	out := t.TempDir()
	sum, _ := runExport(t, options(in, out, export.FormatDPO))
	turns := map[string]*schemas.Turn{}
	verdicts := map[string]schemas.Verdict{}
	for run, err := range trace.Runs(t.Context(), in) {
		if err != nil && run == nil {
			t.Fatal(err)
		}
		if run.End != nil {
			verdicts[run.Start.RunID] = run.End.Verdict
		}
		for _, tr := range run.Turns {
			turns[run.Start.RunID+"#"+itoa(tr.Step)] = tr
		}
	}
	meta := readMeta(t, out)
	if len(meta) == 0 {
		t.Fatal("no preference pairs")
	}
	for _, m := range meta {
		chosen, rejected := turns[m.RunID+"#"+itoa(m.Step)], turns[m.RejectedRunID+"#"+itoa(m.RejectedStep)]
		if chosen == nil || rejected == nil {
			t.Fatalf("pair %+v names turns that are not in the traces", m)
		}
		if verdicts[m.RunID] != schemas.VerdictWorked {
			t.Errorf("chosen from a %s run: %+v", verdicts[m.RunID], m)
		}
		if chosen.Sent.PromptHash != rejected.Sent.PromptHash || chosen.Sent.PromptHash != m.PromptHash {
			t.Errorf("chosen and rejected answer different prompts: %+v", m)
		}
		if rejected.Outcome.Status != schemas.StatusRefused && verdicts[m.RejectedRunID] != schemas.VerdictFailed {
			t.Errorf("rejected neither refused nor from a failed run: %+v", m)
		}
		if chosen.Reply.Content == rejected.Reply.Content {
			t.Errorf("chosen and rejected are the same draft: %+v", m)
		}
	}
	// alpha: the wrong write of pass 3 against the right one; beta: the
	// wrong write of pass 2 against pass 1's at the opening.
	if got := sum.Splits[export.SplitTrain].Pairs + sum.Splits["validation"].Pairs; got != 2 {
		t.Errorf("%d preference pairs, want 2", got)
	}
	var groups []string
	for _, g := range sum.Groups {
		groups = append(groups, g.Group)
	}
	slices.Sort(groups)
	if !slices.Equal(groups, []string{"alpha", "beta"}) {
		t.Errorf("groups %v", groups)
	}
}
