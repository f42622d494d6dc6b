package wiretest

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

//go:embed testdata/ollama testdata/llama-server
var recordings embed.FS

// Server families whose traffic was recorded: a recording's name is
// FAMILY/NAME, or a bare NAME for Ollama's (the first family recorded).
const (
	FamilyOllama      = "ollama"
	FamilyLlamaServer = "llama-server"
)

// Recording is one exchange recorded from a real server.
type Recording struct {
	Name   string
	Status int
	// Header holds the recorded Content-Type (and any Retry-After); the
	// transport headers (Date, Content-Length, Transfer-Encoding) are left
	// to the test server.
	Header http.Header
	Body   []byte
	// Method, Path and RequestBody are the request that produced it, when
	// it was recorded (NAME.request).
	Method, Path string
	RequestBody  []byte
}

// Names lists the recordings of Ollama, by bare name.
func Names() []string { return NamesOf(FamilyOllama) }

// NamesOf lists the recordings of a server family, as Load takes them:
// bare names for Ollama, FAMILY/NAME for the others.
func NamesOf(family string) []string {
	var names []string
	entries, _ := fs.ReadDir(recordings, "testdata/"+family)
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".headers"); ok {
			if family != FamilyOllama {
				name = family + "/" + name
			}
			names = append(names, name)
		}
	}
	return names
}

// Load reads the recording NAME (NAME.headers, NAME.body, NAME.request):
// "chat-stream" is Ollama's, "llama-server/props" llama-server's.
func Load(name string) (Recording, error) {
	rec := Recording{Name: name, Header: http.Header{}}
	dir := "testdata/" + FamilyOllama + "/"
	if strings.Contains(name, "/") {
		dir = "testdata/"
	}
	head, err := recordings.ReadFile(dir + name + ".headers")
	if err != nil {
		return rec, fmt.Errorf("load recording %s: %w", name, err)
	}
	if rec.Body, err = recordings.ReadFile(dir + name + ".body"); err != nil {
		return rec, fmt.Errorf("load recording %s: %w", name, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	for first := true; sc.Scan(); first = false {
		line := strings.TrimRight(sc.Text(), "\r")
		if first {
			// "HTTP/1.1 404 Not Found"
			f := strings.Fields(line)
			if len(f) < 2 {
				return rec, fmt.Errorf("load recording %s: status line %q", name, line)
			}
			if rec.Status, err = strconv.Atoi(f[1]); err != nil {
				return rec, fmt.Errorf("load recording %s: status line %q: %w", name, line, err)
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k = http.CanonicalHeaderKey(strings.TrimSpace(k)); k {
		case "Date", "Content-Length", "Transfer-Encoding":
		default:
			rec.Header.Add(k, strings.TrimSpace(v))
		}
	}
	if req, err := recordings.ReadFile(dir + name + ".request"); err == nil {
		// "# request: POST /api/chat" then "# {json}"
		lines := strings.Split(string(req), "\n")
		if len(lines) > 0 {
			f := strings.Fields(strings.TrimPrefix(lines[0], "# request:"))
			if len(f) == 2 {
				rec.Method, rec.Path = f[0], f[1]
			}
		}
		if len(lines) > 1 {
			rec.RequestBody = []byte(strings.TrimPrefix(lines[1], "# "))
		}
	}
	return rec, nil
}

// MustLoad is Load for recordings that are known to exist.
func MustLoad(name string) Recording {
	rec, err := Load(name)
	if err != nil {
		panic(err)
	}
	return rec
}

// Units splits the body into what the server flushed one at a time: NDJSON
// lines, or SSE events ("data: …\n\n"), each with its terminator.
func (r Recording) Units() [][]byte {
	sep := []byte("\n")
	if strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		sep = []byte("\n\n")
	}
	return splitAfter(r.Body, sep)
}

func splitAfter(body, sep []byte) [][]byte {
	var units [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, sep)
		if i < 0 {
			units = append(units, body)
			break
		}
		units = append(units, body[:i+len(sep)])
		body = body[i+len(sep):]
	}
	return units
}

// ErrorMessage returns the "error" of an error body, in Ollama's shape
// ({"error": "…"}) or OpenAI's ({"error": {"message": "…"}}).
func (r Recording) ErrorMessage() string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(r.Body, &v) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	json.Unmarshal(v.Error, &o)
	return o.Message
}
