package eventjson_test

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// genTrace draws definitions and events that the form can represent.
func genTrace() *rapid.Generator[traceCase] {
	return rapid.Custom(func(t *rapid.T) traceCase {
		d := new(model.Defs)
		d.TimeBase.TicksPerSecond = rapid.Uint64Range(0, 1e12).Draw(t, "tps")
		nloc := rapid.IntRange(1, 4).Draw(t, "nloc")
		natives := rapid.SliceOfNDistinct(rapid.Int64Range(-5, 40000), nloc, nloc, rapid.ID[int64]).Draw(t, "locNatives")
		for _, n := range natives {
			d.AddLocation(model.Location{
				Native:  n,
				Name:    rapid.String().Draw(t, "locName"),
				Process: rapid.Int32().Draw(t, "process"),
				Thread:  rapid.Int32Range(0, 8).Draw(t, "thread"),
				Host:    rapid.Bool().Draw(t, "host"),
			})
		}
		nreg := rapid.IntRange(1, 5).Draw(t, "nreg")
		rnat := rapid.SliceOfNDistinct(rapid.Int64Range(-1000, 1000), nreg, nreg, rapid.ID[int64]).Draw(t, "regNatives")
		for _, n := range rnat {
			d.AddRegion(model.Region{
				Native:   n,
				Name:     rapid.SampledFrom([]string{"main", "MPI_Send", "loop", "", "é\"\\\n<x>"}).Draw(t, "regName"),
				Kind:     model.RegionKind(rapid.IntRange(0, 8).Draw(t, "regKind")),
				Group:    rapid.SampledFrom([]string{"", "MPI", "Application"}).Draw(t, "group"),
				File:     rapid.SampledFrom([]string{"", "a.c"}).Draw(t, "file"),
				Line:     rapid.Int32Range(0, 500).Draw(t, "line"),
				Paradigm: model.Paradigm(rapid.IntRange(0, int(model.ParadigmOther)).Draw(t, "paradigm")),
			})
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "ncounter") {
			d.AddCounter(model.Counter{Native: int64(i + 1), Name: fmt.Sprint("c", i), Unit: rapid.SampledFrom([]string{"", "flop"}).Draw(t, "unit"), Accumulating: rapid.Bool().Draw(t, "acc")})
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "ncomm") {
			d.AddComm(model.Comm{Native: int64(i * 10)})
		}
		sites := []model.SiteID{0}
		for range rapid.IntRange(0, 3).Draw(t, "nsite") {
			sites = append(sites, d.AddSite(model.Site{Line: rapid.Int32Range(1, 300).Draw(t, "siteLine")}))
		}
		texts := []model.StringID{0, d.Intern("phase"), d.Intern("x\x01\ty")}
		loc := rapid.Custom(func(t *rapid.T) model.LocID { return model.LocID(rapid.IntRange(1, nloc).Draw(t, "loc")) })
		reg := rapid.Custom(func(t *rapid.T) model.RegionID { return model.RegionID(rapid.IntRange(1, nreg).Draw(t, "reg")) })
		comm := rapid.Custom(func(t *rapid.T) model.CommID {
			return model.CommID(rapid.IntRange(0, len(d.Comms())).Draw(t, "comm"))
		})
		ev := rapid.Custom(func(t *rapid.T) model.Event {
			e := model.Event{Time: model.Time(rapid.Int64().Draw(t, "time")), Loc: loc.Draw(t, "loc")}
			kinds := []model.Kind{model.KindEnter, model.KindLeave, model.KindSend, model.KindRecv, model.KindCollBegin, model.KindCollEnd, model.KindMarker,
				model.KindRecvPost, model.KindSendDone, model.KindProgramBegin, model.KindProgramEnd, model.KindParameter, model.KindCollPost, model.KindCollDone}
			if len(d.Counters()) > 0 {
				kinds = append(kinds, model.KindCounter)
			}
			e.Kind = rapid.SampledFrom(kinds).Draw(t, "kind")
			switch e.Kind {
			case model.KindEnter:
				e.Region = reg.Draw(t, "region")
				e.Site = rapid.SampledFrom(sites).Draw(t, "site")
			case model.KindLeave:
				e.Region = reg.Draw(t, "region")
			case model.KindSend, model.KindRecv:
				if rapid.Bool().Draw(t, "hasPeer") {
					e.Peer = loc.Draw(t, "peer")
				}
				e.Tag = rapid.Int32().Draw(t, "tag")
				e.Comm = comm.Draw(t, "comm")
				e.Bytes = rapid.Int64Min(0).Draw(t, "bytes")
				if e.Kind == model.KindSend {
					e.Flags = rapid.SampledFrom([]model.Flags{0, model.SyncMode, model.BytesUnknown}).Draw(t, "flags")
				} else {
					e.Flags = rapid.SampledFrom([]model.Flags{0, model.Waited, model.NotWaited, model.Waited | model.BytesUnknown}).Draw(t, "flags")
				}
				e.Match = rapid.SampledFrom([]uint64{0, 1, 7, 1 << 63}).Draw(t, "request")
			case model.KindRecvPost:
				if rapid.Bool().Draw(t, "hasPeer") {
					e.Peer = loc.Draw(t, "peer")
				}
				e.Tag = rapid.Int32().Draw(t, "tag")
				e.Comm = comm.Draw(t, "comm")
				e.Match = rapid.Uint64().Draw(t, "request")
			case model.KindSendDone:
				e.Match = rapid.Uint64().Draw(t, "request")
			case model.KindParameter:
				e.Text = rapid.SampledFrom(texts).Draw(t, "name")
				if rapid.Bool().Draw(t, "isString") {
					e.Flags = model.StringValue
					e.Value = int64(rapid.SampledFrom(texts).Draw(t, "string"))
				} else {
					e.Value = rapid.Int64().Draw(t, "value")
				}
			case model.KindCollBegin, model.KindCollPost, model.KindCollDone:
				if rapid.Bool().Draw(t, "hasOp") {
					e.Region = reg.Draw(t, "op")
				}
				if rapid.Bool().Draw(t, "hasRoot") {
					e.Peer = loc.Draw(t, "root")
				}
				e.Class = model.Class(rapid.IntRange(0, 4).Draw(t, "class"))
				e.Comm = comm.Draw(t, "comm")
				e.Bytes = rapid.Int64Min(0).Draw(t, "sent")
				e.Recvd = rapid.Int64Min(0).Draw(t, "recvd")
				e.Match = rapid.Uint64().Draw(t, "match")
				if e.Kind != model.KindCollBegin {
					e.Match = rapid.Uint64Min(1).Draw(t, "request")
				}
			case model.KindCollEnd:
				e.Match = rapid.Uint64().Draw(t, "match")
			case model.KindCounter:
				e.Counter = model.CounterID(rapid.IntRange(1, len(d.Counters())).Draw(t, "counter"))
				e.Value = rapid.Int64().Draw(t, "value")
			case model.KindMarker:
				if rapid.Bool().Draw(t, "hasRegion") {
					e.Region = reg.Draw(t, "region")
				}
				e.Text = rapid.SampledFrom(texts).Draw(t, "text")
			}
			return e
		})
		return traceCase{defs: d, events: rapid.SliceOf(ev).Draw(t, "events")}
	})
}

type traceCase struct {
	defs   *model.Defs
	events []model.Event
}
