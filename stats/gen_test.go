package stats_test

import (
	"cmp"
	"slices"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// genTrace draws a multi-location trace merged by (time, location): nested
// regions (some of them loops and communication operations), messages
// between locations, collectives, markers, and now and then a malformed
// leave, so that every diagnostic path is exercised.
func genTrace(t *rapid.T) (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = 1000
	nloc := rapid.IntRange(1, 4).Draw(t, "nloc")
	for i := range nloc {
		d.AddLocation(model.Location{Native: int64(i), Process: int32(i)})
	}
	kinds := []model.RegionKind{model.RegionFunction, model.RegionFunction, model.RegionLoop, model.RegionComm, model.RegionCollective}
	nreg := rapid.IntRange(1, 6).Draw(t, "nreg")
	for i := range nreg {
		d.AddRegion(model.Region{Native: int64(i + 1), Name: string(rune('a' + i)), Kind: kinds[i%len(kinds)]})
	}
	sites := []model.SiteID{0, d.AddSite(model.Site{Line: 10}), d.AddSite(model.Site{Line: 20})}
	perLoc := make([][]model.Event, nloc+1)
	for l := 1; l <= nloc; l++ {
		loc := model.LocID(l)
		tm := model.Time(rapid.Int64Range(-5, 5).Draw(t, "start"))
		var stack []model.RegionID
		n := rapid.IntRange(0, 40).Draw(t, "nev")
		for range n {
			tm += model.Time(rapid.Int64Range(0, 20).Draw(t, "dt"))
			if rapid.IntRange(0, 30).Draw(t, "backwards") == 0 {
				tm -= 3
			}
			ev := model.Event{Time: tm, Loc: loc}
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2:
				r := model.RegionID(rapid.IntRange(1, nreg).Draw(t, "region"))
				ev.Kind, ev.Region, ev.Site = model.KindEnter, r, rapid.SampledFrom(sites).Draw(t, "site")
				stack = append(stack, r)
			case 3, 4:
				ev.Kind = model.KindLeave
				switch {
				case len(stack) > 0 && rapid.IntRange(0, 8).Draw(t, "wrongLeave") > 0:
					ev.Region = stack[len(stack)-1]
					stack = stack[:len(stack)-1]
				default:
					ev.Region = model.RegionID(rapid.IntRange(1, nreg).Draw(t, "leaveRegion"))
					if i := slices.Index(stack, ev.Region); i >= 0 {
						stack = stack[:i]
					}
				}
			case 5, 6:
				ev.Kind = rapid.SampledFrom([]model.Kind{model.KindSend, model.KindRecv}).Draw(t, "dir")
				ev.Peer = model.LocID(rapid.IntRange(1, nloc).Draw(t, "peer"))
				ev.Tag = int32(rapid.IntRange(0, 1).Draw(t, "tag"))
				ev.Bytes = rapid.Int64Range(0, 5000).Draw(t, "bytes")
				ev.Flags = rapid.SampledFrom([]model.Flags{0, model.SyncMode, model.Waited, model.NotWaited}).Draw(t, "flags")
			case 7:
				ev.Kind, ev.Class = model.KindCollBegin, model.Class(rapid.IntRange(0, 4).Draw(t, "class"))
				ev.Comm = 1
				ev.Peer = model.LocID(rapid.IntRange(0, nloc).Draw(t, "root"))
				ev.Bytes = rapid.Int64Range(0, 100).Draw(t, "sent")
				if rapid.Bool().Draw(t, "matchID") {
					ev.Match = uint64(rapid.IntRange(1, 3).Draw(t, "match"))
				}
			case 8:
				ev.Kind = model.KindCollEnd
				if rapid.Bool().Draw(t, "matchID") {
					ev.Match = uint64(rapid.IntRange(1, 3).Draw(t, "match"))
				}
			case 9:
				ev.Kind = model.KindMarker
				if rapid.Bool().Draw(t, "markRegion") {
					ev.Region = model.RegionID(rapid.IntRange(1, nreg).Draw(t, "region"))
				}
			}
			perLoc[l] = append(perLoc[l], ev)
		}
	}
	return d, mergeLocations(perLoc)
}

// mergeLocations merges per-location streams by (time, location) while
// keeping each location's own order, as a k-way merge of readers does.
func mergeLocations(perLoc [][]model.Event) []model.Event {
	var out []model.Event
	heads := make([]int, len(perLoc))
	for {
		best := -1
		for l := range perLoc {
			if heads[l] >= len(perLoc[l]) {
				continue
			}
			if best < 0 || cmp.Compare(perLoc[l][heads[l]].Time, perLoc[best][heads[best]].Time) < 0 {
				best = l
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, perLoc[best][heads[best]])
		heads[best]++
	}
}

// feed returns an accumulator over the events of the given locations.
func feed(d *model.Defs, events []model.Event, locs map[model.LocID]bool, opts *stats.Options) *stats.Accumulator {
	acc := stats.New(d, opts)
	for i := range events {
		if locs == nil || locs[events[i].Loc] {
			acc.Add(&events[i])
		}
	}
	return acc
}
