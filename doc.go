// Package hpctrace is the root of a Go SDK for reading, writing, seeking and
// summarising HPC performance traces. The package itself holds no code; the
// work is done by its sub-packages:
//
//	picl    PICL new-format ASCII traces (Worley 1992), reader and writer
//	dumpi   SST DUMPI binary MPI traces, index-footer random access, writer
//	otf     Open Trace Format 1.x: streams, zlib, merged reading, seeking, writer
//	model   a small format-neutral event model that every format maps onto
//	stats   profiles, communication and interval statistics from model events
//
// Every reader has the same pull shape, modelled on bufio.Scanner: Next
// advances, Record returns the current record (owned by the reader and valid
// until the next call to Next), Err reports the first error, and All adapts
// the trio to a range loop:
//
//	r, err := picl.NewReader(f, nil)
//	if err != nil {
//		return err
//	}
//	for rec, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		fmt.Println(rec.Time, rec.Event)
//	}
//
// Readers allocate nothing per record in the steady state, writers reproduce
// the files they read byte for byte, and malformed input yields a typed
// ParseError naming the file, the position and the record index, never a
// panic.
//
// The programs under examples/ (picldump, dumpi2ascii, otfprint, otfaux,
// traceconv, tracestat) use only the exported API and double as its tour.
package hpctrace
