package schemas

// Tool is a native tool as a model is offered it (--native-tools): its
// name, what it does, and the JSON Schema of its arguments.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the tool's arguments.
	Parameters map[string]any
}
