package draft

import "testing"

// Calls in tags written in a model's own tokens, read by structure with no
// template: each shape of brackets, in families no test template uses.
func TestTokenWrittenTags(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		{"a token before every tag", `~@~<calls>~@~<invoke name="read_file">~@~<path>src/a.py~@~</path>~@~</invoke>~@~</calls>`, "READ src/a.py"},
		{"a namespace inside the bracket", "<｜X｜calls>\n<｜X｜invoke name=\"run_tests\">\n</｜X｜invoke>\n</｜X｜calls>", "RUN tests"},
		{"special tokens as brackets", `<|begin|>fn name="read_file"<|eoh|><|begin|>arg key="path"<|eoh|>src/a.py<|tag_end|>arg<|eoh|><|tag_end|>fn<|eoh|>`, "READ src/a.py"},
		{"strings written raw", "read_file\n{'path': 'src/it's.py'}", "READ src/it's.py"},
		{"a list in Python notation", `<function=skill><parameter=name>locate</parameter><parameter=args>['parse_args', 'main']</parameter></function>`, "SKILL locate parse_args main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.reply, nil)
			if err != nil || Canonical(a) != tc.want {
				t.Errorf("read as %q, %v; want %q", Canonical(a), err, tc.want)
			}
		})
	}
	// Two different calls, however written, are refused.
	_, err := Parse(`~@~<invoke name="read_file">~@~<path>a.py~@~</path>~@~</invoke>~@~<invoke name="read_file">~@~<path>b.py~@~</path>~@~</invoke>`, nil)
	if e, ok := err.(*Error); !ok || e.Code != codeAmbiguous {
		t.Errorf("two calls: %v, want %s", err, codeAmbiguous)
	}
}
