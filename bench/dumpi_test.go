package main

import (
	"strings"
	"testing"
	"testing/iotest"
)

func TestFirstDifference(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a\nb\n", "a\nb\n", 0},
		{long + "\n" + long, long + "\n" + long, 0},
		{"a\nb\n", "a\nc\n", 2},
		{"a\nb\n", "a\nb\nc\n", 3},
		{"a\nb", "a\nb\n", 2},
		{"x", "", 1},
		{long + "\n" + long + "a\n", long + "\n" + long + "b\n", 2},
		{long + "\nq\n", long + "\nq", 2},
	} {
		got, err := firstDifference(strings.NewReader(tc.a), iotest.OneByteReader(strings.NewReader(tc.b)))
		if err != nil || got != tc.want {
			t.Errorf("firstDifference(%.10q…, %.10q…) = %d, %v; want %d", tc.a, tc.b, got, err, tc.want)
		}
	}
	if _, err := firstDifference(strings.NewReader("a"), iotest.ErrReader(iotest.ErrTimeout)); err == nil {
		t.Error("a read error was not reported")
	}
}
