package export_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/export"
)

func TestValidate(t *testing.T) {
	ok := export.DefaultOptions()
	ok.In, ok.Out = "in", "out"
	tests := []struct {
		name   string
		change func(*export.Options)
		want   string // "" for valid
	}{
		{"defaults", func(*export.Options) {}, ""},
		{"parquet", func(o *export.Options) { o.Format = "parquet" }, ""},
		{"dpo", func(o *export.Options) { o.Format = "dpo" }, ""},
		{"unknown format", func(o *export.Options) { o.Format = "csv" }, `format "csv"`},
		{"no input", func(o *export.Options) { o.In = "" }, "no input directory"},
		{"no output", func(o *export.Options) { o.Out = "" }, "no output directory"},
		{"unknown kind", func(o *export.Options) { o.Kinds = []string{"nudge"} }, `kind "nudge"`},
		{"known kind", func(o *export.Options) { o.Kinds = []string{"refusal-or-nudge"} }, ""},
		{"unknown source", func(o *export.Options) { o.Sources = []string{"prod"} }, `source "prod"`},
		{"alpha above 1", func(o *export.Options) { o.Alpha = 1.5 }, "alpha 1.5"},
		{"alpha NaN", func(o *export.Options) { o.Alpha = math.NaN() }, "alpha NaN"},
		{"alpha 0", func(o *export.Options) { o.Alpha = 0 }, ""},
		{"cap below 1", func(o *export.Options) { o.Cap = 0.5 }, "cap 0.5"},
		{"valid 1", func(o *export.Options) { o.Valid = 1 }, "valid 1"},
		{"nothing left to train", func(o *export.Options) { o.Valid, o.Test = 0.5, 0.5 }, "leave some for training"},
		{"negative test", func(o *export.Options) { o.Test = -0.1 }, "test -0.1"},
		{"threshold 0", func(o *export.Options) { o.Threshold = 0 }, "threshold 0"},
		{"no shard rows", func(o *export.Options) { o.ShardRows = 0 }, "shard rows 0"},
		{"messages layout", func(o *export.Options) { o.Layout = "messages" }, ""},
		{"unknown layout", func(o *export.Options) { o.Layout = "chatml" }, `layout "chatml"`},
		{"assistant-only layout", func(o *export.Options) { o.Layout = "assistant-only" }, ""},
		{"assistant-only layout with kept tool calls", func(o *export.Options) { o.Layout, o.KeepToolCalls = "assistant-only", true },
			"--keep-tool-calls"},
		{"preference pairs with the assistant-only layout and kept tool calls", func(o *export.Options) {
			o.Format, o.Layout, o.KeepToolCalls = export.FormatDPO, "assistant-only", true
		}, ""},
		{"reasoning drop", func(o *export.Options) { o.Reasoning = "drop" }, ""},
		{"unknown reasoning", func(o *export.Options) { o.Reasoning = "inline" }, `reasoning "inline"`},
		{"two problems", func(o *export.Options) { o.Format, o.Cap = "x", 0 }, "cap 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.change(&o)
			err := o.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
