package perr

import (
	"errors"
	"testing"
)

func TestFormat(t *testing.T) {
	sentinel := errors.New("syntax error")
	tests := []struct {
		path        string
		line        int
		offset, rec int64
		err         error
		want        string
	}{
		{"run.trf", 42, 1000, 41, sentinel, "picl: run.trf:42: offset 1000: record 41: syntax error"},
		{"run.trf", 0, 0, 0, sentinel, "picl: run.trf: offset 0: record 0: syntax error"},
		{"", 3, 7, 2, sentinel, "picl: line 3: offset 7: record 2: syntax error"},
		{"", 0, 0, 0, nil, "picl: offset 0: record 0: unknown error"},
		{"x.json", 0, 5, -1, sentinel, "picl: x.json: offset 5: header: syntax error"},
	}
	for _, tt := range tests {
		if got := Format("picl", tt.path, tt.line, tt.offset, tt.rec, tt.err); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got, want := Nil("otf"), "otf: <nil ParseError>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
