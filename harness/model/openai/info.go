package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/internal/httpwatch"
	"github.com/pyharness/pyharness/schemas"
)

// Info asks the endpoint about the model, in a way that works on the
// OpenAI-compatible servers people run locally, which differ:
//   - GET /models lists the models (Ollama: its tags; llama-server: the one
//     GGUF it serves, with meta.n_ctx and meta.n_ctx_train). A model the
//     list does not have is not found — unless the server answers for any
//     name, as llama-server does (GET /models/{id} is no route of its: 404
//     "File Not Found", which says nothing about the model).
//   - GET /props at the server's root (the base URL without /v1) is
//     llama-server's: default_generation_settings.n_ctx is its window.
//   - POST /api/show at the root is Ollama's: the trained context.
//
// A server that has neither list nor route for a model is not failed: its
// notes say the model's presence was not checked.
func (c *Client) Info(ctx context.Context) (model.Info, error) {
	info := model.Info{Backend: schemas.BackendOpenAI, Name: c.model, Host: c.base}
	base := strings.TrimRight(c.base, "/")
	root := strings.TrimSuffix(base, "/v1")

	var list modelList
	status, msg, err := c.getJSON(ctx, http.MethodGet, base+"/models", nil, &list)
	if err != nil {
		return info, fmt.Errorf("list models: %w", err)
	}
	listed := status == http.StatusOK
	if !listed && status != http.StatusNotFound && status != http.StatusMethodNotAllowed && status != http.StatusUnsupportedMediaType {
		// A refused key, a server error: the list route is there and
		// says something is wrong.
		return info, fmt.Errorf("list models: %w", model.FromStatus(status, msg, nil))
	}
	entry, found := list.find(c.model)

	var props llamaProps
	if st, _, err := c.getJSON(ctx, http.MethodGet, root+"/props", nil, &props); err == nil && st == http.StatusOK && props.Settings.NCtx > 0 {
		info.Server = model.ServerLlama
		info.ContextInForce = props.Settings.NCtx
		info.ChatTemplate, info.BOS, info.EOS = props.ChatTemplate, props.BOS, props.EOS
		if !found && len(list.Data) == 1 {
			// llama-server serves one model whatever name is asked for.
			entry, found = list.Data[0], true
		}
		served := props.ModelPath
		if served == "" {
			served = entry.ID
		}
		info.Notes = append(info.Notes, fmt.Sprintf("llama-server answers for any model name with the one it serves (%s)", served))
		if props.BuildInfo != "" {
			info.Notes = append(info.Notes, "llama-server build "+props.BuildInfo)
		}
	}
	if found {
		if entry.Meta.NCtxTrain > 0 {
			info.ContextLength = entry.Meta.NCtxTrain
		}
		if info.ContextInForce == 0 && entry.Meta.NCtx > 0 {
			info.ContextInForce = entry.Meta.NCtx
		}
	}

	if info.Server == "" {
		var show ollamaShow
		st, _, err := c.getJSON(ctx, http.MethodPost, root+"/api/show", map[string]string{"model": c.model}, &show)
		if err == nil && st == http.StatusOK && show.ModelInfo != nil {
			info.Server = model.ServerOllama
			if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
				if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok {
					info.ContextLength = int(n)
				}
			}
			info.Capabilities = show.Capabilities
			info.Template = show.Template
			info.Notes = append(info.Notes, "Ollama behind /v1: no num_ctx can be sent; the server keeps its own window and drops old messages without a word when a prompt does not fit")
		}
	}

	switch {
	case found || info.Server == model.ServerLlama:
		return info, nil
	case listed:
		return info, fmt.Errorf("list models: %w", &model.Error{Code: model.CodeModelNotFound, Status: http.StatusNotFound,
			Message: fmt.Sprintf("the server does not list %s (it lists %s)", c.model, list.names())})
	}
	// No list: ask for the model itself, the route the OpenAI API has.
	var m struct {
		ID string `json:"id"`
	}
	status, msg, err = c.getJSON(ctx, http.MethodGet, base+"/models/"+url.PathEscape(c.model), nil, &m)
	switch {
	case err != nil:
		return info, fmt.Errorf("get model %s: %w", c.model, err)
	case status == http.StatusOK:
		return info, nil
	case status == http.StatusNotFound && strings.Contains(msg, c.model):
		return info, fmt.Errorf("get model %s: %w", c.model, model.FromStatus(status, msg, nil))
	}
	info.Notes = append(info.Notes, fmt.Sprintf("the server has no model list and no route for one model (HTTP %d): whether it has %s was not checked", status, c.model))
	return info, nil
}

// modelList is GET /models as Ollama and llama-server answer it: the
// OpenAI list (data), each entry with llama-server's meta beside it
// (llama-server also sends an Ollama-style "models" list, not read).
type modelList struct {
	Data []listEntry `json:"data"`
}

type listEntry struct {
	ID   string `json:"id"`
	Meta struct {
		NCtx      int `json:"n_ctx"`
		NCtxTrain int `json:"n_ctx_train"`
	} `json:"meta"`
}

// find returns the entry of the model named, taking Ollama's default tag
// into account ("tiny" is "tiny:latest").
func (l modelList) find(name string) (listEntry, bool) {
	for _, d := range l.Data {
		if d.ID == name || withTag(d.ID) == withTag(name) {
			return d, true
		}
	}
	return listEntry{}, false
}

func (l modelList) names() string {
	var ids []string
	for _, d := range l.Data {
		ids = append(ids, d.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func withTag(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// llamaProps is the part of llama-server's GET /props read here.
type llamaProps struct {
	Settings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	ModelPath    string `json:"model_path"`
	BuildInfo    string `json:"build_info"`
	ChatTemplate string `json:"chat_template"`
	BOS          string `json:"bos_token"`
	EOS          string `json:"eos_token"`
}

// ollamaShow is the part of Ollama's POST /api/show read here.
type ollamaShow struct {
	Template     string         `json:"template"`
	ModelInfo    map[string]any `json:"model_info"`
	Capabilities []string       `json:"capabilities"`
}

// getJSON makes one request and decodes a 200's body into out. It returns
// the status and, for other statuses, the server's error message; err is
// for an answer that never came (classified as Chat's are).
func (c *Client) getJSON(ctx context.Context, method, u string, body any, out any) (int, string, error) {
	actx, ex, stop := httpwatch.Start(ctx, c.idle)
	defer stop()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return 0, "", model.NewError(model.CodeBadRequest, err.Error(), err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", classify(ctx, actx, ex, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", classify(ctx, actx, ex, err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, errorMessage(b), nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		// A 200 that is not the JSON this route answers elsewhere (a web
		// page): for discovery, as good as no such route.
		return http.StatusUnsupportedMediaType, "the answer is not the JSON expected", nil
	}
	return resp.StatusCode, "", nil
}
