package suite

import (
	"bytes"
	"maps"
	"slices"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// goEventsMaxLine is the longest line goEvents holds to decode; test2json
// cuts a test's long output lines into events of about a kilobyte, so a
// longer line is not one of its events and passes through as text.
const goEventsMaxLine = 64 << 10

// goEvent is the part of a test2json event (go doc test2json) the counts
// need, each field unescaped into a buffer reused from line to line: a
// suite that prints megabytes is not decoded into strings.
type goEvent struct {
	action, pkg, test, failedBuild, output []byte
}

// parse reads a line as an event; false when it is not one.
func (ev *goEvent) parse(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return false
	}
	var ok bool
	if ev.action, ok = jsonStringField(line, "Action", ev.action[:0]); !ok || len(ev.action) == 0 {
		return false
	}
	ev.pkg, _ = jsonStringField(line, "Package", ev.pkg[:0])
	ev.test, _ = jsonStringField(line, "Test", ev.test[:0])
	ev.failedBuild, _ = jsonStringField(line, "FailedBuild", ev.failedBuild[:0])
	ev.output, _ = jsonStringField(line, "Output", ev.output[:0])
	return true
}

// goEvents is what "go test -json" writes to. It turns each event back into
// the text "go test -v" prints, for the output a person and the model read
// (and for readGoTest, which finds the failures' files and messages), and
// counts the tests as the events report them. Lines that are not events
// (the go command's own errors on stderr) pass through as they are.
//
// go test runs packages in parallel and -json interleaves their events, in
// an order that changes from run to run, so each package's text is held
// and written at the end in one piece, the packages in import-path order:
// "go test -v" prints each package's output together, readGoTest needs it
// so (a panic read after another package's lines was split into two
// failures), and two runs of the same suite read the same. A package's
// text is held as out holds the whole output, its head and tail, so memory
// stays bounded for a suite that prints megabytes.
type goEvents struct {
	mu       sync.Mutex
	out      *cappedOutput
	raw      int64 // bytes the process wrote
	line     []byte
	overlong bool // the current line outgrew goEventsMaxLine: passed through
	ev       goEvent
	rd       reading
	events   int
	// failedTest notes the packages where a test (or subtest) failed: a
	// package that fails without one is an error, as readGoTest counts it.
	failedTest map[string]bool
	// pending holds each package's text until the run ends.
	pending map[string]*heldText
}

func newGoEvents(out *cappedOutput) *goEvents {
	return &goEvents{out: out, failedTest: map[string]bool{}, pending: map[string]*heldText{}}
}

// heldText is one package's text: all of it while it is small, its head
// and tail (as cappedOutput keeps them) once it outgrows limit.
type heldText struct {
	limit  int
	buf    bytes.Buffer
	capped *cappedOutput
}

func (h *heldText) Write(p []byte) {
	if h.capped != nil {
		h.capped.Write(p)
		return
	}
	h.buf.Write(p)
	if h.buf.Len() > h.limit {
		h.capped = newCappedOutput(h.limit)
		h.capped.Write(h.buf.Bytes())
		h.buf = bytes.Buffer{}
	}
}

func (h *heldText) Bytes() []byte {
	if h.capped != nil {
		return []byte(h.capped.String())
	}
	return h.buf.Bytes()
}

// Write never fails, like cappedOutput's.
func (g *goEvents) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.raw += int64(len(p))
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		switch {
		case g.overlong:
			g.out.Write(chunk)
		case len(g.line)+len(chunk) > goEventsMaxLine:
			g.overlong = true
			g.out.Write(g.line)
			g.out.Write(chunk)
			g.line = g.line[:0]
		default:
			g.line = append(g.line, chunk...)
		}
		if i >= 0 {
			if !g.overlong {
				g.event(g.line)
			}
			g.line, g.overlong = g.line[:0], false
		}
	}
	return n, nil
}

// text holds a package's output until the run ends; output that is no
// package's goes out as it comes.
func (g *goEvents) text(pkg string, p []byte) {
	if len(p) == 0 {
		return
	}
	if pkg == "" {
		g.out.Write(p)
		return
	}
	h, ok := g.pending[pkg]
	if !ok {
		h = &heldText{limit: g.out.capacity()}
		g.pending[pkg] = h
	}
	h.Write(p)
}

// flush handles a last line that had no newline, and writes the packages'
// text held back, in import-path order. The run has ended: call it before
// reading the output.
func (g *goEvents) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.line) > 0 && !g.overlong {
		g.event(g.line)
	}
	g.line = g.line[:0]
	for _, pkg := range slices.Sorted(maps.Keys(g.pending)) {
		g.out.Write(g.pending[pkg].Bytes())
		delete(g.pending, pkg)
	}
}

// event reads one line: an event is counted and its output written as
// text; anything else is written as it came.
func (g *goEvents) event(line []byte) {
	ev := &g.ev
	if !ev.parse(line) {
		g.out.Write(line)
		return
	}
	g.events++
	pkg := string(ev.pkg)
	g.text(pkg, ev.output)
	action := string(ev.action) // short; compared, not kept
	switch action {
	case "pass", "fail", "skip":
	default:
		return
	}
	if len(ev.test) == 0 {
		// The package's own result: "ok", "FAIL", "[no test files]".
		g.rd.summary = true
		if action == "fail" && (len(ev.failedBuild) > 0 || !g.failedTest[string(ev.pkg)]) {
			g.rd.errors++
		}
		return
	}
	if action == "fail" {
		g.failedTest[string(ev.pkg)] = true
	}
	if bytes.IndexByte(ev.test, '/') >= 0 {
		return // subtests give detail; the top-level tests are counted
	}
	g.rd.ran++
	switch action {
	case "pass":
		g.rd.passed++
	case "fail":
		g.rd.failed++
	case "skip":
		g.rd.skipped++
	}
}

// counts is what the events said, and whether there were any.
func (g *goEvents) counts() (reading, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rd, g.events > 0
}

// jsonStringField appends the unescaped value of a top-level string field
// of a JSON object to buf. The key is found as `"Key":"`, which cannot
// occur inside a string value, where every quote is escaped.
func jsonStringField(obj []byte, key string, buf []byte) ([]byte, bool) {
	i := bytes.Index(obj, []byte(`"`+key+`":"`))
	if i < 0 {
		return buf, false
	}
	s := obj[i+len(key)+4:]
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '"':
			return buf, true
		case c != '\\':
			buf = append(buf, c)
			continue
		}
		j++
		if j >= len(s) {
			return buf, false
		}
		switch s[j] {
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'u':
			r, n := jsonRune(s[j+1:])
			if n == 0 {
				return buf, false
			}
			buf = utf8.AppendRune(buf, r)
			j += n
		default: // \" \\ \/
			buf = append(buf, s[j])
		}
	}
	return buf, false
}

// jsonRune reads the hex digits after \u, and a second \uXXXX that
// completes a surrogate pair; it returns the rune and the bytes it used.
func jsonRune(s []byte) (rune, int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		var v rune
		for _, c := range b[:4] {
			switch {
			case '0' <= c && c <= '9':
				v = v<<4 | rune(c-'0')
			case 'a' <= c && c <= 'f':
				v = v<<4 | rune(c-'a'+10)
			case 'A' <= c && c <= 'F':
				v = v<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return v, true
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if r2, ok := hex(s[6:]); ok {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				return pair, 10
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return r, 4
}
