// Package model is the format-neutral event model onto which the PICL, DUMPI,
// OTF and OTF2 readers map, and from which package stats computes profiles.
//
// A trace is a stream of fixed-size [Event] values (enter and leave a region,
// send and receive a message, begin and end a collective, counter samples and
// markers) together with its definitions, [Defs]: locations, regions, call
// sites, communicators, counters, PICL event-type subsets, the statistics the
// trace itself recorded and how they are defined ([RelativeStats]), an
// interned string table and the [TimeBase].
// Events refer to definitions by small integer ids (LocID, RegionID, …), so
// reading a trace allocates nothing per event. Id 0 always means "none".
// Times are int64 ticks of the trace's own clock ([Time]); the number of
// ticks per second is in Defs.TimeBase. The model is described in
// doc/stats.md §2.
//
// A [Source] has the pull shape of every reader in the SDK: Next advances,
// Event returns the current event (owned by the source, valid until the next
// Next), Err reports the first error, Defs the definitions. [All] adapts a
// Source to a range loop:
//
//	for ev, err := range model.All(src) {
//		if err != nil {
//			return err
//		}
//		if ev.Kind == model.KindSend {
//			sent += ev.Bytes
//		}
//	}
//
// Format packages provide the adapters: each of picl, dumpi, otf and otf2 has
// a ModelSource, and picl, otf and otf2 a ModelWriter. Package eventjson
// reads and writes the model itself as JSON (hpctrace's event JSON), a
// readable interchange and test form. This package imports no other
// package of the module.
//
// # Concurrency
//
// Sources and Defs are not safe for concurrent use. Separate sources may
// be read in parallel. A [Prefetcher] reads a
// source in a goroutine of its own, a few batches ahead of its consumer,
// and keeps a copy of the definitions in step with the events it yields; a
// source that is also a [BulkSource] hands it runs of events in one call.
package model
