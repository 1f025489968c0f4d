package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/export"
)

// TestOneLocationIdentity holds tracestat's JSON report and package
// export's CSV tables of one trace to one identity of a location: joined
// on loc_id (the model.LocID), every JSON location, flat-profile row and
// wait state finds its CSV row, with the same native id ("loc") and the
// same figures. The fixtures number their locations three ways: DUMPI
// ranks from 0 (native = loc_id − 1), OTF 1.x processes from 1 (native =
// loc_id), OTF2 locations by their own ids.
func TestOneLocationIdentity(t *testing.T) {
	for _, name := range []string{
		"../../dumpi/testdata/p2p_blocking/dumpi-2026.11.22.01.32.56.meta",
		"testdata/basic_m/basic_m.otf",
		mpiFixture,
	} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			var rep struct {
				Locations []struct {
					LocID uint32 `json:"loc_id"`
					Loc   int64  `json:"loc"`
					Name  string `json:"name"`
				} `json:"locations"`
				Final struct {
					Functions []struct {
						LocID  uint32 `json:"loc_id"`
						Loc    int64  `json:"loc"`
						Region string `json:"region"`
						Visits int64  `json:"visits"`
						Incl   int64  `json:"incl"`
						Excl   int64  `json:"excl"`
					} `json:"functions"`
					WaitStates []struct {
						Pattern string `json:"pattern"`
						LocID   uint32 `json:"loc_id"`
						Loc     int64  `json:"loc"`
						Time    int64  `json:"time"`
					} `json:"wait_states"`
				} `json:"final"`
			}
			if err := json.Unmarshal([]byte(runOK(t, "-json", name)), &rep); err != nil {
				t.Fatal(err)
			}
			tr, err := hpctrace.Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			dir := t.TempDir()
			if err := export.WriteCSVWith(dir, tr, &export.CSVOptions{WaitStates: true}); err != nil {
				t.Fatal(err)
			}

			locs := readCSV(t, filepath.Join(dir, "locations.csv"))
			native := map[string]string{} // loc_id → loc
			for _, r := range locs.rows {
				native[locs.get(t, r, "loc_id")] = locs.get(t, r, "loc")
			}
			if len(rep.Locations) == 0 || len(rep.Locations) != len(locs.rows) {
				t.Fatalf("JSON lists %d locations, locations.csv %d", len(rep.Locations), len(locs.rows))
			}
			for _, l := range rep.Locations {
				if got, want := native[u(l.LocID)], i(l.Loc); got != want {
					t.Errorf("location loc_id %d: locations.csv loc %q, JSON loc %s", l.LocID, got, want)
				}
			}

			prof := readCSV(t, filepath.Join(dir, "profile.csv"))
			rows := map[[2]string][]string{}
			for _, r := range prof.rows {
				rows[[2]string{prof.get(t, r, "loc_id"), prof.get(t, r, "region")}] = r
			}
			if len(rep.Final.Functions) == 0 || len(rep.Final.Functions) != len(prof.rows) {
				t.Fatalf("JSON has %d functions, profile.csv %d rows", len(rep.Final.Functions), len(prof.rows))
			}
			for _, f := range rep.Final.Functions {
				r, ok := rows[[2]string{u(f.LocID), f.Region}]
				if !ok {
					t.Errorf("function (loc_id %d, %s): no profile.csv row", f.LocID, f.Region)
					continue
				}
				for _, c := range []struct{ col, want string }{
					{"loc", i(f.Loc)}, {"visits", i(f.Visits)}, {"incl", i(f.Incl)}, {"excl", i(f.Excl)},
				} {
					if got := prof.get(t, r, c.col); got != c.want {
						t.Errorf("function (loc_id %d, %s): profile.csv %s %s, JSON %s", f.LocID, f.Region, c.col, got, c.want)
					}
				}
				if native[u(f.LocID)] != i(f.Loc) {
					t.Errorf("function (loc_id %d, %s): JSON loc %d, locations.csv %s", f.LocID, f.Region, f.Loc, native[u(f.LocID)])
				}
			}

			// The wait states: the JSON's per (pattern, location) time is
			// the sum of the CSV's instances of that waiter.
			ws := readCSV(t, filepath.Join(dir, export.WaitStatesCSV))
			sums := map[[2]string]int64{}
			for _, r := range ws.rows {
				v, err := strconv.ParseInt(ws.get(t, r, "wait"), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				sums[[2]string{ws.get(t, r, "pattern"), ws.get(t, r, "waiter_id")}] += v
			}
			want := map[[2]string]int64{}
			for _, w := range rep.Final.WaitStates {
				want[[2]string{w.Pattern, u(w.LocID)}] += w.Time
				if native[u(w.LocID)] != i(w.Loc) {
					t.Errorf("wait state %s (loc_id %d): JSON loc %d, locations.csv %s", w.Pattern, w.LocID, w.Loc, native[u(w.LocID)])
				}
			}
			for k, v := range want {
				if k[0] == "late_sender" || k[0] == "wait_barrier" || k[0] == "late_receiver" {
					if sums[k] != v {
						t.Errorf("wait state %s of loc_id %s: %d ticks in JSON, %d in waitstates.csv", k[0], k[1], v, sums[k])
					}
				}
			}
			if name != "testdata/basic_m/basic_m.otf" && len(rep.Final.WaitStates) == 0 {
				t.Error("no wait states to compare")
			}
		})
	}
}

func u(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
func i(v int64) string  { return strconv.FormatInt(v, 10) }

// csvTable is a CSV file read whole: its columns by name, then its rows.
type csvTable struct {
	col  map[string]int
	rows [][]string
}

func readCSV(t *testing.T, path string) csvTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("%s: %v (%d lines)", path, err, len(all))
	}
	tb := csvTable{col: map[string]int{}, rows: all[1:]}
	for k, c := range all[0] {
		tb.col[c] = k
	}
	return tb
}

// get returns column col of row r; a column the table lacks fails the test.
func (tb csvTable) get(t *testing.T, r []string, col string) string {
	t.Helper()
	k, ok := tb.col[col]
	if !ok {
		t.Fatalf("no column %q", col)
	}
	return r[k]
}
