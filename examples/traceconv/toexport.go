package main

import (
	"io"

	"github.com/hpctrace/hpctrace/export"
)

// toPerfetto writes the events of in in the Chrome Trace Event Format,
// which Perfetto and chrome://tracing open, in one streamed pass (see
// export.ChromeWriter for the mapping).
func toPerfetto(in modelInput, out string) error {
	return createFile(out, func(w io.Writer) error {
		src, closeSrc, err := in()
		if err != nil {
			return err
		}
		return closeAll(export.WriteChrome(w, src), closeSrc)
	})
}

// toCSV writes the tables of in (events, messages, regions, locations,
// flat profile) as CSV files into the directory out, in one streamed pass
// (see export.Tables for the schema).
func toCSV(in modelInput, out string) error {
	src, closeSrc, err := in()
	if err != nil {
		return err
	}
	return closeAll(export.WriteCSV(out, src), closeSrc)
}
