package otf2_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/hpctrace/hpctrace/otf2"
)

// ExampleOpen prints the regions entered in global time order.
func ExampleOpen() {
	a, err := otf2.Open("testdata/minimal/trace/traces.otf2")
	if err != nil {
		log.Fatal(err)
	}
	mr, err := a.MergedReader(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	for ev, err := range mr.All() {
		if err != nil {
			log.Fatal(err)
		}
		if e, ok := ev.Enter(); ok {
			r, _ := a.Defs.Region(e.Region)
			name, _ := a.Defs.Str(r.Name)
			fmt.Println(ev.Time, name)
		}
	}
	// Output:
	// 1000 main
	// 1500 foo
}

// ExampleEventReader_SeekTime positions a location's reader at a time.
func ExampleEventReader_SeekTime() {
	a, err := otf2.Open("testdata/minimal/trace/traces.otf2")
	if err != nil {
		log.Fatal(err)
	}
	r, err := a.EventReader(0)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if err := r.SeekTime(1200); err != nil {
		log.Fatal(err)
	}
	for r.Next() {
		fmt.Println(r.Event().Number, r.Event().Kind, r.Event().Time)
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 2 Enter 1500
	// 3 Leave 1500
	// 4 Leave 300000
}

// ExampleParseError shows the position a malformed file reports.
func ExampleParseError() {
	_, err := otf2.Open("testdata/nonexistent/traces.otf2")
	fmt.Println(err != nil)
	var pe *otf2.ParseError
	_, err = otf2.ReadAnchor(strings.NewReader("\x03\x42OTF3\x00"), "traces.otf2")
	if errors.As(err, &pe) {
		fmt.Println(pe.Path, pe.Offset, errors.Is(err, otf2.ErrFormat))
	}
	// Output:
	// true
	// traces.otf2 2 true
}
