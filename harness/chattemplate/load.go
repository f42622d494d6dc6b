package chattemplate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/internal/gguf"
)

// Load reads a chat template from a file: a tokenizer_config.json (by its
// .json extension), a GGUF model (by its magic), or else the template's
// Jinja source itself.
func Load(path string) (*Template, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load chat template: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(4); string(magic) == gguf.Magic {
		return readGGUF(path, br)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("load chat template: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return parseTokenizerConfig(path, data)
	}
	return Parse(path, string(data), nil)
}

// specialTokens are the tokenizer_config.json keys transformers passes to
// the template (its special_tokens_map).
var specialTokens = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// parseTokenizerConfig reads a Hugging Face tokenizer_config.json: its
// chat_template (a string, or a list of named templates of which
// transformers uses "default") and its special tokens (a string, or an
// AddedToken object with a "content").
func parseTokenizerConfig(name string, data []byte) (*Template, error) {
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("read tokenizer config %s: %w", name, err)
	}
	raw, ok := cfg["chat_template"]
	if !ok {
		return nil, fmt.Errorf("read tokenizer config %s: no chat_template", name)
	}
	var source string
	if err := json.Unmarshal(raw, &source); err != nil {
		var named []struct {
			Name     string `json:"name"`
			Template string `json:"template"`
		}
		if err := json.Unmarshal(raw, &named); err != nil {
			return nil, fmt.Errorf("read tokenizer config %s: chat_template is neither a string nor a list of {name, template}", name)
		}
		var names []string
		for _, n := range named {
			names = append(names, n.Name)
			if n.Name == "default" {
				source = n.Template
			}
		}
		if source == "" {
			return nil, fmt.Errorf("read tokenizer config %s: chat_template has no \"default\" template (it has %s)", name, strings.Join(names, ", "))
		}
		name += " (default)"
	}
	tokens := map[string]string{}
	for _, k := range specialTokens {
		raw, ok := cfg[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			tokens[k] = s
			continue
		}
		var added struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(raw, &added) == nil && added.Content != nil {
			tokens[k] = *added.Content
		}
	}
	return Parse(name, source, tokens)
}

// FetchProps reads the chat template a llama.cpp server reports at
// /props (its chat_template, bos_token and eos_token). baseURL may be the
// server's root or its OpenAI base URL ending in /v1.
func FetchProps(ctx context.Context, client *http.Client, baseURL string) (*Template, error) {
	root := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v1")
	url := root + "/props"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch chat template: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch chat template: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("fetch chat template from %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch chat template from %s: %s: %.200s", url, resp.Status, body)
	}
	var props struct {
		ChatTemplate *string `json:"chat_template"`
		BOS          *string `json:"bos_token"`
		EOS          *string `json:"eos_token"`
	}
	if err := json.Unmarshal(body, &props); err != nil {
		return nil, fmt.Errorf("fetch chat template from %s: %w", url, err)
	}
	if props.ChatTemplate == nil || *props.ChatTemplate == "" {
		return nil, fmt.Errorf("fetch chat template from %s: no chat_template (is this a llama.cpp server?)", url)
	}
	tokens := map[string]string{}
	if props.BOS != nil {
		tokens["bos_token"] = *props.BOS
	}
	if props.EOS != nil {
		tokens["eos_token"] = *props.EOS
	}
	return Parse(url, *props.ChatTemplate, tokens)
}
