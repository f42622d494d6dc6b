package draft

import "strings"

// The lexicon: the tool and argument names agent frameworks and model
// templates give the same few operations. Every call, in whatever wrapper
// it came (native tool calls, JSON, tags, special tokens, XML elements,
// Python call syntax), is mapped through it, so a new framework's format
// needs an entry here, not a reader of its own. Names are compared by
// their key (lower case, without "_", "-" and a dotted prefix such as
// "functions." or "default_api."), so read_file, readFile and ReadFile are
// one name.

// toolKind says how a tool's call becomes an action.
type toolKind int

const (
	// kindVerb: the tool is one of the protocol's verbs.
	kindVerb toolKind = iota
	// kindShell: the tool runs a shell command (its command argument),
	// which is read as a shell block is: a command that shows a file is a
	// READ, one that runs the tests a RUN, any other is refused. Without
	// a command it runs the tests.
	kindShell
	// kindEditor: one tool whose command argument names the operation
	// (view, create, str_replace), as the str_replace_editor of OpenHands,
	// SWE-agent and Anthropic's text editor tool have it.
	kindEditor
)

type tool struct {
	verb string
	kind toolKind
}

// toolTable lists the tool names of each kind and verb as frameworks
// spell them.
var toolTable = []struct {
	verb  string
	kind  toolKind
	names []string
}{
	{VerbRead, kindVerb, []string{"read", "read_file", "view", "view_file", "open", "open_file", "cat", "show_file", "get_file", "read_file_content", "get_file_contents"}},
	{VerbWrite, kindVerb, []string{"write", "write_file", "create", "create_file", "write_to_file", "new_file", "save_file", "overwrite_file"}},
	{VerbPatch, kindVerb, []string{"patch", "patch_file", "edit", "edit_file", "str_replace", "replace_in_file", "apply_diff", "search_replace", "replace", "modify_file", "apply_patch"}},
	{VerbRun, kindVerb, []string{"run_tests", "run_test", "test", "tests", "pytest"}},
	{"", kindShell, []string{"run", "execute", "bash", "shell", "execute_command", "execute_bash", "run_command", "run_shell", "run_terminal_cmd", "terminal", "cmd"}},
	{"", kindEditor, []string{"str_replace_editor", "str_replace_based_edit_tool", "text_editor", "file_editor", "editor"}},
	{VerbSkill, kindVerb, []string{"skill"}},
	{VerbAsk, kindVerb, []string{"ask", "ask_followup_question", "ask_user", "ask_question"}},
	{VerbDone, kindVerb, []string{"done", "finish", "submit", "attempt_completion", "complete", "task_complete", "final_answer"}},
}

// tools are the tool names by key.
var tools = toolsByKey()

func toolsByKey() map[string]tool {
	m := map[string]tool{}
	for _, row := range toolTable {
		for _, n := range row.names {
			m[nameKey(n)] = tool{row.verb, row.kind}
		}
	}
	return m
}

// editorCommands map an editor tool's command argument to a verb.
var editorCommands = map[string]string{
	"view": VerbRead, "read": VerbRead, "open": VerbRead,
	"create": VerbWrite, "write": VerbWrite,
	"strreplace": VerbPatch, "replace": VerbPatch, "edit": VerbPatch,
}

// Argument names by key, for each thing an action takes.
var (
	argPath    = argNames("path", "file", "file_path", "filePath", "filename", "file_name", "target_file", "absolute_path", "relative_path", "fname")
	argContent = argNames("content", "contents", "file_text", "text", "body", "code", "file_content", "file_contents", "data")
	argFind    = argNames("find", "search", "old", "old_str", "old_string", "old_text", "search_text", "old_code", "original")
	argReplace = argNames("replace", "replacement", "new", "new_str", "new_string", "new_text", "replace_text", "new_code", "updated")
	argDiff    = argNames("diff", "patch", "changes")
	argCommand = argNames("command", "cmd", "command_line", "script")
	argStart   = argNames("start", "start_line", "line_start", "from_line", "offset")
	argEnd     = argNames("end", "end_line", "line_end", "to_line")
	argRange   = argNames("view_range", "line_range", "lines", "range")
	argLimit   = argNames("limit")
	argName    = argNames("name", "skill")
	argArgs    = argNames("args", "arguments")
	argTarget  = argNames("target", "targets", "args", "test_path", "tests")
	argAsk     = argNames("question", "text", "message", "query", "prompt")
	argDone    = argNames("summary", "text", "message", "result", "answer", "output", "final_answer")
)

// argNames lists an argument's names as frameworks spell them; lookups
// compare their keys.
func argNames(names ...string) []string { return names }

// nameKey is the form names are compared in: the last part of a name
// under a namespace (functions.read_file, mcp__fs__text_editor,
// fs/read_file, fs:read_file), in lower case, without "_", "-" and
// spaces.
func nameKey(name string) string {
	n := strings.TrimSpace(name)
	for _, sep := range []string{".", "__", "/", ":"} {
		if i := strings.LastIndex(n, sep); i >= 0 && i+len(sep) < len(n) {
			n = n[i+len(sep):]
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(n) {
		if r != '_' && r != '-' && r != ' ' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lookupTool finds a tool by name.
func lookupTool(name string) (tool, bool) {
	t, ok := tools[nameKey(name)]
	return t, ok
}

// leadingName is the name s starts with: a letter or "_", then letters,
// digits, "_", "." and "-"; "" when s starts with none.
func leadingName(s string) string {
	if s == "" || !(s[0] == '_' || ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z')) {
		return ""
	}
	i := 1
	for i < len(s) && (isIdentByte(s[i]) || s[i] == '.' || s[i] == '-') {
		i++
	}
	return s[:i]
}

// isSkillName reports whether s is a skill's name: a letter, then
// letters, digits, "_" and "-".
func isSkillName(s string) bool {
	if s == "" || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// isLineMarker reports whether l is Roo Code's ":start_line:N" (or
// ":end_line:N") line inside a SEARCH block.
func isLineMarker(l string) bool {
	t := strings.TrimSpace(l)
	for _, m := range []string{":start_line:", ":end_line:"} {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.Trim(strings.TrimSpace(rest), "0123456789") == ""
		}
	}
	return false
}
