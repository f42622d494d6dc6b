package wiretest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// chunkFields decodes an SSE event or JSON body for comparison, leaving
// out what differs between any two answers of a real server: the id, the
// time, and the measured durations of timings (the counts stay).
func chunkFields(t *testing.T, unit []byte) map[string]any {
	t.Helper()
	data := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(unit)), "data: "))
	if data == "[DONE]" {
		return map[string]any{"done": true}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	delete(m, "id")
	delete(m, "created")
	if tm, ok := m["timings"].(map[string]any); ok {
		for k := range tm {
			if !strings.HasSuffix(k, "_n") {
				delete(tm, k)
			}
		}
	}
	return m
}

// recordedPieces is the content of a recorded llama-server stream, chunk
// by chunk.
func recordedPieces(t *testing.T, rec Recording) []string {
	t.Helper()
	var out []string
	for _, u := range rec.Units() {
		var c struct {
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(string(u)), "data: ")), &c)
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
			out = append(out, *c.Choices[0].Delta.Content)
		}
	}
	return out
}

// TestLlamaServerStreamsMatchRecordings: the generated answers are the
// recorded ones field for field (ids, times and measured durations
// aside), the usage chunk placement included: with include_usage, the
// finish chunk has no usage and a choices:[] chunk carries usage and
// timings; without it, the finish chunk carries the timings.
func TestLlamaServerStreamsMatchRecordings(t *testing.T) {
	for _, name := range []string{"openai-stream-usage", "openai-stream-nousage", "openai-nostream"} {
		t.Run(name, func(t *testing.T) {
			rec := MustLoad("llama-server/" + name)
			srv := NewLlamaServer(t)
			var pieces []string
			if strings.Contains(name, "stream-") {
				pieces = recordedPieces(t, rec)
			} else {
				var c struct {
					Choices []struct {
						Message struct{ Content string } `json:"message"`
					} `json:"choices"`
				}
				json.Unmarshal(rec.Body, &c)
				pieces = []string{c.Choices[0].Message.Content}
			}
			// The recorded prompt counts 37 tokens on the real tokenizer;
			// a first request has nothing cached.
			reply := Reply{Chunks: pieces, PromptTokens: 37}
			if name == "openai-nostream" {
				// One piece for the whole recorded text, which the real
				// tokenizer counted as 16, the max_tokens asked for.
				reply.OutputTokens, reply.DoneReason = 16, "length"
			}
			srv.Push(Answer(reply))
			got, want := askAsRecorded(t, srv.URL+"/chat/completions", string(rec.RequestBody), rec)
			if len(got) != len(want) {
				t.Fatalf("%d units, recorded %d:\n%s", len(got), len(want), bytes.Join(got, nil))
			}
			for i := range want {
				g, w := chunkFields(t, got[i]), chunkFields(t, want[i])
				if tm, ok := w["timings"].(map[string]any); ok && tm["cache_n"] != float64(0) {
					// Recorded with the prompt cached from the request
					// before; this server's first request has none.
					tm["prompt_n"], tm["cache_n"] = float64(37), float64(0)
					if u, ok := w["usage"].(map[string]any); ok {
						u["prompt_tokens_details"] = map[string]any{"cached_tokens": float64(0)}
					}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("unit %d:\n got %v\nwant %v", i+1, g, w)
				}
			}
		})
	}
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestLlamaServerRoutes(t *testing.T) {
	srv := NewLlamaServer(t)
	for path, name := range map[string]string{"/v1/models": "models", "/props": "props", "/slots": "slots", "/health": "health",
		"/v1/models/tiny": "models-get-tiny", "/v1/models/whatever": "models-get-whatever"} {
		resp, body := get(t, srv.Root+path)
		rec := MustLoad("llama-server/" + name)
		if resp.StatusCode != rec.Status || !bytes.Equal(body, rec.Body) || resp.Header.Get("Server") != "llama.cpp" {
			t.Errorf("GET %s = %d %s, want the recording %s", path, resp.StatusCode, body, name)
		}
	}

	small := NewLlamaServer(t)
	small.NCtx, small.NCtxTrain = 1024, 8192
	if _, body := get(t, small.Root+"/props"); !bytes.Contains(body, []byte(`"n_ctx":1024}`)) {
		t.Errorf("/props with NCtx 1024 does not say so")
	}
	if _, body := get(t, small.URL+"/models"); !bytes.Contains(body, []byte(`"n_ctx":1024,"n_ctx_train":8192`)) {
		t.Errorf("/v1/models with NCtx 1024, NCtxTrain 8192: %s", body)
	}
}

func TestLlamaServerChat(t *testing.T) {
	long := func(tokens int) string { return strings.Repeat("abc", tokens-PerMessageTokens) } // CountPrompt = tokens
	chat := func(content, extra string) string {
		return `{"model":"tiny","messages":[{"role":"user","content":"` + content + `"}],"temperature":0` + extra + `}`
	}
	overflow := MustLoad("llama-server/openai-overflow")
	tests := []struct {
		name       string
		steps      []Step
		body       string
		wantStatus int
		want       []string // substrings of the body
	}{
		{name: "any model name, the GGUF path echoed", steps: []Step{Text("hi there")},
			body: `{"model":"whatever","messages":[{"role":"user","content":"x"}]}`, wantStatus: 200,
			want: []string{`"model":"/models/tiny.gguf"`, `"content":"hi there"`, `"finish_reason":"stop"`, `"timings":{"cache_n":0,"prompt_n":5,`}},
		{name: "no model at all", steps: []Step{Text("hi")},
			body: `{"messages":[{"role":"user","content":"x"}]}`, wantStatus: 200, want: []string{`"model":"/models/tiny.gguf"`}},
		{name: "overflow: the recorded error with this prompt's count", steps: []Step{Text("x")},
			body: chat(long(3037), ""), wantStatus: 400, want: []string{string(bytes.TrimSpace(overflow.Body))}},
		{name: "overflow streamed: the same JSON, no stream", steps: []Step{Text("x")},
			body: chat(long(2100), `,"stream":true`), wantStatus: 400,
			want: []string{`"type":"exceed_context_size_error","n_prompt_tokens":2100,"n_ctx":2048}`, `request (2100 tokens) exceeds the available context size (2048 tokens)`}},
		{name: "the window fills during generation", steps: []Step{Text(strings.Repeat("abc", 200))},
			body: chat(long(1961), `,"max_tokens":600`), wantStatus: 200,
			want: []string{`"finish_reason":"length"`, `"usage":{"completion_tokens":87,"prompt_tokens":1961,"total_tokens":2048,`}},
		{name: "max_tokens", steps: []Step{Text(strings.Repeat("abc", 20))},
			body: chat("x", `,"max_tokens":4`), wantStatus: 200, want: []string{`"finish_reason":"length"`, `"completion_tokens":4,`}},
		{name: "recorded parse error, not streamed", steps: []Step{Recorded("llama-server/openai-peg-parse-error")},
			body: chat("x", ""), wantStatus: 500, want: []string{`does not match the expected peg-native format`}},
		{name: "an error event after the content, no [DONE]", steps: []Step{Text("hello there").ErrorAfter(3, "boom")},
			body: chat("x", `,"stream":true`), wantStatus: 200, want: []string{`data: {"error":{"code":500,"message":"boom","type":"server_error"}}`}},
		{name: "error status", steps: []Step{Fail(503, "Loading model")},
			body: chat("x", ""), wantStatus: 503, want: []string{`{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewLlamaServer(t)
			srv.Push(tt.steps...)
			resp, body, _ := post(t, srv.URL+"/chat/completions", tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("body does not contain %s:\n%.2000s", w, body)
				}
			}
			if strings.Contains(tt.name, "no [DONE]") && strings.Contains(string(body), "[DONE]") {
				t.Errorf("an error event ended with [DONE]")
			}
		})
	}
}

// TestLlamaServerPromptCache: a repeated prompt is served from the cache
// but for its last token, as recorded (cache_n 36, prompt_n 1 of 37).
func TestLlamaServerPromptCache(t *testing.T) {
	srv := NewLlamaServer(t)
	body := `{"model":"tiny","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello world"}]}`
	srv.Push(Text("a"), Text("b"))
	post(t, srv.URL+"/chat/completions", body)
	_, got, _ := post(t, srv.URL+"/chat/completions", body)
	prompt := CountPrompt([]string{"be brief", "hello world"})
	var c struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
			Details      struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
		Timings struct {
			CacheN  int `json:"cache_n"`
			PromptN int `json:"prompt_n"`
		} `json:"timings"`
	}
	if err := json.Unmarshal(got, &c); err != nil {
		t.Fatal(err)
	}
	if c.Usage.PromptTokens != prompt || c.Timings.CacheN != prompt-1 || c.Timings.PromptN != 1 || c.Usage.Details.Cached != prompt-1 {
		t.Errorf("second request: %+v, want prompt %d with %d cached", c, prompt, prompt-1)
	}
}

// recordedDeltas is the reasoning and the content of a recorded
// llama-server stream, chunk by chunk.
func recordedDeltas(t *testing.T, rec Recording) (reasoning, content []string) {
	t.Helper()
	for _, u := range rec.Units() {
		var c struct {
			Choices []struct {
				Delta struct {
					Reasoning *string `json:"reasoning_content"`
					Content   *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(string(u)), "data: ")), &c)
		if len(c.Choices) == 0 {
			continue
		}
		if d := c.Choices[0].Delta; d.Reasoning != nil {
			reasoning = append(reasoning, *d.Reasoning)
		} else if d.Content != nil {
			content = append(content, *d.Content)
		}
	}
	return reasoning, content
}

// choicesOf lists the choices of every unit that has some: what the
// server says of the reply, apart from the envelope.
func choicesOf(t *testing.T, units [][]byte) []any {
	t.Helper()
	var out []any
	for _, u := range units {
		if c, ok := chunkFields(t, u)["choices"].([]any); ok && len(c) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// TestLlamaServerReasoningMatchesRecordings: a generated reply with
// thinking comes as the recorded b5929 server (--reasoning-format
// deepseek) sent it: reasoning_content deltas, then content deltas, and
// with max_tokens spent inside the reasoning, reasoning only and
// "length"; not streamed, reasoning_content beside content. Only the
// choices are compared: the envelope (model echo, usage placement, cache
// figures) is the b10573 one the rest of this server follows.
func TestLlamaServerReasoningMatchesRecordings(t *testing.T) {
	reasoning, content := recordedDeltas(t, MustLoad("llama-server/openai-stream-reasoning"))
	if len(reasoning) == 0 || len(content) == 0 {
		t.Fatalf("recorded stream: reasoning %q, content %q", reasoning, content)
	}
	reply := Reply{ThinkingChunks: reasoning, Chunks: content}
	for _, name := range []string{"openai-stream-reasoning", "openai-stream-reasoning-cut", "openai-reasoning-nostream", "openai-reasoning-cut"} {
		t.Run(name, func(t *testing.T) {
			rec := MustLoad("llama-server/" + name)
			srv := NewLlamaServer(t)
			srv.Push(Answer(reply))
			got, want := askAsRecorded(t, srv.URL+"/chat/completions", string(rec.RequestBody), rec)
			if g, w := choicesOf(t, got), choicesOf(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("choices:\n got %v\nwant %v", g, w)
			}
		})
	}
}

// TestLlamaServerLoRAAdapters: GET /lora-adapters is the recorded answer
// of a server started without --lora, or, with LoRA set, the recorded
// entry of a server started with --lora FILE, once per file.
func TestLlamaServerLoRAAdapters(t *testing.T) {
	none := NewLlamaServer(t)
	resp, body := get(t, none.Root+"/lora-adapters")
	if rec := MustLoad("llama-server/lora-adapters-none"); resp.StatusCode != rec.Status || !bytes.Equal(body, rec.Body) {
		t.Errorf("without LoRA: %d %s, want the recording", resp.StatusCode, body)
	}
	srv := NewLlamaServer(t)
	srv.LoRA = []string{"/a/one.gguf", "/b/two.gguf"}
	resp, body = get(t, srv.Root+"/lora-adapters")
	var got []map[string]any
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	var rec []map[string]any
	json.Unmarshal(MustLoad("llama-server/lora-adapters").Body, &rec)
	if len(got) != 2 || got[0]["path"] != "/a/one.gguf" || got[1]["path"] != "/b/two.gguf" || got[1]["id"] != float64(1) || got[0]["scale"] != rec[0]["scale"] {
		t.Errorf("with two adapters: %s; recorded %v", body, rec)
	}
}
