package chattemplate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

// filterToJSON is transformers' tojson: json.dumps(x, ensure_ascii=False,
// indent=None, separators=None, sort_keys=False), not jinja2's own (which
// escapes < > & ' and sorts keys). Tool schemas and arguments reach the
// prompt through it, so every byte counts.
func filterToJSON(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), fmt.Errorf("tojson: no value")
	}
	e := jsonDumper{item: ", ", key: ": "}
	if v, ok := kwarg(kwargs, args, "ensure_ascii", 1); ok {
		e.ascii = v.IsTruthy()
	}
	if v, ok := kwarg(kwargs, args, "indent", 2); ok && !v.IsNone() {
		switch {
		case v.IsInt():
			e.indent = strings.Repeat(" ", int(max(v.AsInt(), 0)))
		case v.IsString():
			e.indent = v.AsString()
		default:
			return jinja.Undefined(), fmt.Errorf("tojson: indent %s", v.String())
		}
		e.indented = true
		e.item = ","
	}
	if v, ok := kwarg(kwargs, args, "separators", 3); ok && !v.IsNone() {
		if !v.IsList() || v.AsList().Len() != 2 || !v.AsList().Get(0).IsString() || !v.AsList().Get(1).IsString() {
			return jinja.Undefined(), fmt.Errorf("tojson: separators must be two strings")
		}
		e.item, e.key = v.AsList().Get(0).AsString(), v.AsList().Get(1).AsString()
	}
	if v, ok := kwarg(kwargs, args, "sort_keys", 4); ok {
		e.sort = v.IsTruthy()
	}
	if err := e.dump(args[0], 0); err != nil {
		return jinja.Undefined(), err
	}
	return jinja.NewString(e.b.String()), nil
}

// kwarg finds a parameter passed by name or at its position (after the
// value itself, which is args[0]).
func kwarg(kwargs map[string]jinja.Value, args []jinja.Value, name string, pos int) (jinja.Value, bool) {
	if v, ok := kwargs[name]; ok {
		return v, true
	}
	if pos < len(args) {
		return args[pos], true
	}
	return jinja.Value{}, false
}

type jsonDumper struct {
	b                 strings.Builder
	ascii, sort       bool
	indented          bool
	indent, item, key string
}

func (e *jsonDumper) newline(depth int) {
	if e.indented {
		e.b.WriteByte('\n')
		e.b.WriteString(strings.Repeat(e.indent, depth))
	}
}

func (e *jsonDumper) dump(v jinja.Value, depth int) error {
	switch {
	case v.IsNone():
		e.b.WriteString("null")
	case v.IsBool():
		e.b.WriteString(map[bool]string{true: "true", false: "false"}[v.AsBool()])
	case v.IsInt():
		e.b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		e.b.WriteString(pythonFloat(v.AsFloat()))
	case v.IsString():
		e.str(v.AsString())
	case v.IsList():
		items := v.AsList().Items
		if len(items) == 0 {
			e.b.WriteString("[]")
			return nil
		}
		e.b.WriteByte('[')
		for i, x := range items {
			if i > 0 {
				e.b.WriteString(e.item)
			}
			e.newline(depth + 1)
			if err := e.dump(x, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		keys := d.OrderedKeys()
		if e.sort {
			slices.Sort(keys)
		}
		if len(keys) == 0 {
			e.b.WriteString("{}")
			return nil
		}
		e.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.b.WriteString(e.item)
			}
			e.newline(depth + 1)
			e.str(k)
			e.b.WriteString(e.key)
			x, _ := d.Get(k)
			if err := e.dump(x, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte('}')
	case v.IsUndefined():
		return fmt.Errorf("tojson: Object of type Undefined is not JSON serializable")
	default:
		return fmt.Errorf("tojson: %s is not JSON serializable", v.String())
	}
	return nil
}

// str writes a string as Python's json encoder does: the short escapes
// for " \ \n \r \t \b \f, \u00XX for the other control characters, and
// with ensure_ascii every non-ASCII rune as \uXXXX (surrogate pairs
// beyond the BMP).
func (e *jsonDumper) str(s string) {
	e.b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			e.b.WriteString(`\"`)
		case '\\':
			e.b.WriteString(`\\`)
		case '\n':
			e.b.WriteString(`\n`)
		case '\r':
			e.b.WriteString(`\r`)
		case '\t':
			e.b.WriteString(`\t`)
		case '\b':
			e.b.WriteString(`\b`)
		case '\f':
			e.b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(&e.b, `\u%04x`, r)
			case e.ascii && r >= 0x7f:
				if r > 0xffff {
					r -= 0x10000
					fmt.Fprintf(&e.b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				} else {
					fmt.Fprintf(&e.b, `\u%04x`, r)
				}
			case r == utf8.RuneError:
				e.b.WriteRune(r)
			default:
				e.b.WriteRune(r)
			}
		}
	}
	e.b.WriteByte('"')
}

// pythonFloat is Python's repr of a float: the shortest digits that read
// back, in exponent form below 1e-4 and from 1e16, with ".0" on an
// integral value.
func pythonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return mant + "e" + string(sign) + exp
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
