package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/harness/model/replay"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/harness/preflight"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// The backends --model chooses between are what the harness needs of one.
var (
	_ harness.Chatter = (*ollama.Client)(nil)
	_ harness.Chatter = (*openai.Client)(nil)
	_ harness.Chatter = (*scripted.Backend)(nil)
	_ harness.Chatter = (*replay.Backend)(nil)
)

// defaultModel is the model every command uses unless --model says.
const defaultModel = "ollama:llama3.1:8b"

// modelFlags are the model flags shared by run, bench, collect and doctor.
type modelFlags struct {
	spec        string
	baseURL     string
	apiKeyEnv   string
	seed        int
	temperature float64
	numCtx      int
	numPredict  int
	contextSize int
	think       bool
	// chatTemplate is the model's chat template file (--chat-template).
	chatTemplate string
	// label names the model a scripted run stands in for (bench and
	// collect only).
	label string
}

func (f *modelFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.spec, "model", defaultModel, "model: ollama:NAME, openai:NAME, scripted:FILE or replay:TRACE")
	fs.StringVar(&f.baseURL, "base-url", "", "server base URL (ollama: default $OLLAMA_HOST; openai: required, e.g. http://host:8000/v1)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the openai backend's API key")
	fs.IntVar(&f.seed, "seed", 0, "sampling seed")
	fs.Float64Var(&f.temperature, "temperature", 0, "sampling temperature")
	fs.IntVar(&f.numCtx, "num-ctx", harness.DefaultNumCtx, "context window sent to the server and kept for the whole run")
	fs.IntVar(&f.numPredict, "num-predict", harness.DefaultNumPredict, "most tokens a reply may take")
	fs.BoolVar(&f.think, "think", false, "ask the model to think before it answers (Ollama: think: true, refused for a model without the thinking capability); its thinking is recorded apart from the answer and never acted on")
	fs.IntVar(&f.contextSize, "context-size", 0, "the context window an OpenAI-compatible server applies, for one that does not say (llama-server and Ollama say; vLLM, LM Studio may not)")
}

// registerChatTemplate adds --chat-template, for the commands whose
// --model is the one the template belongs to (loop has its own, for the
// student, and hands it on).
func (f *modelFlags) registerChatTemplate(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.chatTemplate, "chat-template", "", "the model's chat template (a .jinja file, a tokenizer_config.json or a GGUF): calls and reasoning written the way it writes them are read with the syntax learned from it (default: the template the server reports, llama-server's /props or Ollama's /api/show)")
}

// check is the rule on the context flags that run, bench, collect and
// doctor share: the window must leave room for a prompt after the reply.
func (f *modelFlags) check() error {
	if f.contextSize < 0 {
		return fmt.Errorf("--context-size %d: want a positive window, or 0 for none", f.contextSize)
	}
	if err := model.CheckPromptRoom(f.numCtx, f.numPredict); err != nil {
		return fmt.Errorf("--num-ctx %d, --num-predict %d: %w", f.numCtx, f.numPredict, err)
	}
	return nil
}

// modelSpec is a parsed --model value.
type modelSpec struct {
	backend string // ollama, openai, scripted, replay
	arg     string // model name, script file or trace path
}

// parseModelSpec reads BACKEND:ARG. A bare name without a known backend is
// an Ollama model ("llama3.1:8b" is ollama:llama3.1:8b); "scripted" alone
// means each benchmark case's own scripts.
func parseModelSpec(s string) (modelSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return modelSpec{}, fmt.Errorf("--model is empty: want ollama:NAME, openai:NAME, scripted:FILE or replay:TRACE")
	}
	if s == schemas.BackendScripted {
		return modelSpec{backend: schemas.BackendScripted}, nil
	}
	backend, arg, ok := strings.Cut(s, ":")
	switch backend {
	case schemas.BackendOllama, schemas.BackendOpenAI, schemas.BackendScripted, schemas.BackendReplay:
		if !ok || arg == "" {
			return modelSpec{}, fmt.Errorf("--model %s: the %s backend needs a %s after the colon", s, backend, map[string]string{
				schemas.BackendOllama: "model name", schemas.BackendOpenAI: "model name", schemas.BackendScripted: "script file", schemas.BackendReplay: "trace file or directory"}[backend])
		}
		return modelSpec{backend: backend, arg: arg}, nil
	}
	if ok && looksLikeBackend(backend, arg) {
		hint := "for an Ollama model of that name, write ollama:" + s
		switch near := nearestBackend(backend); {
		case near != "":
			hint = "did you mean " + near + ":" + arg + "?"
		case strings.HasSuffix(arg, ".jsonl"):
			hint = "for a script of drafts, write scripted:" + arg
		}
		return modelSpec{}, fmt.Errorf("--model %s: unknown backend %q; the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE (%s)", s, backend, hint)
	}
	return modelSpec{backend: schemas.BackendOllama, arg: s}, nil
}

// knownBackends are the backends --model names, for looksLikeBackend.
var knownBackends = []string{schemas.BackendOllama, schemas.BackendOpenAI, schemas.BackendScripted, schemas.BackendReplay}

// looksLikeBackend tells a mistyped backend ("scriptd:s.jsonl",
// "olama:foo") from an Ollama model name given bare ("llama3.1:8b"): a
// prefix of letters that starts as a backend's name does and is within two
// edits of it ("llama:latest" is a model), or one before a file where the
// model's tag would be. Taken for a model name, a typo would only fail
// later, as a server that cannot be reached or a model it does not have.
func looksLikeBackend(prefix, arg string) bool {
	if prefix == "" {
		return false
	}
	for _, r := range prefix {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	if strings.HasSuffix(arg, ".jsonl") || strings.ContainsAny(arg, "/\\") {
		return true
	}
	for _, b := range knownBackends {
		if prefix[0] == b[0] && editDistance(prefix, b) <= 2 {
			return true
		}
	}
	return false
}

// nearestBackend is the backend a mistyped prefix is closest to, within
// two edits and starting with the same letter ("olama" is ollama), or "".
func nearestBackend(prefix string) string {
	best, bestD := "", 3
	for _, b := range knownBackends {
		if d := editDistance(prefix, b); prefix[0] == b[0] && d < bestD {
			best, bestD = b, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two short ASCII words.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// registerLabel adds --label, for the commands that record scripted runs
// of many cases (bench, collect).
func (f *modelFlags) registerLabel(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.label, "label", "", "scripted backend only: record the runs under this model name, the model the scripts stand in for (e.g. ollama:llama3.1:8b)")
}

// checkLabel refuses --label for a backend that names its own model: a
// trace must say which model wrote its drafts.
func (f *modelFlags) checkLabel(spec modelSpec) error {
	if f.label != "" && spec.backend != schemas.BackendScripted {
		return fmt.Errorf("--label %s: only the scripted backend takes a label; the %s backend records its model's own name", f.label, spec.backend)
	}
	return nil
}

// labelled is m recorded under --label, when one is given. The backend
// stays scripted, so that no report and no export mistakes the scripts'
// drafts for a model's; the name is what tells two stand-ins apart (and
// what `export --model NAME` selects).
func (f *modelFlags) labelled(m schemas.Model) schemas.Model {
	if f.label != "" {
		m.Name = f.label
	}
	return m
}

func (f *modelFlags) options() schemas.Options {
	return schemas.Options{Seed: f.seed, Temperature: f.temperature, NumCtx: f.numCtx, NumPredict: f.numPredict, Think: f.think}
}

// backend is a model backend with the description recorded on run_start.
type backend struct {
	chat harness.Chatter
	info schemas.Model
	// syntax is the one learned from the model's chat template, nil when
	// none was (info.ChatSyntax says why).
	syntax *draft.Syntax
	// replay is set for the replay backend, to report divergences.
	replay *replay.Backend
	// ask asks the server about the model; nil for backends without one.
	ask preflight.InfoFunc
}

// forRun is the backend of one collected or benchmark run with opts.
func (b *backend) forRun(opts schemas.Options) collect.Backend {
	info := b.info
	info.Options = opts
	return collect.Backend{Chat: b.chat, Model: info, Syntax: b.syntax}
}

// preflight checks the server, the model, the interpreters and the disk,
// and records what the server said of the model (its digest goes on every
// run_start).
func (b *backend) preflight(ctx context.Context, f *modelFlags, python, out string) *preflight.Result {
	res := preflight.Run(ctx, preflight.Options{Backend: b.info.Backend, Model: b.info.Name, Info: b.ask,
		NumCtx: f.numCtx, NumPredict: f.numPredict, ContextSize: f.contextSize, Python: python, OutDir: out, MinFreeBytes: 256 << 20, Think: f.think})
	if res.Info.Digest != "" {
		b.info.Digest = res.Info.Digest
	}
	if res.Info.ContextLength > 0 {
		b.info.ContextLength = res.Info.ContextLength
	}
	b.learnFromServer(f, res.Info)
	if res.Context == nil {
		return res
	}
	// The window the server applies, not the one asked for, is what every
	// prompt of the job is budgeted against and what run_start records.
	b.info.Context = res.Context
	if err := model.CheckPromptRoom(res.Context.Effective, f.numPredict); err != nil {
		// The harness refuses to start a run with this little room: the
		// pre-flight fails rather than let the baseline run first.
		for i, c := range res.Checks {
			if c.Name == "context" {
				res.Checks[i].Status = preflight.Fail
				res.Checks[i].Detail += fmt.Sprintf(" (a run refuses this: lower --num-predict to %d or less)", res.Context.Effective-model.MinPromptTokens)
			}
		}
	}
	return res
}

// openBackend builds the backend a spec names. What stops it (a script
// file missing or malformed, a replay that names no run, an openai model
// without --base-url) is configuration: exitUsage.
func openBackend(ctx context.Context, a *app, spec modelSpec, f *modelFlags) (*backend, error) {
	be, err := newBackend(ctx, a, spec, f)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	return be, nil
}

// newBackend builds the backend a spec names, reading its replies with the
// syntax of --chat-template when one is given.
func newBackend(ctx context.Context, a *app, spec modelSpec, f *modelFlags) (*backend, error) {
	be, err := backendFor(ctx, a, spec, f)
	if err != nil || f.chatTemplate == "" {
		return be, err
	}
	syn, err := loadChatTemplate(f.chatTemplate)
	if err != nil {
		return nil, err
	}
	be.useSyntax(syn, f.chatTemplate, "", f.think)
	return be, nil
}

// backendFor builds the backend a spec names; the choice of
// implementation is made here, in one switch.
func backendFor(ctx context.Context, a *app, spec modelSpec, f *modelFlags) (*backend, error) {
	info := schemas.Model{Backend: spec.backend, Name: spec.arg, Options: f.options()}
	switch spec.backend {
	case schemas.BackendOllama:
		c, err := ollama.New(ollama.Config{Host: f.baseURL, Model: spec.arg, Retry: a.retry})
		if err != nil {
			return nil, err
		}
		info.Host = c.Host()
		return &backend{chat: c, info: info, ask: c.Info}, nil
	case schemas.BackendOpenAI:
		if f.baseURL == "" {
			return nil, fmt.Errorf("--model %s:%s needs --base-url (the endpoint's /v1 URL)", spec.backend, spec.arg)
		}
		c, err := openai.New(openai.Config{BaseURL: f.baseURL, APIKey: a.getenv(f.apiKeyEnv), Model: spec.arg, Retry: a.retry})
		if err != nil {
			return nil, err
		}
		info.Host = f.baseURL
		return &backend{chat: c, info: info, ask: c.Info}, nil
	case schemas.BackendScripted:
		if spec.arg == "" {
			return nil, fmt.Errorf("--model scripted needs a script file here (scripted:FILE); plain 'scripted' is for bench and collect")
		}
		c, err := scripted.New(spec.arg)
		if err != nil {
			return nil, err
		}
		return &backend{chat: c, info: info}, nil
	case schemas.BackendReplay:
		path, err := replayFile(ctx, spec.arg)
		if err != nil {
			return nil, err
		}
		c, err := replay.New(path)
		if err != nil {
			return nil, err
		}
		if mi, err := c.Info(ctx); err == nil {
			info.Name = mi.Name
		}
		return &backend{chat: c, info: info, replay: c}, nil
	}
	return nil, fmt.Errorf("unknown backend %q", spec.backend)
}

// replayFile is the trace to replay: the file named, or the one run of a
// trace directory (its last attempt).
func replayFile(ctx context.Context, arg string) (string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	if !st.IsDir() {
		return arg, nil
	}
	var runs []trace.LastAttempt
	for la, err := range trace.LastAttempts(ctx, arg) {
		if err != nil {
			return "", fmt.Errorf("replay: %w", err)
		}
		runs = append(runs, la)
	}
	if len(runs) != 1 {
		return "", fmt.Errorf("replay: %s holds %d runs; name one trace file (bench --model replay:DIR replays a whole benchmark)", arg, len(runs))
	}
	return runs[0].Path, nil
}
