package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

var update = flag.Bool("update", false, "rewrite testdata/allkinds and its otf2-print goldens (needs otf2-print)")

const u32 = uint64(otf2.Undefined32)

// builder writes definitions with ids and strings allocated in order.
type builder struct {
	t       *testing.T
	w       *otf2.ArchiveWriter
	strings map[string]uint64
}

func (b *builder) s(text string) uint64 {
	if id, ok := b.strings[text]; ok {
		return id
	}
	id := uint64(len(b.strings))
	b.strings[text] = id
	d := otf2.NewDef(otf2.DefKindString)
	d.SetValue(0, id)
	d.SetBytes([]byte(text))
	if err := b.w.WriteDef(d); err != nil {
		b.t.Fatal(err)
	}
	return id
}

// def writes a definition; vals give the fields in order, count fields
// left out, element fields as []uint64.
func (b *builder) def(k otf2.DefKind, vals ...any) {
	d := otf2.NewDef(k)
	j := 0
	for i, f := range k.Fields() {
		if _, ok := f.Count(); ok {
			continue
		}
		if j >= len(vals) {
			b.t.Fatalf("%v: too few values", k)
		}
		switch v := vals[j].(type) {
		case []uint64:
			d.SetElems(i, v)
		case int:
			d.SetValue(i, uint64(v))
		case uint64:
			d.SetValue(i, v)
		}
		j++
	}
	if j != len(vals) {
		b.t.Fatalf("%v: %d values for %d fields", k, len(vals), j)
	}
	if err := b.w.WriteDef(d); err != nil {
		b.t.Fatal(err)
	}
}

// eventValue chooses a valid value for an event field by its name.
func eventValue(f *otf2.FieldInfo, i int) uint64 {
	switch f.Name() {
	case "receiver", "sender", "remote", "creatingThread":
		return 1
	case "root":
		return 1
	case "syncLevel", "statusFlags", "creationFlags", "operationFlags":
		return 3
	case "exitStatus":
		return 0
	case "offsetRequest", "value":
		return uint64(^uint64(6)) // -7
	}
	if f.Ref() != "" {
		if f.Ref() == "Comm" {
			return 0
		}
		return 0
	}
	if f.Enum() != "" {
		return 1
	}
	return uint64(10 + i)
}

func writeAllKinds(t *testing.T, dir string) {
	w, err := otf2.NewArchiveWriter(model.DirCreator(dir), &otf2.WriterOptions{
		EventChunkSize: 256 << 10, DefChunkSize: 256 << 10, MachineName: "host", Creator: "allkinds_test.go", Description: "allkinds",
		Properties: []otf2.Property{{Name: "TEST::KIND", Value: "all"}}, TraceID: 0x1234abcd,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{t: t, w: w, strings: map[string]uint64{}}
	b.s("")
	b.def(otf2.DefKindClockProperties, 1000000000, 1000, 2000, uint64(otf2.Undefined64))
	b.def(otf2.DefKindParadigm, 4, b.s("MPI"), 0)
	b.def(otf2.DefKindParadigmProperty, 4, 0, 11, b.s("Comm ${id}"))
	b.def(otf2.DefKindSystemTreeNode, 0, b.s("cluster"), b.s("machine"), u32)
	b.def(otf2.DefKindSystemTreeNode, 1, b.s("node0"), b.s("node"), 0)
	b.def(otf2.DefKindSystemTreeNodeProperty, 1, b.s("color"), b.s("black"), 11, b.s("black"))
	b.def(otf2.DefKindSystemTreeNodeDomain, 1, 1)
	b.def(otf2.DefKindLocationGroup, 0, b.s("Process 0"), 1, 1, u32)
	b.def(otf2.DefKindLocationGroup, 1, b.s("Process 1"), 1, 1, 0)
	b.def(otf2.DefKindLocationGroupProperty, 0, b.s("pid"), u32, 8, 1234)
	b.def(otf2.DefKindLocation, 0, b.s("Master thread"), 1, 0, 0)
	b.def(otf2.DefKindLocation, 1, b.s("Master thread"), 1, 0, 1)
	b.def(otf2.DefKindLocation, 2, b.s("OMP thread 1"), 1, 0, 0)
	b.def(otf2.DefKindLocationProperty, 2, b.s("tid"), u32, 4, 77)
	b.def(otf2.DefKindRegion, 0, b.s("main"), b.s("the main function"), 3, b.s("main.c"), 1, 99, b.s("main"), 1, 1, 0)
	b.def(otf2.DefKindRegion, 1, b.s("MPI_Send"), 0, 0, u32, 0, 0, b.s("MPI_Send"), 28, 4, 0)
	b.def(otf2.DefKindRegion, 2, b.s("MPI_Bcast"), 0, 23, u32, 0, 0, b.s("MPI_Bcast"), 23, 4, 2)
	b.def(otf2.DefKindAttribute, 0, b.s("attr_u32"), 3, b.s("an attribute"))
	b.def(otf2.DefKindAttribute, 1, b.s("attr_comm"), 17, u32)
	b.def(otf2.DefKindGroup, 0, 0, 6, []uint64{0, 1}, 4, 4, 0)
	b.def(otf2.DefKindGroup, 1, b.s("world"), 4, []uint64{0, 1}, 5, 4, 0)
	b.def(otf2.DefKindGroup, 2, b.s("omp locs"), 0, []uint64{0, 2}, 4, 3, 0)
	b.def(otf2.DefKindGroup, 3, b.s("omp team"), 0, []uint64{0, 1}, 5, 3, 0)
	b.def(otf2.DefKindGroup, 4, b.s("self"), 5, []uint64{}, 6, 4, 0)
	b.def(otf2.DefKindGroup, 5, b.s("regions"), 2, []uint64{0, 2}, 2, 0, 1)
	b.def(otf2.DefKindComm, 0, b.s("MPI_COMM_WORLD"), 1, u32, 0)
	b.def(otf2.DefKindComm, 1, b.s("EVEN"), 1, 0, 1)
	b.def(otf2.DefKindComm, 2, b.s("OMP team"), 3, u32, 0)
	b.def(otf2.DefKindInterComm, 3, b.s("A<->B"), 1, 1, 0, 0)
	b.def(otf2.DefKindMetricMember, 0, b.s("cycles"), b.s("CPU cycles"), 1, 0, 4, 1, 0, b.s("#"))
	b.def(otf2.DefKindMetricMember, 1, b.s("temp"), b.s("temperature"), 0, 17, 10, 1, uint64(^uint64(2)), b.s("C"))
	b.def(otf2.DefKindMetricClass, 0, []uint64{0, 1}, 0, 2)
	b.def(otf2.DefKindMetricInstance, 1, 0, 0, 0, 0)
	b.def(otf2.DefKindMetricClassRecorder, 0, 1)
	b.def(otf2.DefKindParameter, 0, b.s("mode"), 0)
	b.def(otf2.DefKindParameter, 1, b.s("n"), 1)
	b.def(otf2.DefKindCallsite, 0, b.s("main.c"), 10, 1, 0)
	b.def(otf2.DefKindCallpath, 0, u32, 0)
	b.def(otf2.DefKindCallpath, 1, 0, 1)
	b.def(otf2.DefKindCallpathParameter, 1, 1, 8, uint64(^uint64(6)))
	b.def(otf2.DefKindRmaWin, 0, b.s("win"), 0, 1)
	b.def(otf2.DefKindCartDimension, 0, b.s("x"), 2, 1)
	b.def(otf2.DefKindCartDimension, 1, b.s("y"), 1, 0)
	b.def(otf2.DefKindCartTopology, 0, b.s("grid"), 0, []uint64{0, 1})
	b.def(otf2.DefKindCartCoordinate, 0, 1, []uint64{1, 0})
	b.def(otf2.DefKindSourceCodeLocation, 0, b.s("main.c"), 42)
	b.def(otf2.DefKindCallingContext, 0, 0, 0, u32)
	b.def(otf2.DefKindCallingContext, 1, 1, u32, 0)
	b.def(otf2.DefKindCallingContextProperty, 1, b.s("ip"), 8, 4198400)
	b.def(otf2.DefKindInterruptGenerator, 0, b.s("timer"), 0, 1, uint64(^uint64(5)), 1000)
	b.def(otf2.DefKindIoParadigm, 0, b.s("POSIX"), b.s("POSIX I/O"), 0, 1, []uint64{0}, []uint64{11}, []uint64{b.s("1.0")})
	b.def(otf2.DefKindIoRegularFile, 0, b.s("/tmp/data.bin"), 1)
	b.def(otf2.DefKindIoDirectory, 1, b.s("/tmp"), 1)
	b.def(otf2.DefKindIoFileProperty, 0, b.s("size"), 8, 4096)
	b.def(otf2.DefKindIoHandle, 0, b.s("fd3"), 0, 0, 0, u32, u32)
	b.def(otf2.DefKindIoHandle, 1, b.s("stdout"), 0, 0, 1, 0, 0)
	b.def(otf2.DefKindIoPreCreatedHandleState, 1, 1, 2)
	args := []uint64{b.s("./app"), b.s("-n")}

	// Every event kind on location 0, then a few on 1 and 2.
	ew, err := w.EventWriter(0)
	if err != nil {
		t.Fatal(err)
	}
	time := uint64(1000)
	for k := range 256 {
		kind := otf2.Kind(k)
		if kind.String() == "Unknown" {
			continue
		}
		ev := otf2.NewEvent(kind, time)
		time++
		for i, f := range kind.Fields() {
			if f.Element() {
				continue
			}
			ev.SetValue(i, eventValue(&f, i))
		}
		switch kind {
		case otf2.KindMetric:
			ev.SetValue(0, 0)
			ev.SetElems(2, []uint64{4, 10})
			ev.SetElems(3, []uint64{123456789, 0x3ff8000000000000})
		case otf2.KindProgramBegin:
			ev.SetValue(0, args[0])
			ev.SetElems(2, args)
		case otf2.KindMpiCollectiveEnd, otf2.KindNonBlockingCollectiveComplete:
			ev.SetValue(2, u32)
		case otf2.KindCommCreate, otf2.KindCommDestroy:
			ev.SetValue(0, 1)
		case otf2.KindBufferFlush:
			ev.SetValue(0, time+5)
		}
		if kind == otf2.KindEnter {
			ev.Attrs = []otf2.Attribute{{ID: 0, Type: otf2.TypeUint32, Value: 7}, {ID: 1, Type: otf2.TypeComm, Value: 0}}
		}
		if err := ew.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	// a metric instance with one value, a collective with a root
	m := otf2.NewEvent(otf2.KindMetric, time)
	m.SetValue(0, 1)
	m.SetElems(2, []uint64{8})
	m.SetElems(3, []uint64{uint64(^uint64(41))})
	ew.Write(m)
	for l := uint64(1); l < 3; l++ {
		ew, err := w.EventWriter(l)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range []otf2.Kind{otf2.KindEnter, otf2.KindMpiCollectiveBegin, otf2.KindMpiCollectiveEnd, otf2.KindLeave} {
			ev := otf2.NewEvent(k, 1000+uint64(i))
			if k == otf2.KindMpiCollectiveEnd {
				ev.SetValue(0, 1)
				ev.SetValue(2, 0)
				ev.SetValue(3, 8)
				ev.SetValue(4, 8)
			} else if k != otf2.KindMpiCollectiveBegin {
				ev.SetValue(0, 2)
			}
			if err := ew.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAllKinds checks the text of every event kind and every global
// definition kind against otf2-print's, on an archive this package's
// writer makes (committed under testdata/allkinds with the goldens).
func TestAllKinds(t *testing.T) {
	dir := filepath.Join("testdata", "allkinds")
	anchor := filepath.Join(dir, "trace", "traces.otf2")
	if *update {
		os.RemoveAll(filepath.Join(dir, "trace"))
		writeAllKinds(t, filepath.Join(dir, "trace"))
		for _, v := range variants {
			cmd := exec.Command("otf2-print", append(v.args, anchor)...)
			cmd.Env = append(os.Environ(), "TZ=UTC")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("otf2-print %v: %v\n%s", v.args, err, out)
			}
			if err := os.WriteFile(filepath.Join(dir, "golden_otf2print"+v.suffix+".txt"), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, v := range variants {
		t.Run(v.suffix, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "golden_otf2print"+v.suffix+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := output(t, append(v.args, anchor))
			if volatile(got) != volatile(string(want)) {
				diffLines(t, volatile(string(want)), volatile(got))
			}
		})
	}
}

// writeInvalid writes events whose references have no definition.
func writeInvalid(t *testing.T, dir string) {
	w, err := otf2.NewArchiveWriter(model.DirCreator(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{t: t, w: w, strings: map[string]uint64{}}
	b.s("")
	b.def(otf2.DefKindLocation, 0, b.s("thread"), 1, 0, 0)
	ew, _ := w.EventWriter(0)
	for i, k := range []otf2.Kind{otf2.KindEnter, otf2.KindMpiSend, otf2.KindMetric, otf2.KindMpiCollectiveEnd, otf2.KindRmaPut, otf2.KindLeave} {
		ev := otf2.NewEvent(k, uint64(100+i))
		ev.SetValue(0, 5)
		ev.SetValue(1, 3)
		if k == otf2.KindMetric {
			ev.SetElems(2, []uint64{9})
			ev.SetElems(3, []uint64{7})
		}
		if err := ew.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInvalidRefs checks how references without a definition print.
func TestInvalidRefs(t *testing.T) {
	dir := filepath.Join("testdata", "invalid")
	anchor := filepath.Join(dir, "trace", "traces.otf2")
	if *update {
		os.RemoveAll(filepath.Join(dir, "trace"))
		writeInvalid(t, filepath.Join(dir, "trace"))
		out, err := exec.Command("otf2-print", anchor).CombinedOutput()
		if err != nil {
			t.Fatalf("otf2-print: %v\n%s", err, out)
		}
		if err := os.WriteFile(filepath.Join(dir, "golden_otf2print.txt"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "golden_otf2print.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := output(t, []string{anchor}); got != string(want) {
		diffLines(t, string(want), got)
	}
}
