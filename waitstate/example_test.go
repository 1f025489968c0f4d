package waitstate_test

import (
	"encoding/json"
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
)

// Two ranks: rank 1 computes until t=300 before it sends; rank 0 posts its
// receive at t=100 and waits 200 ticks for the late sender.
func ExampleAnalyze() {
	defs := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1000}}
	r0 := defs.AddLocation(model.Location{Name: "rank 0"})
	r1 := defs.AddLocation(model.Location{Name: "rank 1", Native: 1, Process: 1})
	defs.AddComm(model.Comm{Name: "world", Members: []model.LocID{r0, r1}})
	main := defs.AddRegion(model.Region{Name: "main"})
	recv := defs.AddRegion(model.Region{Name: "MPI_Recv", Native: 1})
	send := defs.AddRegion(model.Region{Name: "MPI_Send", Native: 2})
	events := []model.Event{
		{Kind: model.KindEnter, Loc: r0, Time: 0, Region: main},
		{Kind: model.KindEnter, Loc: r0, Time: 100, Region: recv},
		{Kind: model.KindRecv, Loc: r0, Time: 310, Peer: r1, Comm: 1, Bytes: 8},
		{Kind: model.KindLeave, Loc: r0, Time: 310, Region: recv},
		{Kind: model.KindLeave, Loc: r0, Time: 500, Region: main},
		{Kind: model.KindEnter, Loc: r1, Time: 0, Region: main},
		{Kind: model.KindEnter, Loc: r1, Time: 300, Region: send},
		{Kind: model.KindSend, Loc: r1, Time: 300, Peer: r0, Comm: 1, Bytes: 8},
		{Kind: model.KindLeave, Loc: r1, Time: 305, Region: send},
		{Kind: model.KindLeave, Loc: r1, Time: 400, Region: main},
	}
	rep, err := waitstate.Analyze(model.NewSliceSource(defs, events), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range rep.WaitStates {
		fmt.Printf("%-24s loc %d  %-14s %d ticks\n", w.Pattern, w.Loc, w.CallPath, w.Time)
	}
	for _, d := range rep.DelayCosts {
		fmt.Printf("caused by loc %d in %s: %g ticks\n", d.Loc, d.CallPath, d.ShortTerm+d.LongTerm)
	}
	fmt.Println("critical path:", rep.CriticalPath.Length, "ticks")
	// The JSON lists, as tracestat embeds them in its report.
	b, _ := json.Marshal(rep.JSON(defs).CriticalPath)
	fmt.Println(string(b))
	// Output:
	// late_sender              loc 1  main/MPI_Recv  200 ticks
	// late_sender_direct       loc 1  main/MPI_Recv  200 ticks
	// late_sender_terminal     loc 1  main/MPI_Recv  200 ticks
	// caused by loc 2 in main: 200 ticks
	// critical path: 500 ticks
	// {"length":500,"profile":[{"region":"MPI_Recv","time":10,"imbalance":5},{"region":"main","time":490,"imbalance":147.5}],"locations":[{"loc_id":1,"loc":0,"time":200},{"loc_id":2,"loc":1,"time":300}]}
}
