package model

import (
	"github.com/pyharness/pyharness/schemas"
)

// Request is one call to a model: the whole prompt and the options it is
// sampled with.
type Request struct {
	Messages []schemas.Message
	// Options are always sent, zeros included: a temperature or seed of 0
	// that silently fell back to the server's default would make a run
	// irreproducible without anyone noticing.
	Options schemas.Options
	// Tools are native tool definitions, set only with --native-tools.
	Tools []Tool
}

// Tool is a native tool definition offered to the model.
type Tool = schemas.Tool

// Reply is a model's whole answer to one Request, gathered across every
// chunk of the stream, with what it cost and how many attempts it took.
type Reply struct {
	schemas.Reply
	Metrics schemas.Metrics
	// Attempts lists every call made for this reply, failed ones first,
	// the one that answered last.
	Attempts []schemas.Attempt
	// Truncated is true when the server's prompt count shows it cut the
	// prompt (prompt_eval_count equal to num_ctx): the model answered a
	// prompt it never saw whole.
	Truncated bool
	// Warnings are stable, human-readable notes for the turn's record.
	Warnings []string
}

// Info describes the model a backend talks to, for the run record and the
// pre-flight check.
type Info struct {
	Backend string
	Name    string
	Digest  string
	// Template is the model's Go template as Ollama's /api/show gives it.
	Template string
	// ChatTemplate is the model's Jinja chat template as llama-server's
	// /props gives it, with the BOS and EOS tokens it passes to it.
	ChatTemplate string
	BOS, EOS     string
	// WeightsFile is the model's GGUF as Ollama's /api/show names it (the
	// FROM of its Modelfile, a blob under the server's models directory):
	// on the server's own machine it can be read for the chat template the
	// model was published with, which /api/show leaves out.
	WeightsFile string
	Host        string
	// ContextLength is the model's trained context as the server reports it
	// (Ollama's /api/show, llama-server's n_ctx_train), 0 when unknown.
	ContextLength int
	// ContextInForce is the window the server says it applies whatever a
	// request asks (llama-server's n_ctx from /props or /v1/models; Ollama's
	// /api/ps for a loaded model), 0 when the server does not say.
	ContextInForce int
	// SendsNumCtx is true for backends that send num_ctx with every request
	// (Ollama's native API); on OpenAI-compatible APIs the server keeps
	// its own window.
	SendsNumCtx  bool
	Capabilities []string
	// Server is the server family behind an OpenAI-compatible endpoint,
	// when it showed itself (ServerOllama, ServerLlama), "" otherwise.
	Server string
	// Notes are what discovery learned that a user should read: a server
	// that answers for any model name, a check that could not be made.
	Notes []string
}

// Server families an OpenAI-compatible endpoint may turn out to be.
const (
	ServerOllama = "ollama"
	ServerLlama  = "llama-server"
)

// WarnPromptTruncated starts the warning a backend records when the server
// cut the prompt.
const WarnPromptTruncated = "prompt-truncated"
