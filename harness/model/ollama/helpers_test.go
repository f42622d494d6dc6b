package ollama_test

import "encoding/json"

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
