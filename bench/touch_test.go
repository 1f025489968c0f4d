package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// leaves returns, for every scalar reachable in a value of type t (a
// slice reached through one element), a function that makes that scalar
// non-zero in a zero value of type t, and the scalar's path.
func leaves(t reflect.Type, path string) (sets []func(reflect.Value), paths []string) {
	switch t.Kind() {
	case reflect.Bool:
		return []func(reflect.Value){func(v reflect.Value) { v.SetBool(true) }}, []string{path}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return []func(reflect.Value){func(v reflect.Value) { v.SetInt(1) }}, []string{path}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []func(reflect.Value){func(v reflect.Value) { v.SetUint(1) }}, []string{path}
	case reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			fs, ps := leaves(t.Field(i).Type, path+"."+t.Field(i).Name)
			for j, f := range fs {
				sets = append(sets, func(v reflect.Value) { f(v.Field(i)) })
				paths = append(paths, ps[j])
			}
		}
		return sets, paths
	case reflect.Slice:
		fs, ps := leaves(t.Elem(), path+"[0]")
		for j, f := range fs {
			sets = append(sets, func(v reflect.Value) {
				v.Set(reflect.MakeSlice(t, 1, 1))
				f(v.Index(0))
			})
			paths = append(paths, ps[j])
		}
		return sets, paths
	}
	panic("leaves: no rule for " + t.String())
}

// TestTouchOTFEveryField checks that touchOTF changes when any one field
// of any record kind's body, or of its key-value list, or its time,
// process or stream, is made non-zero: the harness's OTF reader reads
// every field that libotf decodes for its handlers.
func TestTouchOTFEveryField(t *testing.T) {
	kinds := 0
	for k := otf.Kind(0); !strings.HasPrefix(k.String(), "Kind("); k++ {
		get := reflect.ValueOf(&otf.Record{}).MethodByName(k.String())
		if !get.IsValid() || get.Type().NumOut() != 2 {
			continue
		}
		if k == otf.KindUnknown {
			// No setter; the reader makes it of an unknown line in
			// lenient mode, and touchOTF counts the line's length.
			continue
		}
		kinds++
		body := get.Type().Out(0)
		make1 := func(set func(reflect.Value)) *otf.Record {
			rec := &otf.Record{}
			v := reflect.New(body).Elem()
			if set != nil {
				set(v)
			}
			reflect.ValueOf(rec).MethodByName("Set" + k.String()).Call([]reflect.Value{v})
			return rec
		}
		base := touchOTF(make1(nil))
		sets, paths := leaves(body, k.String())
		for i, set := range sets {
			if touchOTF(make1(set)) == base {
				t.Errorf("touchOTF ignores %s", paths[i])
			}
		}
		rec := make1(nil)
		rec.Time, rec.Process, rec.Stream = 1, 1, 1
		if touchOTF(rec) != base+3 {
			t.Errorf("%s: touchOTF ignores the time, process or stream", k)
		}
		sets, paths = leaves(reflect.TypeFor[[]otf.KeyValue](), "KeyValues")
		for i, set := range sets {
			rec := make1(nil)
			v := reflect.New(reflect.TypeFor[[]otf.KeyValue]()).Elem()
			set(v)
			rec.SetKeyValues(v.Interface().([]otf.KeyValue))
			if touchOTF(rec) == base {
				t.Errorf("%s: touchOTF ignores %s", k, paths[i])
			}
		}
	}
	if kinds < 60 {
		t.Errorf("%d record kinds with a body; want the 60 and more of records.tsv", kinds)
	}
}

// TestTouchDUMPIEveryArgument checks that touchDUMPI changes when any one
// argument of any call (array and status-list elements included), or
// the thread, a clock's span or a perf-counter value, is made non-zero.
func TestTouchDUMPIEveryArgument(t *testing.T) {
	calls := 0
	for l := range dumpi.Label(dumpi.NumLabels) {
		if !l.IsCall() {
			continue
		}
		calls++
		body := reflect.TypeOf(dumpi.NewArgs(l)).Elem()
		make1 := func(set func(reflect.Value)) *dumpi.Call {
			v := reflect.New(body)
			if set != nil {
				set(v.Elem())
			}
			c := &dumpi.Call{}
			c.SetArgs(v.Interface().(dumpi.Args))
			return c
		}
		base := touchDUMPI(make1(nil))
		sets, paths := leaves(body, body.Name())
		for i, set := range sets {
			if touchDUMPI(make1(set)) == base {
				t.Errorf("touchDUMPI ignores %s", paths[i])
			}
		}
		sets, paths = leaves(reflect.TypeFor[dumpi.Call](), "Call")
		for i, set := range sets {
			if paths[i] == "Call.Label" || paths[i] == "Call.Mask" {
				continue // set by SetArgs and the writer
			}
			c := make1(nil)
			set(reflect.ValueOf(c).Elem())
			if touchDUMPI(c) == base {
				t.Errorf("%s: touchDUMPI ignores %s", body.Name(), paths[i])
			}
		}
	}
	if calls < 290 {
		t.Errorf("%d call labels; want the 290 and more of MPI", calls)
	}
}

// TestTouchEvent checks that touchEvent reads every field of a
// model.Event.
func TestTouchEvent(t *testing.T) {
	sets, paths := leaves(reflect.TypeFor[model.Event](), "Event")
	for i, set := range sets {
		var ev model.Event
		set(reflect.ValueOf(&ev).Elem())
		if touchEvent(&ev) == 0 {
			t.Errorf("touchEvent ignores %s", paths[i])
		}
	}
}
