package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/gguf"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// parityAdapter is a LoRA adapter GGUF scripts/train_lora.py wrote (the
// parity test's, which llama-server --lora loaded when its answers were
// recorded): what a LoRA trainer leaves at {adapter}.
var parityAdapter = filepath.Join("..", "..", "export", "sfttokens", "testdata", "parity", "adapter.gguf")

// standInServe is the --serve command of the loop's llama-server tests:
// `stand-in-serve ... --port P ...` listens on 127.0.0.1:P and forwards
// every request to the recorded llama-server at STAND_IN_SERVE_UPSTREAM,
// so the loop talks to a process it started, as it would to llama-server
// started with those arguments. It writes its arguments, a line each, to
// STAND_IN_SERVE_ARGS.
func standInServe() int {
	args := os.Args[1:]
	if f := os.Getenv("STAND_IN_SERVE_ARGS"); f != "" {
		os.WriteFile(f, []byte(strings.Join(args, "\n")+"\n"), 0o644)
	}
	var port string
	for i, a := range args {
		if a == "--port" && i+1 < len(args) {
			port = args[i+1]
		}
	}
	up, err := url.Parse(os.Getenv("STAND_IN_SERVE_UPSTREAM"))
	if err != nil || port == "" || up.Host == "" {
		fmt.Fprintf(os.Stderr, "stand-in-serve: need --port and STAND_IN_SERVE_UPSTREAM (%v)\n", err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "stand-in-serve: listening on 127.0.0.1:%s\n", port)
	proxy := httputil.NewSingleHostReverseProxy(up)
	// A connection per request: a kept-alive one the recorded server has
	// closed would be answered 502 here and the client would retry a
	// request the server already answered.
	proxy.Transport = &http.Transport{DisableKeepAlives: true}
	proxy.ModifyResponse = func(r *http.Response) error {
		fmt.Fprintf(os.Stderr, "stand-in-serve: %s %s: %s\n", r.Request.Method, r.Request.URL.Path, r.Status)
		return nil
	}
	proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		fmt.Fprintf(os.Stderr, "stand-in-serve: %s %s: %v\n", r.Method, r.URL.Path, err)
		w.WriteHeader(http.StatusBadGateway)
	}
	err = http.ListenAndServe("127.0.0.1:"+port, proxy)
	fmt.Fprintln(os.Stderr, "stand-in-serve:", err)
	return 1
}

// adapterBase writes a base GGUF (header and zeroed data) holding, for
// each NAME.lora_a/.lora_b pair of the adapter, a tensor NAME of the
// shape llama.cpp applies the pair to, each dimension times scale: the
// base the adapter was trained on (scale 1), or one of another width.
func adapterBase(t *testing.T, adapter string, scale uint64) string {
	t.Helper()
	f, err := os.Open(adapter)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ah, err := gguf.ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	dims := map[string][2]uint64{}
	var names []string
	for _, ti := range ah.Tensors {
		if name, ok := strings.CutSuffix(ti.Name, ".lora_a"); ok {
			d := dims[name]
			d[0] = ti.Dims[0] * scale
			dims[name] = d
			names = append(names, name)
		} else if name, ok := strings.CutSuffix(ti.Name, ".lora_b"); ok {
			d := dims[name]
			d[1] = ti.Dims[1] * scale
			dims[name] = d
		}
	}
	h := &gguf.Header{Version: 3, KV: []gguf.KV{
		{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"},
		{Key: "llama.context_length", Type: gguf.TypeUint32, Value: uint32(4096)},
	}}
	var off uint64
	for _, name := range names {
		d := dims[name]
		h.Tensors = append(h.Tensors, gguf.TensorInfo{Name: name, Dims: []uint64{d[0], d[1]}, Type: gguf.TypeF32, Offset: off})
		off += (d[0]*d[1]*4 + 31) / 32 * 32
	}
	var b bytes.Buffer
	if _, err := h.WriteHeader(&b); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, off))
	path := filepath.Join(t.TempDir(), fmt.Sprintf("base-x%d.gguf", scale))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// freePort is a port nothing listens on just now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func fileDigest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b))
}

// TestLoopAdapterOllama: a LoRA trainer writes its adapter to {adapter};
// the import creates the student in Ollama FROM the base with it as
// ADAPTER (the blob sent, then /api/create as recorded from Ollama
// v0.17.4), the student is benched, and the table says how it was served.
func TestLoopAdapterOllama(t *testing.T) {
	f := newLoopFixture(t)
	f.student(t, 2)
	adapter, _ := filepath.Abs(parityAdapter)
	// A relative --out, as `--out loop` is: the Modelfile must name the
	// adapter by a path Ollama's parser finds from import/.
	t.Chdir(f.dir)
	out := filepath.Join(f.dir, "loop")
	code, stdout, stderr := runCLI(t, f.args("loop", "--base-file", adapterBase(t, adapter, 1), "--train", "test -s {data} && cp "+adapter+" {adapter}")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	digest := fileDigest(t, adapter)
	if got := f.srv.Adapter("tiny-loop"); got != digest {
		t.Errorf("tiny-loop was created with adapter %q, want the trained one %s", got, digest)
	}
	var create map[string]any
	for _, r := range f.srv.Requests() {
		if r.Path == "/api/create" {
			create = r.JSON()
		}
	}
	if create["from"] != "tiny" || fmt.Sprint(create["adapters"]) != fmt.Sprintf("map[adapter.gguf:%s]", digest) || create["files"] != nil {
		t.Errorf("/api/create = %v, want from tiny with adapters {adapter.gguf: %s} and no files", create, digest)
	}
	mf, _ := os.ReadFile(filepath.Join(out, "import", "Modelfile"))
	if !strings.Contains(string(mf), "FROM tiny\n") || !strings.Contains(string(mf), "ADAPTER "+filepath.Join(out, "train", "adapter.gguf")) {
		t.Errorf("Modelfile:\n%s", mf)
	}
	models := chatModels(f.srv)
	if len(models) == 0 || models[len(models)-1] != "tiny-loop" {
		t.Errorf("the student was not benched: chats to %v", models)
	}
	for _, want := range []string{"served as", "Ollama: tiny", "Ollama: FROM tiny + ADAPTER adapter.gguf", "2 of 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "wrote the LoRA adapter ") || !strings.Contains(stderr, "(Ollama's ADAPTER)") {
		t.Errorf("stderr does not say what the train and the import did:\n%s", stderr)
	}
}

// A train command that writes a whole model where the adapter goes, or
// nothing, fails the train stage and names what it found; an adapter of
// another base (twice the width, as the recorded mismatched adapter was)
// fails the import before anything is created, naming the first tensor
// that does not fit, where Ollama would create it and fail at the first
// chat.
func TestLoopAdapterRefused(t *testing.T) {
	f := newLoopFixture(t)
	adapter, _ := filepath.Abs(parityAdapter)
	wide := adapterBase(t, adapter, 2)
	for _, tt := range []struct{ name, base, train, stage, want string }{
		{"a model, not an adapter", f.base, "test -s {data} && cp " + f.base + " {adapter}", "train", "general.type is none, not adapter"},
		{"nothing written", f.base, "test -s {data} # {adapter}", "train", "wrote nothing to {adapter}"},
		{"another base", wide, "test -s {data} && cp " + adapter + " {adapter}", "import", "does not fit the base " + wide + ": blk.0.attn_k.weight is [128 64] there, and the adapter's lora_a is [64 4], lora_b [4 32]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "loop")
			code, _, stderr := runCLI(t, f.args(out, "--base-file", tt.base, "--train", tt.train)...)
			if code == 0 || !strings.Contains(stderr, "loop: "+tt.stage+": ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want a failed %s stage saying %q:\n%s", code, tt.stage, tt.want, stderr)
			}
			if f.srv.Created("tiny-loop") {
				t.Error("a model was created")
			}
		})
	}
}

// TestLoopAdapterLlamaServer: with --import llama-server the loop starts
// the --serve command with {base} and {adapter}, waits until the server
// lists the adapter at GET /lora-adapters (as recorded from llama-server
// started with --lora), benches the student there, says so in the table,
// and stops the server when it ends.
func TestLoopAdapterLlamaServer(t *testing.T) {
	f := newLoopFixture(t)
	adapter, _ := filepath.Abs(parityAdapter)
	train := "test -s {data} && cp " + adapter + " {adapter}"
	base := adapterBase(t, adapter, 1)
	for _, tt := range []struct {
		name    string
		serve   string
		loaded  bool // the server lists the adapter
		wantErr string
	}{
		{"served with --lora", "stand-in-serve -m {base} --lora {adapter} --port PORT", true, ""},
		{"started without --lora", "stand-in-serve -m {base} --port PORT # {adapter}", false, "loaded no adapter (GET /lora-adapters: [])"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls := wiretest.NewLlamaServer(t)
			ls.NCtx = 16384 // -c 16384: the bench's prompts fit
			out := filepath.Join(t.TempDir(), "loop")
			want := filepath.Join(out, "train", "adapter.gguf")
			if tt.loaded {
				ls.LoRA = []string{want}
			}
			// The clean drafts for both passes, then replies enough for
			// the step budget: on a loaded machine a run's test command
			// can time out and the run take a turn more, and every request
			// must still be answered.
			for range 2 {
				for _, d := range cleanDrafts(t, "initials")[0] {
					ls.Push(wiretest.Text(d))
				}
			}
			for range 12 {
				ls.Push(wiretest.Text("I would look at the code first."))
			}
			port := freePort(t)
			studentURL := "http://127.0.0.1:" + port
			argsFile := filepath.Join(t.TempDir(), "args")
			t.Setenv("STAND_IN_SERVE_UPSTREAM", ls.Root)
			t.Setenv("STAND_IN_SERVE_ARGS", argsFile)
			created := len(f.srv.Requests())
			code, stdout, stderr := runCLI(t, f.args(out, "--base-file", base, "--train", train, "--import", "llama-server",
				"--serve", strings.ReplaceAll(tt.serve, "PORT", port), "--student-url", studentURL)...)
			if resp, err := http.Get(studentURL + "/health"); err == nil {
				resp.Body.Close()
				t.Errorf("the server the loop started still answers at %s after the loop ended", studentURL)
			}
			for _, r := range f.srv.Requests()[created:] {
				if r.Path == "/api/create" || strings.Contains(string(r.Body), "tiny-loop") {
					t.Errorf("the student went to Ollama: %s %s", r.Path, r.Body)
				}
			}
			if tt.wantErr != "" {
				if code == 0 || !strings.Contains(stderr, "loop: import: ") || !strings.Contains(stderr, tt.wantErr) {
					t.Errorf("exit %d, want a failed import saying %q:\n%s", code, tt.wantErr, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			defer func() {
				if t.Failed() {
					log, _ := os.ReadFile(filepath.Join(out, "import", "server.log"))
					t.Logf("import/server.log:\n%s", log)
					filepath.WalkDir(filepath.Join(out, "bench-trained"), func(p string, d os.DirEntry, err error) error {
						if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
							b, _ := os.ReadFile(p)
							t.Logf("%s:\n%.3000s", p, b)
						}
						return nil
					})
				}
			}()
			got, _ := os.ReadFile(argsFile)
			for _, pair := range []string{"--lora\n" + want, "-m\n" + base} {
				if !strings.Contains(string(got), pair) {
					t.Errorf("the server was started with\n%s\nwant %q in it", got, pair)
				}
			}
			if n := len(ls.ChatRequests()); n == 0 {
				t.Error("the student was not benched on the server the loop started")
			}
			for _, want := range []string{"served as", "Ollama: tiny", "llama-server --lora adapter.gguf (" + studentURL + ")", "after: tiny-loop"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			// The student's drafts were read: the after column of the
			// actions row is not nothing.
			for _, line := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(line, "read as an action") && strings.HasSuffix(strings.TrimSpace(line), " 0 (0%)") {
					t.Errorf("the student's drafts were not read: %s", line)
				}
			}
			if script, _ := os.ReadFile(filepath.Join(out, "import", "serve.sh")); !strings.Contains(string(script), "--lora "+want) {
				t.Errorf("import/serve.sh = %q", script)
			}
		})
	}
}
