package stats

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/model"
)

// MPIProfile is the view mpiP prints first: how much of each location's
// time went to MPI, and per MPI call site how often it ran and how long
// its calls took. Times are ticks.
//
// A region counts as MPI when its kind is communication, collective or
// synchronisation, or its name starts with "MPI_" (any case): so
// MPI_Comm_rank and MPI-IO count, and so do PICL's send0, recv0 and
// barriers. MPI time is the time in MPI regions entered from outside MPI
// (an MPI call made inside another is not counted twice). A location's
// application time is the span from its first event to its last, where
// mpiP takes the span from MPI_Init to MPI_Finalize.
type MPIProfile struct {
	Locations []MPILocation `json:"locations"` // by location
	Callsites []MPICallsite `json:"callsites"` // by Total, largest first
}

// MPILocation is one location's application and MPI time.
type MPILocation struct {
	LocID   model.LocID `json:"loc_id"`
	Loc     int64       `json:"loc"`
	App     model.Time  `json:"app"`         // ticks from the location's first event to its last
	MPI     model.Time  `json:"mpi"`         // ticks in MPI calls made from outside MPI
	Percent F6          `json:"mpi_percent"` // 100 × MPI / App; 0 when App is 0
}

// MPICallsite is one MPI call site, (caller, site, callee), over all
// locations: mpiP's "Callsite Time statistics".
type MPICallsite struct {
	CallerID   model.RegionID `json:"-"`
	Caller     string         `json:"caller"` // "<root>" for none
	SiteID     model.SiteID   `json:"-"`
	Site       int32          `json:"site"` // source line, 0 if unknown
	CalleeID   model.RegionID `json:"-"`
	Callee     string         `json:"callee"`
	Count      int64          `json:"count"`
	Total      model.Time     `json:"total"` // ticks, summed over the calls
	Mean       F6             `json:"mean"`  // Total / Count
	Min        model.Time     `json:"min"`
	Max        model.Time     `json:"max"`
	AppPercent F6             `json:"app_percent"` // 100 × Total / the application time of all locations
	MPIPercent F6             `json:"mpi_percent"` // 100 × Total / the MPI time of all locations
}

// isMPI reports whether region r counts as MPI in an MPIProfile.
func isMPI(d *model.Defs, r model.RegionID) bool {
	reg, ok := d.Region(r)
	if !ok {
		return false
	}
	switch reg.Kind {
	case model.RegionComm, model.RegionCollective, model.RegionSync:
		return true
	}
	return len(reg.Name) >= 4 && strings.EqualFold(reg.Name[:4], "MPI_")
}

// mpiProfile builds the MPI view from the call sites of f and the spans of
// the seen locations.
//
// With text set (FinalTextReport), a trace without MPI calls gets no
// rows at all: the text prints the profile only when it has call sites.
func (a *Accumulator) mpiProfile(seen []model.LocID, callsites []Callsite, nm namer, text bool) *MPIProfile {
	p := &MPIProfile{Locations: []MPILocation{}, Callsites: []MPICallsite{}}
	mpi := make(map[model.LocID]model.Time)
	type key struct {
		caller model.RegionID
		site   model.SiteID
		callee model.RegionID
	}
	sites := make(map[key]*MPICallsite)
	for _, c := range callsites {
		if !isMPI(a.defs, c.CalleeID) || isMPI(a.defs, c.CallerID) {
			continue
		}
		mpi[c.LocID] += c.Incl
		k := key{c.CallerID, c.SiteID, c.CalleeID}
		s := sites[k]
		if s == nil {
			s = &MPICallsite{CallerID: c.CallerID, Caller: c.Caller, SiteID: c.SiteID, Site: c.Site,
				CalleeID: c.CalleeID, Callee: c.Callee, Min: c.Min, Max: c.Max}
			sites[k] = s
		}
		s.Count += c.Count
		s.Total += c.Incl
		s.Min = min(s.Min, c.Min)
		s.Max = max(s.Max, c.Max)
	}
	if text && len(sites) == 0 {
		return p
	}
	var app, mpiAll model.Time
	p.Locations = make([]MPILocation, 0, len(seen)) // sized, not grown by copies
	for _, l := range seen {
		ls := &a.locs[l]
		x := MPILocation{LocID: l, Loc: nm.loc(l), App: ls.last - ls.first, MPI: mpi[l]}
		if x.App > 0 {
			x.Percent = F6(100 * float64(x.MPI) / float64(x.App))
		}
		app += x.App
		mpiAll += x.MPI
		p.Locations = append(p.Locations, x)
	}
	for _, s := range sites {
		if s.Count > 0 {
			s.Mean = F6(float64(s.Total) / float64(s.Count))
		}
		if app > 0 {
			s.AppPercent = F6(100 * float64(s.Total) / float64(app))
		}
		if mpiAll > 0 {
			s.MPIPercent = F6(100 * float64(s.Total) / float64(mpiAll))
		}
		p.Callsites = append(p.Callsites, *s)
	}
	slices.SortFunc(p.Callsites, func(x, y MPICallsite) int {
		return cmp.Or(cmp.Compare(y.Total, x.Total), cmp.Compare(x.CalleeID, y.CalleeID),
			cmp.Compare(x.CallerID, y.CallerID), cmp.Compare(x.SiteID, y.SiteID))
	})
	return p
}

// writeMPI writes the MPIProfile sections of the text report: time per
// location, then the top call sites. It writes nothing for a trace without
// MPI calls.
func (r *Report) writeMPI(w io.Writer, top int, more func(int)) {
	p := r.Final.MPI
	if p == nil || len(p.Callsites) == 0 {
		return
	}
	tm := r.FormatTime
	fmt.Fprintf(w, "\nMPI time per location (as mpiP; app = first to last event)\n")
	fmt.Fprintf(w, "  %6s %14s %14s %7s\n", "loc", "app", "mpi", "mpi%")
	var app, mpi model.Time
	for i, l := range p.Locations {
		app += l.App
		mpi += l.MPI
		if i == top {
			more(len(p.Locations) - i)
		}
		if i >= top {
			continue
		}
		fmt.Fprintf(w, "  %6d %14s %14s %6.2f%%\n", l.Loc, tm(l.App), tm(l.MPI), float64(l.Percent))
	}
	pct := 0.0
	if app > 0 {
		pct = 100 * float64(mpi) / float64(app)
	}
	fmt.Fprintf(w, "  %6s %14s %14s %6.2f%%\n", "*", tm(app), tm(mpi), pct)

	fmt.Fprintf(w, "\nMPI call sites (all locations, by total time)\n")
	fmt.Fprintf(w, "  %-20s %-16s %5s %8s %12s %12s %12s %12s %6s %6s\n",
		"call", "caller", "site", "count", "total", "mean", "min", "max", "app%", "mpi%")
	for i, c := range p.Callsites {
		if i == top {
			more(len(p.Callsites) - i)
			break
		}
		fmt.Fprintf(w, "  %-20s %-16s %5d %8d %12s %12s %12s %12s %6.2f %6.2f\n",
			termsafe.String(c.Callee), termsafe.String(c.Caller), c.Site, c.Count, tm(c.Total), tm(model.Time(math.Round(float64(c.Mean)))), tm(c.Min), tm(c.Max),
			float64(c.AppPercent), float64(c.MPIPercent))
	}
}
