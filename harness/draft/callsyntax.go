package draft

import "strings"

// parseCall reads Python-like call arguments from s, which starts at "(".
// It returns how many bytes the call took.
func parseCall(s string) (callArgs, int, string) {
	c := callArgs{kw: map[string]any{}}
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return c, i, "the call is not closed with )"
		}
		if s[i] == ')' {
			return c, i + 1, ""
		}
		key := ""
		if k := identEnd(s, i); k > i {
			j := skipSpace(s, k)
			if j < len(s) && s[j] == '=' && (j+1 >= len(s) || s[j+1] != '=') {
				key, i = s[i:k], skipSpace(s, j+1)
			}
		}
		v, next, reason := parseValue(s, i, 0)
		if reason != "" {
			return c, next, reason
		}
		if key != "" {
			c.kw[nameKey(key)] = v
		} else {
			c.pos = append(c.pos, v)
		}
		i = skipSpace(s, next)
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i >= len(s) {
			return c, i, "the call is not closed with )"
		}
		if s[i] == ')' {
			return c, i + 1, ""
		}
		return c, i, "expected , or ) between arguments"
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func identEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == '_' || ('a' <= s[j] && s[j] <= 'z') || ('A' <= s[j] && s[j] <= 'Z') || (j > i && '0' <= s[j] && s[j] <= '9')) {
		j++
	}
	return j
}

// parseValue reads one argument: a string literal (any Python quoting), a
// list, a dict, or a bare word up to the next "," or ")".
func parseValue(s string, i, depth int) (any, int, string) {
	if depth > 8 {
		return nil, i, "arguments nested too deeply"
	}
	if i >= len(s) {
		return nil, i, "the call is not closed with )"
	}
	// String prefixes: r"..", b"..", f"..", rb"..".
	j := i
	raw := false
	for j < len(s) && j-i < 2 && strings.ContainsRune("rRbBfFuU", rune(s[j])) {
		if s[j] == 'r' || s[j] == 'R' {
			raw = true
		}
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		return parseString(s, j, raw)
	}
	switch s[i] {
	case '{':
		return parseDict(s, i, depth)
	case '[', '(':
		closeCh := byte(']')
		if s[i] == '(' {
			closeCh = ')'
		}
		var list []any
		k := i + 1
		for {
			k = skipSpace(s, k)
			if k >= len(s) {
				return nil, k, "a list is not closed"
			}
			if s[k] == closeCh {
				return list, k + 1, ""
			}
			v, next, reason := parseValue(s, k, depth+1)
			if reason != "" {
				return nil, next, reason
			}
			list = append(list, v)
			k = skipSpace(s, next)
			if k < len(s) && s[k] == ',' {
				k++
				continue
			}
			if k < len(s) && s[k] == closeCh {
				return list, k + 1, ""
			}
			return nil, k, "expected , or " + string(closeCh) + " in a list"
		}
	}
	k, level := i, 0
	for k < len(s) {
		c := s[k]
		if level == 0 && (c == ',' || c == ')' || c == ']' || c == '}' || c == '\n') {
			break
		}
		switch c {
		case '(', '[', '{':
			level++
		case ')', ']', '}':
			level--
		}
		k++
	}
	w := strings.TrimSpace(s[i:k])
	if w == "" {
		return nil, k, "an argument is empty"
	}
	return bareWord(w), k, ""
}

// parseDict reads a dict literal whose keys are strings or names.
func parseDict(s string, i, depth int) (any, int, string) {
	obj := map[string]any{}
	k := i + 1
	for {
		k = skipSpace(s, k)
		if k >= len(s) {
			return nil, k, "a dict is not closed"
		}
		if s[k] == '}' {
			return obj, k + 1, ""
		}
		var key string
		if s[k] == '"' || s[k] == '\'' {
			v, next, reason := parseString(s, k, false)
			if reason != "" {
				return nil, next, reason
			}
			key, k = v.(string), next
		} else {
			e := identEnd(s, k)
			if e == k {
				return nil, k, "a dict's key is neither a string nor a name"
			}
			key, k = s[k:e], e
		}
		k = skipSpace(s, k)
		if k >= len(s) || s[k] != ':' {
			return nil, k, "expected : after a dict's key"
		}
		v, next, reason := parseValue(s, skipSpace(s, k+1), depth+1)
		if reason != "" {
			return nil, next, reason
		}
		obj[key] = v
		k = skipSpace(s, next)
		if k < len(s) && s[k] == ',' {
			k++
		}
	}
}

// parseString reads a Python string literal starting at its quote. Only the
// escapes a model writes in code are decoded; others are kept as written.
func parseString(s string, i int, raw bool) (any, int, string) {
	q := s[i]
	delim := s[i : i+1]
	if strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		delim = s[i : i+3]
	}
	var b strings.Builder
	k := i + len(delim)
	for k < len(s) {
		if strings.HasPrefix(s[k:], delim) {
			return b.String(), k + len(delim), ""
		}
		c := s[k]
		if c == '\\' && k+1 < len(s) {
			n := s[k+1]
			if raw {
				b.WriteByte(c)
				b.WriteByte(n)
				k += 2
				continue
			}
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\\', '\'', '"':
				b.WriteByte(n)
			case '\n':
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			k += 2
			continue
		}
		b.WriteByte(c)
		k++
	}
	return nil, k, "a string is not closed"
}
