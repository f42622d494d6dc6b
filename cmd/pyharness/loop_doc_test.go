package main

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// loopDoc is the page whose commands testdata/script/loop.txtar runs.
const (
	loopDoc    = "../../docs/loop.md"
	loopScript = "testdata/script/loop.txtar"
)

// TestLoopDocMatchesScript keeps docs/loop.md from rotting: every pyharness
// command of its shell blocks, with the scripted stand-ins put in for the
// models (standIn), is run by loop.txtar, in the page's order.
func TestLoopDocMatchesScript(t *testing.T) {
	doc, err := os.ReadFile(loopDoc)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(loopScript)
	if err != nil {
		t.Fatal(err)
	}
	want := docCommands(string(doc))
	if len(want) < 8 {
		t.Fatalf("%s has %d pyharness commands, want the whole loop (bench, stats, collect ×2, stats, export, bench, compare): %q", loopDoc, len(want), want)
	}
	ran := scriptCommands(string(script))
	next := 0
	for _, cmd := range want {
		sub := standIn(cmd)
		i := slices.Index(ran[next:], sub)
		if i < 0 {
			t.Errorf("%s runs\n  %s\nbut %s does not run, after the commands before it,\n  %s", loopDoc, cmd, loopScript, sub)
			continue
		}
		next += i + 1
	}
}

// docCommands returns the pyharness command lines of a Markdown page's sh
// blocks, continuation lines joined.
func docCommands(md string) []string {
	var out []string
	inSh := false
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inSh = trimmed == "```sh"
			continue
		case !inSh:
			continue
		}
		if cur.Len() == 0 && !strings.HasPrefix(trimmed, "pyharness ") {
			continue
		}
		cur.WriteString(strings.TrimSuffix(trimmed, "\\"))
		cur.WriteString(" ")
		if !strings.HasSuffix(trimmed, "\\") {
			out = append(out, strings.Join(strings.Fields(cur.String()), " "))
			cur.Reset()
		}
	}
	return out
}

// scriptCommands returns the `exec pyharness` lines of a txtar script,
// without the exec, up to its first file.
func scriptCommands(txtar string) []string {
	var out []string
	for _, line := range strings.Split(txtar, "\n") {
		if strings.HasPrefix(line, "-- ") {
			break
		}
		if rest, ok := strings.CutPrefix(line, "exec pyharness "); ok {
			out = append(out, "pyharness "+strings.Join(strings.Fields(rest), " "))
		}
	}
	return out
}

// standInCases are the benchmark cases the stand-in benches run: two, not
// fifteen, to keep the test short; env-flag is a platform case (tier 6).
var standInCases = []string{"--case", "env-flag", "--case", "initials"}

// standIn is a command of the page as loop.txtar runs it: the model of a
// bench or collect played by the scripted backend under its name
// (--model scripted --label MODEL, and no --base-url), export taking those
// scripted runs (--include-scripted), and a bench on standInCases.
func standIn(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) < 2 {
		return cmd
	}
	sub := f[1]
	if sub == "bench" && len(f) > 2 && f[2] == "compare" {
		return cmd
	}
	var out []string
	for i := 0; i < len(f); i++ {
		switch {
		case (sub == "bench" || sub == "collect") && f[i] == "--model" && i+1 < len(f):
			out = append(out, "--model", "scripted", "--label", f[i+1])
			i++
		case (sub == "bench" || sub == "collect") && f[i] == "--base-url" && i+1 < len(f):
			i++
		default:
			out = append(out, f[i])
		}
	}
	switch sub {
	case "export":
		out = append(out, "--include-scripted")
	case "bench":
		out = append(out, standInCases...)
	}
	return strings.Join(out, " ")
}

func TestStandIn(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pyharness bench --repeat 5 --model ollama:llama3.1:8b --out b",
			"pyharness bench --repeat 5 --model scripted --label ollama:llama3.1:8b --out b --case env-flag --case initials"},
		{"pyharness collect --manifest m.yaml --model openai:q --base-url http://h:8000/v1 --out t",
			"pyharness collect --manifest m.yaml --model scripted --label openai:q --out t"},
		{"pyharness export --in t --model openai:q --tag platform",
			"pyharness export --in t --model openai:q --tag platform --include-scripted"},
		{"pyharness bench compare a b", "pyharness bench compare a b"},
		{"pyharness stats --in local --by case", "pyharness stats --in local --by case"},
	}
	for _, tt := range tests {
		if got := standIn(tt.in); got != tt.want {
			t.Errorf("standIn(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// readme is the page whose first-hour block testdata/script/readme.txtar
// runs.
const (
	readme       = "../../README.md"
	readmeScript = "testdata/script/readme.txtar"
)

// TestReadmeTourMatchesScript keeps the README's first hour runnable as
// printed: every line of its sh block (the install, then each pyharness
// command, comments aside) is run by readme.txtar, in the page's order.
func TestReadmeTourMatchesScript(t *testing.T) {
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(readmeScript)
	if err != nil {
		t.Fatal(err)
	}
	want := tourLines(string(doc))
	if len(want) < 5 || !strings.HasPrefix(want[0], "go install ") {
		t.Fatalf("%s: the first-hour block is %q; want the install line, then the commands", readme, want)
	}
	var ran []string
	for _, line := range strings.Split(string(script), "\n") {
		rest, ok := strings.CutPrefix(line, "exec ")
		if !ok {
			continue
		}
		// A line a shell must run (export PATH=...) is run by sh -c,
		// joined to the lines that check it by &&.
		if inner, ok := strings.CutPrefix(rest, "sh -c '"); ok && strings.HasSuffix(inner, "'") {
			for _, part := range strings.Split(strings.TrimSuffix(inner, "'"), " && ") {
				ran = append(ran, strings.Join(strings.Fields(part), " "))
			}
			continue
		}
		ran = append(ran, strings.Join(strings.Fields(rest), " "))
	}
	next := 0
	for _, cmd := range want {
		i := slices.Index(ran[next:], cmd)
		if i < 0 {
			t.Errorf("%s says\n  %s\nbut %s does not run it, after the lines before it", readme, cmd, readmeScript)
			continue
		}
		next += i + 1
	}
}

// tourLines are the lines of the sh block under the README's "A first
// hour" heading, without their comments.
func tourLines(md string) []string {
	_, rest, ok := strings.Cut(md, "## A first hour")
	if !ok {
		return nil
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		return nil
	}
	block, _, _ := strings.Cut(rest, "```")
	var out []string
	for _, line := range strings.Split(block, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			out = append(out, line)
		}
	}
	return out
}
