package waitstate

import (
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

func TestMessages(t *testing.T) {
	b := newTB(2)
	b.enter(1, 0, "main").call(1, 100, 110, "MPI_Isend", isend(2, 5, 7)).call(1, 120, 500, "MPI_Wait", done(7)).leave(1, 1000, "main")
	b.enter(2, 0, "main").call(2, 300, 310, "MPI_Irecv", post(3)).call(2, 600, 610, "MPI_Wait", recvReq(1, 5, 3)).leave(2, 1000, "main")
	var got []Message
	for m, err := range Messages(model.NewSliceSource(b.defs, b.ev)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *m)
	}
	call := func(loc model.LocID, name, path string, e, x model.Time) Call {
		return Call{Loc: loc, Region: b.reg(name), CallPath: path, Enter: e, Leave: x}
	}
	want := []Message{{
		Sender: 1, Receiver: 2, Tag: 5, Comm: 1, Bytes: 8,
		Send:         call(1, "MPI_Isend", "main/MPI_Isend", 100, 110),
		SendComplete: call(1, "MPI_Wait", "main/MPI_Wait", 120, 500),
		Post:         call(2, "MPI_Irecv", "main/MPI_Irecv", 300, 310),
		Recv:         call(2, "MPI_Wait", "main/MPI_Wait", 600, 610),
	}}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestInstances(t *testing.T) {
	b := chain()
	var got []Instance
	for in, err := range Instances(model.NewSliceSource(b.defs, b.ev), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *in)
	}
	call := func(loc model.LocID, name string, e, x model.Time) Call {
		return Call{Loc: loc, Region: b.reg(name), CallPath: "main/" + name, Enter: e, Leave: x}
	}
	want := []Instance{
		{Pattern: LateSender, Time: 200, Waiter: call(2, "MPI_Recv", 100, 320), Delayer: call(1, "MPI_Send", 300, 310)},
		{Pattern: LateSender, Time: 170, Waiter: call(3, "MPI_Recv", 150, 340), Delayer: call(2, "MPI_Send", 320, 330)},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
}

// propMessagesStream: the streaming matcher yields the messages the
// analysis matches, each once.
func propMessagesStream(t *rapid.T) {
	defs, evs := genStreamProgram(t)
	checkMessagesStream(t, defs, evs)
}

func checkMessagesStream(t *rapid.T, defs *model.Defs, evs []model.Event) {
	f, err := analyzeFin(model.NewSliceSource(defs, evs), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := f.messages()
	var got []Message
	for m, err := range Messages(model.NewSliceSource(defs, evs)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *m)
	}
	sortMsgs := func(ms []Message) {
		slices.SortStableFunc(ms, func(x, y Message) int {
			return cmp.Or(cmp.Compare(x.Receiver, y.Receiver), cmp.Compare(x.Recv.Enter, y.Recv.Enter), cmp.Compare(x.Sender, y.Sender),
				cmp.Compare(x.Send.Enter, y.Send.Enter), cmp.Compare(x.Tag, y.Tag))
		})
	}
	sortMsgs(want)
	sortMsgs(got)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("streamed messages (-batch +stream):\n%s", diff)
	}
}

func TestMessagesStream(t *testing.T) { rapid.Check(t, propMessagesStream) }
