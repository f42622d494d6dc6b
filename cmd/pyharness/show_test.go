package main

import (
	"bytes"
	"context"
	"testing"
)

func TestCheckShowArgs(t *testing.T) {
	tests := []struct {
		name    string
		o       showOptions
		args    []string
		wantErr bool
	}{
		{"an id", showOptions{color: "auto"}, []string{"adhoc-1"}, false},
		{"two ids", showOptions{color: "auto"}, []string{"a", "b"}, false},
		{"a case", showOptions{caseID: "initials", color: "auto"}, nil, false},
		{"a case and a pass", showOptions{caseID: "initials", pass: 2, color: "auto"}, nil, false},
		{"the last", showOptions{last: true, color: "never"}, nil, false},
		{"nothing", showOptions{color: "auto"}, nil, true},
		{"an id and the last", showOptions{last: true, color: "auto"}, []string{"a"}, true},
		{"a case and an id", showOptions{caseID: "c", color: "auto"}, []string{"a"}, true},
		{"a pass alone", showOptions{pass: 2, color: "auto"}, []string{"a"}, true},
		{"a negative pass", showOptions{caseID: "c", pass: -1, color: "auto"}, nil, true},
		{"a bad colour", showOptions{color: "sometimes"}, []string{"a"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkShowArgs(tt.o, tt.args); (err != nil) != tt.wantErr {
				t.Errorf("checkShowArgs = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestUseColor(t *testing.T) {
	tests := []struct {
		name     string
		flag     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"auto on a terminal", "auto", true, nil, true},
		{"auto piped", "auto", false, nil, false},
		{"auto on a terminal with NO_COLOR", "auto", true, map[string]string{"NO_COLOR": "1"}, false},
		{"auto on a dumb terminal", "auto", true, map[string]string{"TERM": "dumb"}, false},
		{"always piped", "always", false, nil, true},
		{"always with NO_COLOR", "always", true, map[string]string{"NO_COLOR": "1"}, true},
		{"never on a terminal", "never", true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := useColor(tt.flag, tt.terminal, func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("useColor = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPagerCommand(t *testing.T) {
	tests := []struct {
		pager, want string
	}{
		{"", "less"},
		{"more", "more"},
		{"less -S", "less -S"},
		{"cat", ""},
		{"  ", "less"},
	}
	for _, tt := range tests {
		env := map[string]string{"PAGER": tt.pager}
		if got := pagerCommand(func(k string) string { return env[k] }); got != tt.want {
			t.Errorf("PAGER=%q: pager %q, want %q", tt.pager, got, tt.want)
		}
	}
}

func TestPage(t *testing.T) {
	tests := []struct {
		name  string
		pager string
		env   map[string]string
		want  string
	}{
		{"no pager", "", nil, "the transcript\n"},
		{"a pager, LESS set for it", `echo "LESS=$LESS"; sed 's/^/paged: /'`, nil, "LESS=FRX\npaged: the transcript\n"},
		{"LESS of the user's own", `echo "LESS=$LESS"; cat`, map[string]string{"LESS": "-S"}, "LESS=-S\nthe transcript\n"},
		{"a pager that is not there", "no-such-pager-anywhere", nil, "the transcript\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out, errs bytes.Buffer
			a := &app{stdout: &out, stderr: &errs, getenv: func(k string) string { return tt.env[k] }}
			if err := page(context.Background(), a, tt.pager, []byte("the transcript\n")); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("printed %q, want %q", out.String(), tt.want)
			}
		})
	}
}
