package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRecordingsLoad(t *testing.T) {
	names := Names()
	if len(names) < 14 {
		t.Fatalf("Names() = %d recordings, want the 14 recorded exchanges", len(names))
	}
	llama := NamesOf(FamilyLlamaServer)
	if len(llama) < 25 {
		t.Fatalf("NamesOf(llama-server) = %d recordings, want the 25 recorded exchanges", len(llama))
	}
	for _, name := range append(names, llama...) {
		rec, err := Load(name)
		if err != nil {
			t.Errorf("Load(%q): %v", name, err)
			continue
		}
		if strings.HasPrefix(name, "blob-head") {
			// HEAD /api/blobs/DIGEST: 404 for a blob the server lacks, 200
			// for one it has, and no body.
			if (rec.Status != http.StatusNotFound && rec.Status != http.StatusOK) || len(rec.Body) != 0 || rec.Method != http.MethodHead {
				t.Errorf("Load(%q) = %s, status %d, %d body bytes", name, rec.Method, rec.Status, len(rec.Body))
			}
			continue
		}
		if strings.HasPrefix(name, "blob-create") {
			// A blob upload is answered with a status alone (201, or 200
			// for a blob the server has), no body and no Content-Type.
			if (rec.Status != http.StatusCreated && rec.Status != http.StatusOK) || len(rec.Body) != 0 {
				t.Errorf("Load(%q) = status %d, %d body bytes", name, rec.Status, len(rec.Body))
			}
			continue
		}
		if rec.Status < 200 || rec.Header.Get("Content-Type") == "" || len(rec.Body) == 0 {
			t.Errorf("Load(%q) = status %d, Content-Type %q, %d body bytes", name, rec.Status, rec.Header.Get("Content-Type"), len(rec.Body))
		}
	}
	if got := MustLoad("chat-model-not-found").ErrorMessage(); got != "model 'llama3.1:8b' not found" {
		t.Errorf("chat-model-not-found message = %q", got)
	}
	if got := MustLoad("openai-model-not-found").ErrorMessage(); got != "model 'nope' not found" {
		t.Errorf("openai-model-not-found message = %q", got)
	}
	if rec := MustLoad("chat-stream"); rec.Method != "POST" || rec.Path != "/api/chat" || !json.Valid(rec.RequestBody) {
		t.Errorf("chat-stream request = %s %s %q", rec.Method, rec.Path, rec.RequestBody)
	}
}

// post sends body to url and returns the response and its whole body,
// with the read error (a cut stream shows there).
func post(t *testing.T, url, body string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// askAsRecorded sends body to url, checks that the answer has the
// recording's status and Content-Type, and returns the answer's units and
// the recording's: NDJSON lines or SSE events, or the whole bodies when the
// exchange was not streamed.
func askAsRecorded(t *testing.T, url, body string, rec Recording) (got, want [][]byte) {
	t.Helper()
	resp, b, err := post(t, url, body)
	ct := rec.Header.Get("Content-Type")
	if err != nil || resp.StatusCode != rec.Status || resp.Header.Get("Content-Type") != ct {
		t.Fatalf("%v: %d %q, recorded %d %q", err, resp.StatusCode, resp.Header.Get("Content-Type"), rec.Status, ct)
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		return splitAfter(b, []byte("\n\n")), rec.Units()
	case strings.HasPrefix(ct, "application/x-ndjson"):
		return splitAfter(b, []byte("\n")), rec.Units()
	}
	return [][]byte{b}, [][]byte{rec.Body}
}

func withoutCreatedAt(t *testing.T, line []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("decode %q: %v", line, err)
	}
	delete(m, "created_at")
	return m
}

// TestOllamaChunksMatchRecording: a generated reply with the recorded
// pieces is the recorded stream, field for field, but for the timestamps.
func TestOllamaChunksMatchRecording(t *testing.T) {
	srv := NewOllama(t)
	rec := MustLoad("chat-stream")
	srv.Push(Answer(Reply{Chunks: []string{"}", "~"}, DoneReason: "length", PromptTokens: 76, OutputTokens: 8}))
	resp, body, err := post(t, srv.URL+"/api/chat", string(rec.RequestBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != rec.Status || resp.Header.Get("Content-Type") != rec.Header.Get("Content-Type") {
		t.Errorf("status %d %q, recorded %d %q", resp.StatusCode, resp.Header.Get("Content-Type"), rec.Status, rec.Header.Get("Content-Type"))
	}
	got, want := splitAfter(body, []byte("\n")), rec.Units()
	if len(got) != len(want) {
		t.Fatalf("%d lines, recorded %d:\n%s", len(got), len(want), body)
	}
	for i := range want {
		if g, w := withoutCreatedAt(t, got[i]), withoutCreatedAt(t, want[i]); !reflect.DeepEqual(g, w) {
			t.Errorf("line %d:\n got %v\nwant %v", i+1, g, w)
		}
	}
}

// TestOpenAIStreamMatchesRecording: the generated SSE stream is the
// recorded one byte for byte.
func TestOpenAIStreamMatchesRecording(t *testing.T) {
	rec := MustLoad("openai-stream-usage")
	var req oaiRequest
	if err := json.Unmarshal(rec.RequestBody, &req); err != nil {
		t.Fatal(err)
	}
	units := streamUnits("chatcmpl-827", 1795991537, req, Reply{Chunks: []string{"Q", "~", "\b", "v"}, DoneReason: "length", PromptTokens: 29})
	if got := bytes.Join(units, nil); !bytes.Equal(got, rec.Body) {
		t.Errorf("generated stream:\n%s\nrecorded:\n%s", got, rec.Body)
	}
}

func TestOpenAICompletionMatchesRecording(t *testing.T) {
	rec := MustLoad("openai-nostream")
	var req oaiRequest
	if err := json.Unmarshal(rec.RequestBody, &req); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(completion("chatcmpl-675", 1795991537, req, Reply{Chunks: []string{"Q", "~", "\b", "v", "g", "$"}, DoneReason: "length", PromptTokens: 29, OutputTokens: 8}))
	if want := bytes.TrimSpace(rec.Body); !bytes.Equal(got, want) {
		t.Errorf("generated:\n%s\nrecorded:\n%s", got, want)
	}
}

func TestOllamaServer(t *testing.T) {
	chat := func(model, content string, opts string, extra string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"` + content + `"}],"options":` + opts + extra + `}`
	}
	long := strings.Repeat("abc def ", 100) // 800 bytes: 267 + 4 tokens
	tests := []struct {
		name       string
		steps      []Step
		body       string
		wantStatus int
		wantBody   string // a substring
		wantErr    bool   // the body read fails: a cut stream
		wantLines  int
	}{
		{name: "reply", steps: []Step{Text("hello there")}, body: chat("tiny", "hi", `{"num_ctx":256}`, ""), wantStatus: 200, wantBody: `"content":"hel"`, wantLines: 5},
		{name: "unknown model", body: chat("llama3.1:8b", "hi", `{}`, ""), wantStatus: 404, wantBody: `{"error":"model 'llama3.1:8b' not found"}`},
		{name: "unknown model keeps the step", steps: []Step{Text("x")}, body: chat("nope", "hi", `{}`, ""), wantStatus: 404},
		{name: "tools unsupported", body: chat("tiny", "hi", `{}`, `,"tools":[{"type":"function","function":{"name":"f"}}]`), wantStatus: 400, wantBody: `{"error":"registry.ollama.ai/library/tiny:latest does not support tools"}`},
		{name: "overflow with truncate false", steps: []Step{Text("x")}, body: chat("tiny", long, `{"num_ctx":128}`, `,"truncate":false`), wantStatus: 400, wantBody: `{"error":"the input length exceeds the context length"}`},
		{name: "silent truncation without it", steps: []Step{Text("x")}, body: chat("tiny", long, `{"num_ctx":128}`, ""), wantStatus: 200, wantBody: `"prompt_eval_count":128`},
		{name: "prompt counted", steps: []Step{Text("x")}, body: chat("tiny", "abcdefg", `{"num_ctx":128}`, ""), wantStatus: 200, wantBody: `"prompt_eval_count":7`},
		{name: "num_predict stops with length", steps: []Step{Text("abcdefghijkl")}, body: chat("tiny", "x", `{"num_predict":2}`, ""), wantStatus: 200, wantBody: `"done_reason":"length"`, wantLines: 3},
		{name: "recorded 500", steps: []Step{Fail(500, "boom")}, body: chat("tiny", "x", `{}`, ""), wantStatus: 500, wantBody: `{"error":"boom"}`},
		{name: "rate limited", steps: []Step{RateLimited("7")}, body: chat("tiny", "x", `{}`, ""), wantStatus: 429},
		{name: "recording replayed", steps: []Step{Recorded("chat-single-long-runner-cut")}, body: chat("tiny", "x", `{}`, ""), wantStatus: 200, wantBody: `"prompt_eval_count":128`, wantLines: 4},
		{name: "cut after a line", steps: []Step{Text("hello there").CutAfter(2)}, body: chat("tiny", "x", `{}`, ""), wantStatus: 200, wantErr: true, wantLines: 2},
		{name: "cut in a line", steps: []Step{Text("hello there").CutInLine(1)}, body: chat("tiny", "x", `{}`, ""), wantStatus: 200, wantErr: true, wantLines: 2},
		{name: "without done", steps: []Step{Text("hello there").WithoutDone()}, body: chat("tiny", "x", `{}`, ""), wantStatus: 200, wantLines: 4},
		{name: "error after output", steps: []Step{Text("hello there").ErrorAfter(1, "runner died")}, body: chat("tiny", "x", `{}`, ""), wantStatus: 200, wantBody: `{"error":"runner died"}`, wantLines: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewOllama(t)
			srv.Push(tt.steps...)
			resp, body, err := post(t, srv.URL+"/api/chat", tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("read error = %v, want error: %v", err, tt.wantErr)
			}
			if tt.wantErr && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read error = %v, want io.ErrUnexpectedEOF", err)
			}
			if !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("body does not contain %s:\n%s", tt.wantBody, body)
			}
			if tt.wantLines > 0 {
				if n := len(splitAfter(body, []byte("\n"))); n != tt.wantLines {
					t.Errorf("%d lines, want %d:\n%s", n, tt.wantLines, body)
				}
			}
			if got := len(srv.ChatRequests()); got != 1 {
				t.Errorf("%d chat requests logged, want 1", got)
			}
			if got := srv.ChatRequests()[0].Body; string(got) != tt.body {
				t.Errorf("logged body %s, sent %s", got, tt.body)
			}
		})
	}
}

func TestOllamaMetadata(t *testing.T) {
	srv := NewOllama(t)
	for _, path := range []string{"/api/tags", "/api/ps", "/api/version"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := strings.TrimPrefix(path, "/api/")
		if rec := MustLoad(name); resp.StatusCode != 200 || !bytes.Equal(body, rec.Body) {
			t.Errorf("GET %s = %d %s, want the recording", path, resp.StatusCode, body)
		}
	}
	resp, body, _ := post(t, srv.URL+"/api/show", `{"model":"tiny"}`)
	if resp.StatusCode != 200 || !bytes.Equal(body, MustLoad("show").Body) {
		t.Errorf("show tiny = %d, want the recording", resp.StatusCode)
	}
	resp, body, _ = post(t, srv.URL+"/api/show", `{"model":"nope"}`)
	if resp.StatusCode != 404 || string(body) != `{"error":"model 'nope' not found"}` {
		t.Errorf("show nope = %d %s", resp.StatusCode, body)
	}
}

func TestHangAndWait(t *testing.T) {
	srv := NewOllama(t)
	srv.Push(Hang())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/chat", strings.NewReader(`{"model":"tiny","messages":[]}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if err := srv.Wait(wctx, 1); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the request ended (%v) while the server hangs", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("request error = %v, want context.Canceled", err)
	}
}

func TestOpenAIServer(t *testing.T) {
	srv := NewOpenAI(t)
	srv.ContextLength = 64
	srv.Push(Answer(Reply{Content: "READ x.py", ToolCalls: nil}))
	resp, body, err := post(t, srv.URL+"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %v %d %q", err, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var events int
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
		}
	}
	// READ x.py is 9 bytes: 3 content chunks, finish, usage, [DONE].
	if events != 6 || !strings.HasSuffix(string(body), "data: [DONE]\n\n") || !strings.Contains(string(body), `"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}`) {
		t.Errorf("%d events:\n%s", events, body)
	}

	resp, body, _ = post(t, srv.URL+"/chat/completions", `{"model":"nope","messages":[{"role":"user","content":"x"}]}`)
	if want := string(MustLoad("openai-model-not-found").Body); resp.StatusCode != 404 || string(body) != want {
		t.Errorf("unknown model = %d %s, want the recording %s", resp.StatusCode, body, want)
	}
	resp, body, _ = post(t, srv.URL+"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"`+strings.Repeat("x", 300)+`"}]}`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "context_length_exceeded") {
		t.Errorf("overflow = %d %s", resp.StatusCode, body)
	}
}

// TestOllamaTrained: with Trained set, the server is the recorded model of
// trained context 4096 and does what the real one did with num_ctx 8192.
func TestOllamaTrained(t *testing.T) {
	srv := NewOllama(t)
	srv.Trained = Trained4096
	// About 6,000 tokens, as in chat-numctx-above-trained: above 4096.
	long := strings.Repeat("abc ", 4500)
	resp, body, _ := post(t, srv.URL+"/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"`+long+`"}],"options":{"num_ctx":8192},"truncate":false}`)
	if rec := MustLoad("chat-numctx-above-trained"); resp.StatusCode != 400 || !bytes.Equal(body, rec.Body) {
		t.Errorf("a prompt above the trained context with num_ctx 8192 = %d %s, want the recording", resp.StatusCode, body)
	}
	resp, body = getBody(t, srv.URL+"/api/ps")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"context_length":4096`) {
		t.Errorf("/api/ps after num_ctx 8192 = %s, want context_length 4096", body)
	}
	resp, body, _ = post(t, srv.URL+"/api/show", `{"model":"tiny"}`)
	if rec := MustLoad("show-tiny"); !bytes.Equal(body, rec.Body) {
		t.Errorf("/api/show = %d, want show-tiny", resp.StatusCode)
	}

	// With shift false, generation stops when prompt and output fill the
	// capped window: a 4000-token prompt leaves 96.
	srv.Push(Text(strings.Repeat("abc", 300)))
	prompt := strings.Repeat("abc", 4000-PerMessageTokens)
	resp, body, _ = post(t, srv.URL+"/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"`+prompt+`"}],"options":{"num_ctx":8192,"num_predict":600},"truncate":false,"shift":false}`)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"done_reason":"length"`) || !strings.Contains(string(body), `"prompt_eval_count":4000,`) || !strings.Contains(string(body), `"eval_count":96,`) {
		t.Errorf("context full: %d %.300s", resp.StatusCode, body[max(0, len(body)-400):])
	}
}

func getBody(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestOpenAIOllamaRoutes: the Ollama /v1 server lists its models as
// Ollama does, has /api/show beside /v1, and with Window set drops old
// messages without a word, as openai-silent-truncation shows.
func TestOpenAIOllamaRoutes(t *testing.T) {
	srv := NewOpenAI(t)
	root := strings.TrimSuffix(srv.URL, "/v1")
	_, body := getBody(t, srv.URL+"/models")
	if !strings.Contains(string(body), `"object":"list","data":[{"id":"tiny:latest","object":"model"`) {
		t.Errorf("/v1/models = %s", body)
	}
	_, body, _ = post(t, root+"/api/show", `{"model":"tiny"}`)
	if !bytes.Equal(body, MustLoad("show-tiny").Body) {
		t.Errorf("/api/show behind /v1 is not show-tiny")
	}

	srv.Window = 100
	srv.Push(Text("ok"))
	msg := func(role string, n int) string {
		return `{"role":"` + role + `","content":"` + strings.Repeat("abc", n-PerMessageTokens) + `"}`
	}
	// 10 + 60 + 60 + 20 tokens: the first 60 goes, 90 are kept.
	_, body, _ = post(t, srv.URL+"/chat/completions", `{"model":"tiny","messages":[`+msg("system", 10)+`,`+msg("user", 60)+`,`+msg("assistant", 60)+`,`+msg("user", 20)+`]}`)
	if !strings.Contains(string(body), `"prompt_tokens":90,`) {
		t.Errorf("silent truncation at 100: %s", body)
	}
}

// TestOpenAINewRecordingsMatch: the answers recorded with the model of
// trained context 4096 — a length stop, and the silent truncation of a
// 7,000-token prompt to 3,656 — are what the server generates for the
// same reply and counts.
func TestOpenAINewRecordingsMatch(t *testing.T) {
	for _, tt := range []struct {
		name           string
		prompt, output int
	}{{"openai-length-stop", 15, 16}, {"openai-silent-truncation", 3656, 16}} {
		rec := MustLoad(tt.name)
		var req oaiRequest
		if err := json.Unmarshal(rec.RequestBody, &req); err != nil {
			t.Fatal(err)
		}
		var recorded struct {
			ID      string `json:"id"`
			Created int64  `json:"created"`
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		json.Unmarshal(rec.Body, &recorded)
		got, _ := json.Marshal(completion(recorded.ID, recorded.Created, req, Reply{Chunks: []string{recorded.Choices[0].Message.Content}, DoneReason: "length", PromptTokens: tt.prompt, OutputTokens: tt.output}))
		if want := bytes.TrimSpace(rec.Body); !bytes.Equal(got, want) {
			t.Errorf("%s: generated\n%s\nrecorded\n%s", tt.name, got, want)
		}
	}
}

// While DropChats is on, a chat gets no answer at all and keeps its step,
// and the metadata a pre-flight asks for still answers; off again, the
// step is served.
func TestOllamaDropChats(t *testing.T) {
	srv := NewOllama(t)
	srv.Push(Text("hello there"))
	srv.DropChats(true)
	body := `{"model":"tiny","messages":[{"role":"user","content":"hi"}]}`
	if resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body)); err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped chat answered %d", resp.StatusCode)
	} else if !errors.Is(err, io.EOF) {
		t.Fatalf("a dropped chat: %v, want the connection closed (EOF)", err)
	}
	if resp, _, err := post(t, srv.URL+"/api/show", `{"model":"tiny"}`); err != nil || resp.StatusCode != 200 {
		t.Fatalf("show while chats drop: %v", err)
	}
	if srv.Pending() != 1 {
		t.Fatalf("the dropped chat used the step")
	}
	srv.DropChats(false)
	resp, got, err := post(t, srv.URL+"/api/chat", body)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(got), `"content":"hel"`) {
		t.Fatalf("chat after the drop: %v %s", err, got)
	}
}

// withoutTimes decodes an NDJSON line leaving out what differs between any
// two answers of the real server: the time and the measured durations
// (the counts stay).
func withoutTimes(t *testing.T, line []byte) map[string]any {
	t.Helper()
	m := withoutCreatedAt(t, line)
	for k := range m {
		if strings.HasSuffix(k, "_duration") {
			delete(m, k)
		}
	}
	return m
}

// recordedThinking is the thinking and the content of a recorded Ollama
// stream, chunk by chunk.
func recordedThinking(t *testing.T, rec Recording) (thinking, content []string) {
	t.Helper()
	for _, u := range rec.Units() {
		var c struct {
			Message struct{ Content, Thinking string } `json:"message"`
		}
		if err := json.Unmarshal(u, &c); err != nil {
			t.Fatal(err)
		}
		if c.Message.Thinking != "" {
			thinking = append(thinking, c.Message.Thinking)
		}
		if c.Message.Content != "" {
			content = append(content, c.Message.Content)
		}
	}
	return thinking, content
}

// TestOllamaThinking: the server does what the recorded one did with
// think: a model without the capability refuses it, one with it shows the
// capability, and a generated reply with thinking is the recorded stream
// (and stream:false answer) field for field, times and durations aside:
// thinking chunks with empty content, then content chunks, cut with
// "length" inside the thinking when num_predict runs out there.
func TestOllamaThinking(t *testing.T) {
	srv := NewOllama(t)
	srv.Push(Text("x"))
	unsupported := MustLoad("chat-think-unsupported")
	resp, body, _ := post(t, srv.URL+"/api/chat", string(unsupported.RequestBody))
	if resp.StatusCode != unsupported.Status || !bytes.Equal(body, unsupported.Body) {
		t.Errorf("think to a model without thinking = %d %s, want the recording", resp.StatusCode, body)
	}
	if srv.Pending() != 1 {
		t.Errorf("the refusal used the pushed step")
	}

	thinking, content := recordedThinking(t, MustLoad("chat-think-closed-stream"))
	if len(thinking) == 0 || len(content) == 0 {
		t.Fatalf("recorded stream: thinking %q, content %q", thinking, content)
	}
	for _, tt := range []struct {
		name  string
		reply Reply
		model string // the request names the recorded thinking model
	}{
		// The server's parser swallowed the closing tag: num_predict's
		// 16 tokens were spent on 14 chunks.
		{"chat-think-closed-stream", Reply{ThinkingChunks: thinking, Chunks: content, OutputTokens: 16, DoneReason: "length"}, "tiny-think-closes"},
		{"chat-think-closed-nostream", Reply{ThinkingChunks: thinking, Chunks: content, OutputTokens: 16, DoneReason: "length"}, "tiny-think-closes"},
		// num_predict 8 spent inside the thinking.
		{"chat-think-stream", Reply{ThinkingChunks: recordedPieces8(t), Content: "never reached"}, "tiny-think"},
		{"chat-think-nostream", Reply{ThinkingChunks: recordedPieces8(t), Content: "never reached"}, "tiny-think"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := MustLoad(tt.name)
			srv := NewOllama(t)
			srv.Thinking = true
			tt.reply.PromptTokens = 32 // the real tokenizer's count of the recorded prompt
			srv.Push(Answer(tt.reply))
			// The test server has the recorded tags' model, tiny.
			body := strings.Replace(string(rec.RequestBody), `"model":"`+tt.model+`"`, `"model":"tiny"`, 1)
			gotUnits, wantUnits := askAsRecorded(t, srv.URL+"/api/chat", body, rec)
			if len(gotUnits) != len(wantUnits) {
				t.Fatalf("%d lines, recorded %d:\n%s", len(gotUnits), len(wantUnits), bytes.Join(gotUnits, nil))
			}
			for i := range wantUnits {
				g, w := withoutTimes(t, gotUnits[i]), withoutTimes(t, wantUnits[i])
				w["model"] = "tiny"
				if !reflect.DeepEqual(g, w) {
					t.Errorf("line %d:\n got %v\nwant %v", i+1, g, w)
				}
			}
		})
	}

	srv.Thinking = true
	resp, body, _ = post(t, srv.URL+"/api/show", `{"model":"tiny"}`)
	if !bytes.Equal(body, MustLoad("show-think").Body) || !strings.Contains(string(body), `"capabilities":["completion","thinking"]`) {
		t.Errorf("/api/show of a thinking model = %d %.200s, want show-think", resp.StatusCode, body)
	}
}

// recordedPieces8 is the thinking of chat-think-stream, the reply that
// num_predict 8 cut inside its thinking.
func recordedPieces8(t *testing.T) []string {
	thinking, content := recordedThinking(t, MustLoad("chat-think-stream"))
	if len(content) != 0 {
		t.Fatalf("chat-think-stream has content %q", content)
	}
	return thinking
}
