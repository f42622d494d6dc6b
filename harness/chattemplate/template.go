package chattemplate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a compiled chat template with the special tokens its
// tokenizer passes to it.
type Template struct {
	// Name says where the template came from (a file, a GGUF key, a
	// server's /props), for messages and the dataset card.
	Name   string
	Source string
	// Tokens are the tokenizer's special tokens (bos_token, eos_token, …)
	// that transformers passes to the template as variables.
	Tokens map[string]string
	// Now is the clock of strftime_now; nil means time.Now.
	Now func() time.Time

	tmpl *jinja.Template
}

// Parse compiles a chat template's Jinja source.
func Parse(name, source string, tokens map[string]string) (*Template, error) {
	t, err := jinja.Compile(tojsonFilter.ReplaceAllString(source, "|"+hfToJSON))
	if err != nil {
		return nil, fmt.Errorf("compile chat template %s: %w", name, err)
	}
	if tokens == nil {
		tokens = map[string]string{}
	}
	return &Template{Name: name, Source: source, Tokens: tokens, tmpl: t}, nil
}

// The engine's own tojson sorts keys when indenting and formats floats and
// some escapes otherwise than Python's json.dumps, and its built-in
// filters cannot be replaced; a filter it does not know it looks up among
// the variables. So the template's tojson is renamed to one it does not
// know, which is transformers' (filterToJSON).
const hfToJSON = "transformers_tojson"

var tojsonFilter = regexp.MustCompile(`\|\s*tojson\b`)

// Conversation is what apply_chat_template is given: messages (JSON
// objects, *Object or map[string]any), the tools column (nil when the row
// has none: transformers then passes None) and whether to end with the
// generation prompt.
type Conversation struct {
	Messages            []any
	Tools               []any
	AddGenerationPrompt bool
	// Vars are further variables apply_chat_template passes as keyword
	// arguments (enable_thinking, thinking), nil for none.
	Vars map[string]any
}

// Render renders a conversation as transformers' apply_chat_template does
// with tokenize=False. Its error is the template's own (a
// raise_exception message, an undefined method).
func (t *Template) Render(c Conversation) (string, error) {
	out, err := t.render(c)
	if err != nil {
		return "", fmt.Errorf("render chat template %s: %w", t.Name, err)
	}
	return out, nil
}

// render renders with the engine's error as it is: the template's own
// message, which a *rowError names the template beside.
func (t *Template) render(c Conversation) (string, error) {
	data := map[string]jinja.Value{
		"messages":              toValue(c.Messages),
		"add_generation_prompt": jinja.NewBool(c.AddGenerationPrompt),
		"tools":                 jinja.None(),
		"documents":             jinja.None(),
		"strftime_now":          jinja.NewCallable("strftime_now", t.strftimeNow),
		hfToJSON:                jinja.NewCallable(hfToJSON, filterToJSON),
	}
	if c.Tools != nil {
		data["tools"] = toValue(c.Tools)
	}
	for k, v := range t.Tokens {
		data[k] = jinja.NewString(v)
	}
	for k, v := range c.Vars {
		data[k] = toValue(v)
	}
	return t.tmpl.RenderValues(data)
}

// toValue converts decoded JSON to the engine's values, keeping the key
// order of an *Object (a map[string]any has none to keep: sorted).
func toValue(v any) jinja.Value {
	switch v := v.(type) {
	case *Object:
		d := jinja.NewDict()
		for _, k := range v.keys {
			d.AsDict().Set(k, toValue(v.vals[k]))
		}
		return d
	case []any:
		items := make([]jinja.Value, len(v))
		for i, x := range v {
			items[i] = toValue(x)
		}
		return jinja.NewList(items)
	case json.Number, nil, bool, string, int, int64, float64, map[string]any:
		return jinja.FromGoValue(v)
	}
	return jinja.FromGoValue(v)
}

func (t *Template) strftimeNow(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 1 || !args[0].IsString() {
		return jinja.Undefined(), fmt.Errorf("strftime_now() takes one format string")
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	return jinja.NewString(strftime(now(), args[0].AsString())), nil
}

// strftime formats t as C's strftime (and so Python's datetime.strftime
// on Linux) does, for the directives chat templates use.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		pad := true
		if format[i] == '-' && i+1 < len(format) { // glibc: no padding
			pad = false
			i++
		}
		num := func(n, width int) {
			s := strconv.Itoa(n)
			if pad {
				for len(s) < width {
					s = "0" + s
				}
			}
			b.WriteString(s)
		}
		switch format[i] {
		case 'Y':
			num(t.Year(), 4)
		case 'y':
			num(t.Year()%100, 2)
		case 'm':
			num(int(t.Month()), 2)
		case 'd':
			num(t.Day(), 2)
		case 'e':
			s := strconv.Itoa(t.Day())
			if len(s) < 2 && pad {
				s = " " + s
			}
			b.WriteString(s)
		case 'H':
			num(t.Hour(), 2)
		case 'I':
			num((t.Hour()+11)%12+1, 2)
		case 'M':
			num(t.Minute(), 2)
		case 'S':
			num(t.Second(), 2)
		case 'j':
			num(t.YearDay(), 3)
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
