package shardstat

import (
	"bytes"
	"testing"
)

// FuzzDecode: a bad state file is an error, never a panic.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"../../model/testdata/fig12.json", "../../picl/testdata/ring4.trf"} {
		for i := range 2 {
			st, err := Profile(name, Shard{I: i, N: 2})
			if err != nil {
				f.Fatal(err)
			}
			data, err := st.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Decode("fuzz", data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := st.WriteReport(&buf, &ReportOptions{JSON: true}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestJoinShards: the states of the shards of a trace, encoded, decoded
// and joined through a Set, print the report of the whole trace.
func TestJoinShards(t *testing.T) {
	name := "../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta"
	whole, err := Profile(name, Shard{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := whole.WriteReport(&want, &ReportOptions{Top: 15, Scope: "all"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want.Bytes(), []byte("MPI_Bcast")) {
		t.Fatalf("the report lacks the collectives:\n%s", want.String())
	}
	var set Set
	for _, i := range []int{2, 0, 1} {
		st, err := Profile(name, Shard{I: i, N: 3})
		if err != nil {
			t.Fatal(err)
		}
		data, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		dec, err := Decode("part", data)
		if err != nil {
			t.Fatal(err)
		}
		if err := set.Add("part", dec); err != nil {
			t.Fatal(err)
		}
		if _, err := set.State(); (err == nil) != (i == 1) {
			t.Fatalf("after shard %d: complete = %v", i, err == nil)
		}
	}
	st, _ := set.State()
	var got bytes.Buffer
	if err := st.WriteReport(&got, &ReportOptions{Top: 15, Scope: "all"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), got.Bytes()) {
		t.Errorf("joined shards differ from the whole trace:\n%s\n---\n%s", want.String(), got.String())
	}
}
