package shardstat

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: a bad state file is an error, never a panic.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"../../../eventjson/testdata/fig12.json", "../../../picl/testdata/ring4.trf"} {
		for i := range 2 {
			st, err := Profile(name, Shard{I: i, N: 2}, nil)
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
	name := "../../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta"
	whole, err := Profile(name, Shard{}, nil)
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
		st, err := Profile(name, Shard{I: i, N: 3}, nil)
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

// TestDecodeBitFlips: every single-bit flip of a saved state is refused.
func TestDecodeBitFlips(t *testing.T) {
	st, err := Profile("../../../eventjson/testdata/fig12.json", Shard{I: 1, N: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode("part", data); err != nil {
		t.Fatal(err)
	}
	for bit := range 8 * len(data) {
		b := bytes.Clone(data)
		b[bit/8] ^= 1 << (bit % 8)
		if _, err := Decode("part", b); err == nil {
			t.Errorf("bit %d flipped: decoded, want an error", bit)
		}
	}
}

// TestSavesIdentical: two profiles of one shard save byte-identical states.
func TestSavesIdentical(t *testing.T) {
	for _, name := range []string{"../../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", "../../../otf2/testdata/threads_rma/trace/traces.otf2"} {
		var first []byte
		for range 4 {
			st, err := Profile(name, Shard{I: 0, N: 2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			data, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = data
			} else if !bytes.Equal(first, data) {
				t.Fatalf("%s: two saves differ", name)
			}
		}
	}
}

// TestIdentity: a trace's identity does not depend on its path, and
// differs between traces of the same definitions and location set.
func TestIdentity(t *testing.T) {
	b, err := os.ReadFile("../../../eventjson/testdata/fig12.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a1, a2 := filepath.Join(dir, "a.json"), filepath.Join(t.TempDir(), "b.json")
	for _, p := range []string{a1, a2} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := func(p string) ID {
		st, err := Profile(p, Shard{I: 0, N: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st.Trace
	}
	x := id(a1)
	if x == (ID{}) || id(a2) != x {
		t.Errorf("a copy of the trace elsewhere has another identity")
	}
	// Another run: the same definitions, one event a tick later.
	last := []byte(`{"t":1915,"loc":1,"kind":"leave","region":10}`)
	if !bytes.Contains(b, last) {
		t.Fatal("the sample's last event is not where the test expects it")
	}
	c := bytes.Replace(b, last, []byte(`{"t":1916,"loc":1,"kind":"leave","region":10}`), 1)
	if err := os.WriteFile(a1, c, 0o644); err != nil {
		t.Fatal(err)
	}
	if id(a1) == x {
		t.Errorf("another trace at the same path has the same identity")
	}
}
