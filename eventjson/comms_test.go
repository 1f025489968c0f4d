package eventjson_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

// TestComms: communicators with a name or members are written in a
// "comms" header and read back with their members (and an
// intercommunicator's remote group) in rank order; those without are
// defined by their first use, as before.
func TestComms(t *testing.T) {
	var d model.Defs
	var locs []model.LocID
	for i := range 4 {
		locs = append(locs, d.AddLocation(model.Location{Native: int64(10 + i), Name: "r"}))
	}
	world := d.AddComm(model.Comm{Native: 2, Name: "world", Members: []model.LocID{locs[0], locs[1], locs[2], locs[3]}})
	d.AddComm(model.Comm{Native: 5, Name: "inter", Members: []model.LocID{locs[2], locs[0]}, Remote: []model.LocID{locs[3]}})
	d.AddComm(model.Comm{Native: 7}) // unknown: defined by its use
	d.AddComm(model.Comm{Native: 8, Name: "self", Self: true})
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, &d, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := model.Event{Loc: locs[0], Kind: model.KindCollBegin, Comm: world, Class: model.ClassBarrier}
	if err := w.Write(&ev); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"comms":[`+"\n"+`{"id":2,"name":"world","members":[10,11,12,13]},`+"\n"+`{"id":5,"name":"inter","members":[12,10],"remote":[13]},`+"\n"+`{"id":8,"name":"self","self":true}]`) {
		t.Errorf("no comms header as expected in\n%s", buf.String())
	}
	jr, err := eventjson.NewReader(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for jr.Next() {
	}
	if err := jr.Err(); err != nil {
		t.Fatal(err)
	}
	got := jr.Defs().Comms()
	if len(got) != 3 || !got[2].Self || got[0].Self || got[0].Name != "world" || len(got[0].Members) != 4 || got[1].Name != "inter" ||
		len(got[1].Members) != 2 || got[1].Members[0] != locs[2] || len(got[1].Remote) != 1 || got[1].Remote[0] != locs[3] {
		t.Errorf("comms read back: %+v", got)
	}
	for _, doc := range []string{
		`{"format":"trace-events-json/1","comms":[{"id":1,"members":[0,0]}],"events":[]}`,
		`{"format":"trace-events-json/1","comms":[{"id":1,"members":[0]},{"id":1}],"events":[]}`,
		`{"format":"trace-events-json/1","comms":[{"id":1,"remote":[0]}],"events":[]}`,
		`{"format":"trace-events-json/1","comms":[{"id":1,"members":[0],"self":true}],"events":[]}`,
	} {
		if _, err := eventjson.NewReader(strings.NewReader(doc), nil); !errors.Is(err, eventjson.ErrSyntax) {
			t.Errorf("%s: error %v, want ErrSyntax", doc, err)
		}
	}
}
