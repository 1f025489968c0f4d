package eventjson_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpctrace/hpctrace/eventjson"
)

// A malformed event is reported with the stream name, the byte offset and
// the index of the event, in the message format every format package
// shares; errors.Is finds the sentinel and errors.As the position.
func ExampleParseError() {
	const doc = `{"format":"trace-events-json/1","ticks_per_second":1000,
"locations":[{"id":0,"name":"rank0"}],
"regions":[{"id":1,"name":"main","kind":"function"}],
"events":[{"t":0,"loc":0,"kind":"enter","region":1},{"t":"soon","loc":0,"kind":"leave","region":1}]}`
	src, err := eventjson.NewReader(strings.NewReader(doc), &eventjson.ReaderOptions{Path: "run.json"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range src.All() {
		if err == nil {
			continue
		}
		var pe *eventjson.ParseError
		if errors.As(err, &pe) {
			fmt.Println(pe.Path, pe.Record, errors.Is(err, eventjson.ErrSyntax))
		}
		fmt.Println(err)
	}
	// Output:
	// run.json 1 true
	// eventjson: run.json: offset 208: record 1: syntax error: want a number, got '"'
}
