package draft

import "github.com/pyharness/pyharness/schemas"

// NativeTools are the actions as native tools, offered to the model with
// --native-tools and written as the tools column of an export that keeps
// tool calls. Their names and arguments are the ones a tool call is read
// back by.
func NativeTools() []schemas.Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	obj := func(req []string, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	return []schemas.Tool{
		{Name: "read_file", Description: "Show a file, or a window of it.", Parameters: obj([]string{"path"}, map[string]any{
			"path": str("path relative to the repository root"), "start": map[string]any{"type": "integer"}, "end": map[string]any{"type": "integer"}})},
		{Name: "write_file", Description: "Create a file or replace it whole.", Parameters: obj([]string{"path", "content"}, map[string]any{
			"path": str("path relative to the repository root"), "content": str("the whole file")})},
		{Name: "patch_file", Description: "Replace one exact piece of a file you have read.", Parameters: obj([]string{"path", "find", "replace"}, map[string]any{
			"path": str("path"), "find": str("text copied exactly from the file"), "replace": str("what goes in its place")})},
		{Name: "run_tests", Description: "Run the test suite.", Parameters: obj(nil, map[string]any{})},
		{Name: "skill", Description: "Run a helper: locate NAME, outline FILE, scaffold-test MODULE.", Parameters: obj([]string{"name"}, map[string]any{
			"name": str("locate, outline or scaffold-test"), "args": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}})},
		{Name: "ask", Description: "Ask the person running you, before any file has changed.", Parameters: obj([]string{"question"}, map[string]any{"question": str("the question")})},
		{Name: "done", Description: "Finish, saying what you changed and how you checked it.", Parameters: obj([]string{"summary"}, map[string]any{"summary": str("summary")})},
	}
}
