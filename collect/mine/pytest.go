package mine

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pyharness/pyharness/harness/suite"
)

//go:embed pyharness_mine.py
var minePy []byte

// pluginName is the module name pytest loads the plugin by.
const pluginName = "pyharness_mine"

// testResult is one test's outcome in a run.
type testResult struct {
	Outcome string `json:"outcome"` // passed, failed, error, skipped
	Message string `json:"message"`
}

// testReport is what the plugin wrote about one pytest run.
type testReport struct {
	CollectErrors []struct {
		Node    string `json:"node"`
		Message string `json:"message"`
	} `json:"collect_errors"`
	Tests map[string]testResult `json:"tests"`
}

// failing are the tests that failed or errored, sorted.
func (r *testReport) failing() []string {
	var out []string
	for id, t := range r.Tests {
		if t.Outcome == "failed" || t.Outcome == "error" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// passing are the tests that passed, sorted.
func (r *testReport) passing() []string {
	var out []string
	for id, t := range r.Tests {
		if t.Outcome == "passed" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

var errTimeout = errors.New("the tests timed out")

// tester runs a repository's pytest suite with the plugin.
type tester struct {
	python  string
	suite   string // the suite command, "{python}" for the interpreter
	pyDir   string // where pyharness_mine.py is
	timeout time.Duration
	// ran counts the tests run, for the cost figures.
	ran atomic.Int64
}

// run runs the suite in dir, only selection when it is not nil (node ids
// or test files), recording which functions each test ran when cover.
// maxFail > 0 stops the run after that many failing tests: a candidate
// that fails more is dropped whatever the rest do.
func (t *tester) run(ctx context.Context, dir string, selection []string, cover bool, maxFail int) (*testReport, map[string][]string, error) {
	tmp, err := os.MkdirTemp("", "pyharness-mine-")
	if err != nil {
		return nil, nil, fmt.Errorf("run tests: %w", err)
	}
	defer os.RemoveAll(tmp)
	report := filepath.Join(tmp, "report.json")
	pp := t.pyDir
	if cur := os.Getenv("PYTHONPATH"); cur != "" {
		pp += string(os.PathListSeparator) + cur
	}
	env := []string{"PYTHONDONTWRITEBYTECODE=1", "PYHARNESS_MINE_REPORT=" + report, "PYTHONPATH=" + pp}
	if p := suite.ImportPathEnv(dir, env); p != "" {
		env = append(env, p)
	}
	if selection != nil {
		sel := filepath.Join(tmp, "select.txt")
		if err := os.WriteFile(sel, []byte(strings.Join(selection, "\n")+"\n"), 0o644); err != nil {
			return nil, nil, fmt.Errorf("run tests: %w", err)
		}
		env = append(env, "PYHARNESS_MINE_SELECT="+sel)
	}
	coverFile := filepath.Join(tmp, "cover.json")
	if cover {
		env = append(env, "PYHARNESS_MINE_COVER="+coverFile, "PYHARNESS_MINE_ROOT="+dir)
	}
	command := strings.ReplaceAll(t.suite, "{python}", shellQuote(t.python)) + " -p " + pluginName + " -p no:cacheprovider -q"
	if maxFail > 0 {
		command += " --maxfail=" + strconv.Itoa(maxFail)
	}
	timeout := t.timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, done, err := suite.Sandbox{Env: env}.Command(cctx, dir, []string{"sh", "-c", command})
	if err != nil {
		return nil, nil, fmt.Errorf("run tests: %w", err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	done()
	switch {
	case ctx.Err() != nil:
		return nil, nil, ctx.Err()
	case cctx.Err() != nil:
		return nil, nil, errTimeout
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return nil, nil, fmt.Errorf("run tests (%s): no report (%v): %s", command, runErr, lastLines(out.String(), 5))
	}
	var rep testReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, nil, fmt.Errorf("run tests: read report: %w", err)
	}
	t.ran.Add(int64(len(rep.Tests)))
	var cov map[string][]string
	if cover {
		data, err := os.ReadFile(coverFile)
		if err != nil {
			return nil, nil, fmt.Errorf("run tests: no coverage: %w", err)
		}
		if err := json.Unmarshal(data, &cov); err != nil {
			return nil, nil, fmt.Errorf("run tests: read coverage: %w", err)
		}
	}
	return &rep, cov, nil
}

// shellQuote is s as one word of sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
