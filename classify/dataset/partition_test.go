package dataset

import "testing"

func TestPartitionEscaping(t *testing.T) {
	tests := []struct{ in, dir string }{
		{"ollama:llama3.1:8b", "ollama%3Allama3.1%3A8b"},
		{"openai:Qwen/Qwen2.5-Coder-32B", "openai%3AQwen%2FQwen2.5-Coder-32B"},
		{"a b=c%d", "a%20b%3Dc%25d"},
		{"scripted", "scripted"},
		{"", "__HIVE_DEFAULT_PARTITION__"},
		{"é", "%C3%A9"},
	}
	for _, tt := range tests {
		if got := escapePartition(tt.in); got != tt.dir {
			t.Errorf("EscapePartition(%q) = %q, want %q", tt.in, got, tt.dir)
		}
		back, err := unescapePartition(tt.dir)
		if err != nil || back != tt.in {
			t.Errorf("UnescapePartition(%q) = %q, %v; want %q", tt.dir, back, err, tt.in)
		}
	}
	p := Partition{Source: "dogfood", Model: "openai:Qwen/Qwen2.5-Coder-32B"}
	back, err := parsePartitionDir(p.Dir())
	if err != nil || back != p {
		t.Errorf("ParsePartitionDir(%q) = %+v, %v", p.Dir(), back, err)
	}
	for _, bad := range []string{"source=x", "source=x/model=%4", "who=x/model=y", "source/model=y"} {
		if _, err := parsePartitionDir(bad); err == nil {
			t.Errorf("ParsePartitionDir(%q) took it", bad)
		}
	}
}
