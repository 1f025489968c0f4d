package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

var (
	largeEvents = flag.Int64("serve.events", 2000000, "BenchmarkServeLarge: events of the generated OTF2 trace")
	largeDir    = flag.String("serve.dir", "", "BenchmarkServeLarge: directory that keeps the generated trace between runs (default: a temporary one)")
	largeReqs   = flag.Int("serve.requests", 15, "BenchmarkServeLarge: requests per window size and position")
	largePage   = flag.Bool("serve.page", false, "BenchmarkServeLarge: also write the static page of the trace (traceview -o) and report its size")
	largeSizes  = flag.String("serve.sizes", "1,0.1,0.01,0.001,0.0001", "BenchmarkServeLarge: the window sizes asked for, fractions of the trace's span, comma-separated")
	largeTrace  = flag.String("serve.trace", "", "BenchmarkServeLarge: serve this trace (any format) instead of the generated one")
	largeBin    = flag.String("serve.bin", "", "BenchmarkServeLarge: the traceview binary to run (default: built from this directory), so that two builds can be compared on one trace")
)

// largeLocs is the number of ranks of the generated trace.
const largeLocs = 16

// genLarge writes an OTF2 archive dir/large.otf2 of about n events: 16
// ranks, each inside "main" from its first event to its last, and in it
// rounds of compute, MPI_Send to the next rank, MPI_Recv from the
// previous one, and every fourth round an MPI_Allreduce, with a counter
// sample per round: every window of it has slices clipped at its edges,
// messages and collectives.
func genLarge(dir string, n int64) error {
	d := &model.Defs{TimeBase: model.TimeBase{TicksPerSecond: 1e9}}
	var locs [largeLocs]model.LocID
	for i := range locs {
		locs[i] = d.AddLocation(model.Location{Name: fmt.Sprintf("rank %d", i), Process: int32(i), MPI: true})
	}
	mainR := d.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction})
	compute := d.AddRegion(model.Region{Name: "compute", Kind: model.RegionFunction})
	send := d.AddRegion(model.Region{Name: "MPI_Send", Kind: model.RegionComm, Group: "MPI"})
	recv := d.AddRegion(model.Region{Name: "MPI_Recv", Kind: model.RegionComm, Group: "MPI"})
	allreduce := d.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective, Group: "MPI"})
	world := d.AddComm(model.Comm{Name: "MPI_COMM_WORLD", Members: locs[:]})
	cycles := d.AddCounter(model.Counter{Name: "cycles", Unit: "#", Accumulating: true})
	w, err := otf2.NewModelWriter(model.DirCreator(dir), d, &otf2.ModelWriterOptions{WriterOptions: otf2.WriterOptions{Name: "large", Creator: "traceview BenchmarkServeLarge"}})
	if err != nil {
		return err
	}
	const perRound = 13 // 12 events a round, 16 every fourth
	rounds := max(n/(largeLocs*perRound), 1)
	for i, l := range locs {
		next, prev := locs[(i+1)%largeLocs], locs[(i+largeLocs-1)%largeLocs]
		t := model.Time(1000)
		write := func(dt model.Time, e model.Event) error {
			t += dt
			e.Time, e.Loc = t, l
			return w.Write(&e)
		}
		if err := write(0, model.Event{Kind: model.KindEnter, Region: mainR}); err != nil {
			w.Close()
			return err
		}
		for r := range rounds {
			work := model.Time(200 + (r*7+int64(i)*13)%100) // uneven compute
			evs := []model.Event{
				{Kind: model.KindEnter, Region: compute},
				{Kind: model.KindCounter, Counter: cycles, Value: r * 1000},
				{Kind: model.KindLeave, Region: compute},
				{Kind: model.KindEnter, Region: send},
				{Kind: model.KindSend, Peer: next, Comm: world, Tag: int32(r % 64), Bytes: 4096},
				{Kind: model.KindLeave, Region: send},
				{Kind: model.KindEnter, Region: recv},
				{Kind: model.KindRecv, Peer: prev, Comm: world, Tag: int32(r % 64), Bytes: 4096},
				{Kind: model.KindLeave, Region: recv},
				{Kind: model.KindEnter, Region: compute},
				{Kind: model.KindLeave, Region: compute},
			}
			if r%4 == 3 {
				evs = append(evs,
					model.Event{Kind: model.KindEnter, Region: allreduce},
					model.Event{Kind: model.KindCollBegin, Region: allreduce, Comm: world, Class: model.ClassAllToAll, Bytes: 8, Recvd: 8},
					model.Event{Kind: model.KindCollEnd},
					model.Event{Kind: model.KindLeave, Region: allreduce})
			}
			for j, e := range evs {
				dt := model.Time(10)
				if j == 2 {
					dt = work
				}
				if err := write(dt, e); err != nil {
					w.Close()
					return err
				}
			}
		}
		if err := write(10, model.Event{Kind: model.KindLeave, Region: mainR}); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// percentile returns the p-th percentile (0 to 100) of xs, sorted.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(p/100*float64(len(xs)-1) + 0.5)
	return xs[min(i, len(xs)-1)]
}

// procStatus returns a field of /proc/pid/status in KiB.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// procCPU returns the CPU time (user and system) of process pid so far,
// from /proc/pid/stat (in the kernel's clock ticks, 100 a second).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command's name, which ends at the last ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	sy, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+sy) * time.Second / 100
}

// BenchmarkServeLarge measures the served viewer on a generated OTF2
// trace of -serve.events events (16 ranks; see genLarge): it builds
// traceview (or runs -serve.bin), starts `traceview -serve 127.0.0.1:0
// TRACE` as its own process, asks for windows of 100 %, 10 %, 1 %, 0.1 %
// and 0.01 % of the trace's span (-serve.sizes) at its start, middle and
// end (-serve.requests each, at offsets spread over a tenth of the span,
// so that no two read the same part; the whole span at its start only),
// and reports the latency of a request as the client sees it (p50, p99,
// per window size and over all), the server's CPU time per request (its
// process' user and system time over the requests of a size, divided by
// their number: the figure that a loaded machine changes least), how
// many were answered from the server's summary, the machine's load
// average, the server's start-up (the one full read that builds the
// page, the index and the summary: wall and CPU time) and its resident memory
// after the requests (VmRSS) and at its peak (VmHWM), from /proc; with
// -serve.page, the size of the static page of the trace. Run it alone:
//
//	go test -run '^$' -bench ServeLarge -benchtime 1x -args -serve.events 100000000 -serve.dir /tmp/large -serve.page
func BenchmarkServeLarge(b *testing.B) {
	dir := *largeDir
	if dir == "" {
		dir = b.TempDir()
	}
	trace := filepath.Join(dir, "large.otf2")
	if *largeTrace != "" {
		trace, dir = *largeTrace, filepath.Dir(*largeTrace)
	} else if _, err := os.Stat(trace); err != nil {
		began := time.Now()
		if err := genLarge(dir, *largeEvents); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %s in %v", trace, time.Since(began))
	}
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	bin := *largeBin
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "traceview")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	for b.Loop() {
		serveLarge(b, bin, trace, size)
		if *largePage {
			staticPage(b, bin, trace)
		}
	}
}

// loadAvg returns the machine's load average over the last minute, from
// /proc/loadavg, as text.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// staticPage writes the static page of trace and reports its size, the
// CPU time and the peak memory of the run.
func staticPage(b *testing.B, bin, trace string) {
	out := filepath.Join(b.TempDir(), "report.html")
	cmd := exec.Command(bin, "-o", out, trace)
	began, load := time.Now(), loadAvg()
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("traceview -o: %v\n%s", err, msg)
	}
	fi, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	b.Logf("static page: %.2f MB, written in %v (CPU %v), peak RSS %d MiB; load average %s before, %s after",
		float64(fi.Size())/1e6, time.Since(began).Round(time.Millisecond), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Millisecond),
		ru.Maxrss/1024, load, loadAvg())
	b.ReportMetric(float64(fi.Size())/1e6, "page-MB")
}

func serveLarge(b *testing.B, bin, trace string, size int64) {
	began := time.Now()
	cmd := exec.Command(bin, "-serve", "127.0.0.1:0", trace)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	base := ""
	for sc.Scan() {
		if m := regexp.MustCompile(`at (http://\S+)/ `).FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		b.Fatalf("the server did not start: %v", sc.Err())
	}
	go io.Copy(io.Discard, stderr)
	startup := time.Since(began)
	startCPU := procCPU(cmd.Process.Pid)
	afterStart := procStatus(cmd.Process.Pid, "VmRSS")

	// The trace's span: a window request of the whole range is cut to it.
	get := func(from, to model.Time) (*windowReply, time.Duration) {
		t0 := time.Now()
		res, err := http.Get(fmt.Sprintf("%s/window?from=%d&to=%d", base, from, to))
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		var rep windowReply
		if err := json.NewDecoder(res.Body).Decode(&rep); err != nil {
			b.Fatal(err)
		}
		return &rep, time.Since(t0)
	}
	whole, _ := get(-1<<62, 1<<62)
	first, end := whole.From, whole.To
	span := end - first
	events := whole.Read
	if whole.Summary != nil {
		events = whole.Events
	}
	b.Logf("trace %s: %d events (%.0f MB on disk), span %d ticks; start-up (full read, page, index and summary) %v (CPU %v), VmRSS after it %d MiB",
		trace, events, float64(size)/1e6, span, startup.Round(time.Millisecond), startCPU.Round(time.Millisecond), afterStart/1024)
	b.ReportMetric(startCPU.Seconds(), "startup-cpu-s")
	var all []float64
	for _, f := range strings.Split(*largeSizes, ",") {
		frac, err := strconv.ParseFloat(f, 64)
		if err != nil || frac <= 0 || frac > 1 {
			b.Fatalf("-serve.sizes: %q is not a fraction of the span", f)
		}
		width := model.Time(float64(span) * frac)
		var lat []float64
		var nslices, msgs, read, past, summed int64
		var column model.Time
		detail := true
		load := loadAvg()
		cpu0 := procCPU(cmd.Process.Pid)
		for _, pos := range []string{"start", "middle", "end"} {
			for k := range *largeReqs {
				off := model.Time(float64(span) * 0.1 * float64(k) / float64(*largeReqs))
				var from model.Time
				switch pos {
				case "start":
					from = first + off
				case "middle":
					from = first + span/2 + off
				case "end":
					from = end - width - off
				}
				if frac == 1 {
					from = first
				}
				rep, d := get(from, from+width)
				lat = append(lat, d.Seconds())
				if rep.Timeline == nil || rep.Timeline.Detail == nil {
					detail = false
				} else {
					nslices += int64(len(rep.Timeline.Detail.Slices))
					msgs += int64(len(rep.Timeline.Detail.Messages))
				}
				read += rep.Read
				past += rep.Past
				if rep.Summary != nil {
					summed++
					column = max(column, rep.Mix.ColWidth)
				}
			}
		}
		cpu := procCPU(cmd.Process.Pid) - cpu0
		all = append(all, lat...)
		slices.Sort(lat)
		n := int64(len(lat))
		name := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(frac*100, 'f', 4, 64), "0"), ".")
		b.Logf("windows of %s%% (%d ticks): p50 %.1f ms, p99 %.1f ms, max %.1f ms; server CPU %.1f ms a request; per request %d events read (and %d past the read's end for messages' other ends), every slice and message kept: %v (%d slices, %d messages); %d of %d answered from the summary (columns of up to %d ticks); load average %s before, %s after",
			name, width, percentile(lat, 50)*1e3, percentile(lat, 99)*1e3, lat[len(lat)-1]*1e3, cpu.Seconds()*1e3/float64(n), read/n, past/n, detail, nslices/n, msgs/n, summed, n, column, load, loadAvg())
		b.ReportMetric(cpu.Seconds()*1e3/float64(n), "cpu-ms-"+name+"%")
		b.ReportMetric(percentile(lat, 50)*1e3, "p50-ms-"+name+"%")
		b.ReportMetric(percentile(lat, 99)*1e3, "p99-ms-"+name+"%")
	}
	slices.Sort(all)
	rss, hwm := procStatus(cmd.Process.Pid, "VmRSS"), procStatus(cmd.Process.Pid, "VmHWM")
	b.Logf("all %d requests: p50 %.1f ms, p99 %.1f ms; server VmRSS %d MiB, VmHWM (peak) %d MiB", len(all),
		percentile(all, 50)*1e3, percentile(all, 99)*1e3, rss/1024, hwm/1024)
	b.ReportMetric(percentile(all, 99)*1e3, "p99-ms")
	b.ReportMetric(float64(rss)/1024, "rss-MiB")
	b.ReportMetric(float64(hwm)/1024, "peak-rss-MiB")
	b.ReportMetric(startup.Seconds(), "startup-s")
}
