package main

import (
	"context"
	"fmt"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/draft/learn"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// loadChatTemplate learns the syntax of the template a --chat-template
// file holds (a .jinja file, a tokenizer_config.json or a GGUF).
func loadChatTemplate(path string) (*draft.Syntax, error) {
	t, err := chattemplate.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--chat-template %s: %w", path, err)
	}
	return learn.Template(t), nil
}

// serverSyntax learns the syntax of the template the server reported: a
// llama-server's Jinja template from /props, or for Ollama the Jinja
// template of the model's GGUF where its file can be read (a local
// server), else the Go template of /api/show. from says which; err is a
// template that does not compile.
func serverSyntax(info model.Info) (syn *draft.Syntax, from string, err error) {
	if info.ChatTemplate == "" && info.WeightsFile != "" {
		// The template the model was published with specifies what it
		// writes; Ollama's Go template is a port of it. A file that cannot
		// be read, holds no template, or one that writes neither calls nor
		// reasoning (where the Go template may) leaves the Go template.
		if t, err := chattemplate.Load(info.WeightsFile); err == nil {
			if syn := learn.Template(t); syn.Calls != nil || syn.Reasoning != nil || info.Template == "" {
				return syn, "Ollama's model file (its GGUF's tokenizer.chat_template)", nil
			}
		}
	}
	switch {
	case info.ChatTemplate != "":
		t, err := chattemplate.Parse("/props", info.ChatTemplate, map[string]string{"bos_token": info.BOS, "eos_token": info.EOS})
		if err != nil {
			return nil, "", err
		}
		return learn.Template(t), "llama-server /props", nil
	case info.Template != "":
		t, err := learn.ParseOllama("/api/show", info.Template)
		if err != nil {
			return nil, "", err
		}
		return learn.Cached(learn.Digest(info.Template), t.Name, t), "Ollama /api/show", nil
	}
	return nil, "", nil
}

// useSyntax has the runs read the backend's replies with syn from now on
// and records it, or why there is none, on the model's run_start.
func (b *backend) useSyntax(syn *draft.Syntax, from, none string, think bool) {
	if think {
		// --think switches thinking on: where the template's prompt then
		// opens the reasoning, a reply begins inside it.
		syn = syn.Thinking()
	}
	if syn == nil {
		b.info.ChatSyntax = &schemas.ChatSyntax{None: none}
		return
	}
	b.info.ChatSyntax = learn.Record(syn, from)
	if syn.Calls == nil && syn.Reasoning == nil {
		b.syntax = nil
		return
	}
	// The run reads each reply with it (harness.Config.Syntax) and keeps
	// the reply as the model wrote it.
	b.syntax = syn
}

// learnFromServer learns from what the pre-flight heard of the model,
// unless --chat-template named the template.
func (b *backend) learnFromServer(f *modelFlags, info model.Info) {
	if f.chatTemplate != "" || b.info.Backend == schemas.BackendScripted || b.info.Backend == schemas.BackendReplay {
		return
	}
	syn, from, err := serverSyntax(info)
	switch {
	case err != nil:
		b.useSyntax(nil, "", "the server's chat template does not compile: "+err.Error(), false)
	case syn == nil:
		b.useSyntax(nil, "", "the server reported no chat template (give one with --chat-template)", false)
	default:
		b.useSyntax(syn, from, "", f.think)
	}
}

// withChatTemplates reads each collected run's replies with the syntax of
// its chat template: --chat-template (flag) for every run, or else a
// manifest entry's chat_template, which wins over the server's. A backend
// the flag's syntax is already on (openBackend) is left as it is.
func withChatTemplates(m collect.Model, flag string, think bool) collect.Model {
	return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
		be, err := m(ctx, it, pass, opts, slot)
		path := flag
		if path == "" && it.Entry != nil {
			path = it.Entry.ChatTemplate
		}
		if err != nil || path == "" || flag != "" && be.Model.ChatSyntax != nil {
			return be, err
		}
		syn, err := loadChatTemplate(path)
		if err != nil {
			return collect.Backend{Model: be.Model}, err
		}
		b := backend{chat: be.Chat, info: be.Model, syntax: be.Syntax}
		b.useSyntax(syn, path, "", think)
		return b.forRun(be.Model.Options), nil
	}
}
