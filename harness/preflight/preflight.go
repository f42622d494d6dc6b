package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// Status of a check.
const (
	ok   = "ok"
	warn = "warn"
	Fail = "FAIL"
)

// Check is one thing the pre-flight looked at.
type Check struct {
	Name   string
	Status string
	Detail string
}

// InfoFunc asks a backend about its model (model.Info).
type InfoFunc func(ctx context.Context) (model.Info, error)

// Options say what to check.
type Options struct {
	// Backend is the model backend's name; Info asks it about the model
	// (nil for scripted and replay, which need no server).
	Backend string
	Model   string
	Info    InfoFunc
	// NumCtx is the context the job asks for (--num-ctx), checked against
	// the model's; NumPredict the reply's share of it (--num-predict).
	NumCtx     int
	NumPredict int
	// ContextSize is the window the user says the server applies
	// (--context-size), for servers that state none; 0 if not given.
	ContextSize int
	// Python is the interpreter asked for, if any.
	Python string
	// OutDir is where the job writes; its disk must have MinFreeBytes.
	OutDir       string
	MinFreeBytes uint64
	// Think is --think: the model is asked to think with every request.
	Think bool
}

// Result is every check, and whether the job can go on.
type Result struct {
	Checks []Check
	// Info is what the server said of the model.
	Info model.Info
	// Context is the window the job budgets against, and where each size
	// came from (model.ResolveContext); nil when no server was asked.
	Context *schemas.ContextSizes
}

// Failed reports whether any check failed.
func (r *Result) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Write prints the checks as a table.
func (r *Result) Write(w io.Writer) {
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-5s %-18s %s\n", c.Status, c.Name, c.Detail)
	}
}

// Run makes every check; it never stops at the first failure, so one run
// says everything that needs fixing.
func Run(ctx context.Context, o Options) *Result {
	res := &Result{}
	add := func(name, status, format string, args ...any) {
		res.Checks = append(res.Checks, Check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
	}
	if o.NumCtx > 0 {
		// The rule run refuses by: a doctor that passes what run refuses
		// is no pre-flight.
		if err := model.CheckPromptRoom(o.NumCtx, o.NumPredict); err != nil {
			add("options", Fail, "--num-ctx %d, --num-predict %d: %v", o.NumCtx, o.NumPredict, err)
		}
	}
	switch {
	case o.Info == nil:
		add("model", ok, "%s backend: no server needed (drafts are not from a model, and every record says so)", o.Backend)
	default:
		info, err := o.Info(ctx)
		res.Info = info
		var merr *model.Error
		switch {
		case err == nil:
			detail := fmt.Sprintf("%s at %s", info.Name, info.Host)
			if info.Digest != "" {
				detail += ", digest " + shortDigest(info.Digest)
			}
			if info.ContextLength > 0 {
				detail += fmt.Sprintf(", trained context %d", info.ContextLength)
			}
			if info.Server != "" && info.Backend == schemas.BackendOpenAI {
				detail += ", served by " + info.Server
			}
			for _, n := range info.Notes {
				detail += "; " + n
			}
			add("model", ok, "%s", detail)
			c := model.ResolveContext(o.NumCtx, o.ContextSize, info)
			res.Context = &c
			contextChecks(add, o, c)
			if o.Backend == schemas.BackendOllama && info.Template != "" && !strings.Contains(info.Template, "Tools") {
				add("native tools", warn, "the model's template has no tools: --native-tools will fall back to text")
			}
			if o.Think {
				thinkCheck(add, o, info)
			}
		case errors.As(err, &merr) && merr.Code == model.CodeModelNotFound:
			hint := ""
			if o.Backend == schemas.BackendOllama {
				hint = fmt.Sprintf(" (ollama pull %s)", o.Model)
			}
			add("model", Fail, "the server does not have %s%s: %v", o.Model, hint, err)
		case errors.As(err, &merr) && (merr.Code == model.CodeConnectionRefused || merr.Code == model.CodeTimeout):
			hint := ""
			if o.Backend == schemas.BackendOllama {
				hint = " (is `ollama serve` running? OLLAMA_HOST or --base-url names the server)"
			}
			add("server", Fail, "cannot reach the %s server%s: %v", o.Backend, hint, err)
		default:
			add("server", Fail, "the %s server did not answer about %s: %v", o.Backend, o.Model, err)
		}
	}

	py, err := suite.FindPython(ctx, o.Python, false)
	if err != nil {
		add("python", Fail, "%v", err)
	} else {
		add("python", ok, "%s (%s)", py, pythonVersion(ctx, py))
	}
	if pt, err := suite.FindPython(ctx, "", true); err != nil {
		add("pytest", warn, "no interpreter has pytest: pytest suites cannot run (on Debian: apt-get install python3-pytest)")
	} else {
		add("pytest", ok, "%s has pytest", pt)
	}
	if p, err := exec.LookPath("git"); err != nil {
		add("git", Fail, "git is not on PATH: the harness diffs each run with git")
	} else {
		add("git", ok, "%s", p)
	}
	if o.OutDir != "" {
		free, dir, err := freeBytes(o.OutDir)
		switch {
		case err != nil:
			add("disk", warn, "cannot tell the free space of %s: %v", o.OutDir, err)
		case o.MinFreeBytes > 0 && free < o.MinFreeBytes:
			add("disk", Fail, "%s has %s free, less than the %s a job needs", dir, human(free), human(o.MinFreeBytes))
		default:
			add("disk", ok, "%s free at %s", human(free), dir)
		}
	}
	return res
}

// thinkCheck says whether --think can work: Ollama refuses every request
// that sends think to a model without the thinking capability (400 "does
// not support thinking"), so a job would fail on its first turn. An
// OpenAI-compatible server has no such switch of its own.
func thinkCheck(add func(name, status, format string, args ...any), o Options, info model.Info) {
	if o.Backend != schemas.BackendOllama {
		add("think", warn, "--think sends chat_template_kwargs enable_thinking, which only a chat template that reads it obeys (Qwen3's on llama-server or vLLM; Ollama's /v1 ignores it and thinks with a model that can); whether the thinking comes back apart from the answer (reasoning_content) is the server's setting (llama-server: --reasoning-format deepseek)")
		return
	}
	if slices.Contains(info.Capabilities, "thinking") {
		add("think", ok, "the model has the thinking capability: its thinking comes apart from the answer (message.thinking)")
		return
	}
	add("think", Fail, "--think: %s has no thinking capability (capabilities: %s): the server refuses think with 400 on every request", o.Model, strings.Join(info.Capabilities, ", "))
}

// contextChecks says which window the job will have: the sizes asked
// for, trained, in force and budgeted against, with a warning wherever
// the window asked for is not the one that will apply.
func contextChecks(add func(name, status, format string, args ...any), o Options, c schemas.ContextSizes) {
	size := func(n int) string {
		if n == 0 {
			return "unknown"
		}
		return fmt.Sprint(n)
	}
	sent := "sent"
	if !c.Sent {
		sent = "not sent: this API has no num_ctx"
	}
	status := ok
	var why []string
	if c.Trained > 0 && c.Requested > c.Trained {
		status = warn
		w := fmt.Sprintf("--num-ctx %d is above the model's trained context %d", c.Requested, c.Trained)
		if c.Sent {
			w += ": the server caps it silently"
		}
		why = append(why, w)
	}
	if !c.Sent && c.InForce > 0 && c.InForce != c.Requested {
		status = warn
		why = append(why, fmt.Sprintf("the server's window is %d whatever --num-ctx asks", c.InForce))
	}
	if c.Source == schemas.ContextUnknown {
		status = warn
		why = append(why, "the server states no window and no trained context: prompts are budgeted against --num-ctx unchecked (give --context-size N)")
	}
	if o.NumPredict > 0 && c.Effective > 0 && c.Effective != c.Requested {
		if err := model.CheckPromptRoom(c.Effective, o.NumPredict); err != nil {
			status = warn
			why = append(why, "in the effective window, "+err.Error())
		}
	}
	detail := fmt.Sprintf("requested %d (%s), trained %s, in force %s, effective %d (from %s)",
		c.Requested, sent, size(c.Trained), size(c.InForce), c.Effective, c.Source)
	if len(why) > 0 {
		detail += ": " + strings.Join(why, "; ")
	}
	add("context", status, "%s", detail)
}

func shortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

func pythonVersion(ctx context.Context, py string) string {
	out, err := exec.CommandContext(ctx, py, "--version").CombinedOutput()
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(string(out))
}

// freeBytes is the free space of the file system holding path, or its
// nearest existing parent.
func freeBytes(path string) (uint64, string, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return 0, "", err
	}
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, dir, err
	}
	return st.Bavail * uint64(st.Bsize), dir, nil
}

func human(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
