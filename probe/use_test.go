package probe

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// synthetic builds a series of n one-second samples for broker 1 (metrics endpoint and local
// JVM) with the given per-second values.
func synthetic(n int, idle []Num, bytesIn []Num) *Series {
	s := &Series{Interval: 1, Cores: 2, GOMAXPROCS: 2, Local: true, HandlerPools: map[int32]int{1: 2}}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		b := missingBroker("")
		b.Err = ""
		b.Interval = 1
		b.HandlerIdle = idle[i]
		b.BytesIn = bytesIn[i]
		b.ReplicationBytesIn = 0
		b.WireIn = bytesIn[i]
		if !idle[i].OK() {
			b.Err = "scrape failed"
		}
		h := &HostSample{Interval: 1, Cores: 2,
			CPU:         CPUSample{User: 0.5, System: 0.1, IOWait: 0, Steal: 0.02, Idle: 0.38, Busy: 0.62},
			CPUPressure: 0.25, RunQueue: 1, Memory: MemorySample{Total: 100, Available: 40, Cached: 30, Dirty: 1, Writeback: 0},
			Self:    ProcSample{CPU: 0.5, SchedLatencyP99: 0.002},
			Brokers: map[int32]ProcSample{1: {CPU: 0.8}},
			Net:     []IfaceSample{{Name: "eth0", RxBytes: 1e6, TxBytes: 2e6}, {Name: "lo", RxBytes: 5e6, TxBytes: 5e6}},
			Disks:   []DiskSample{{Name: "sda", WriteBytes: 1e6, ReadBytes: 0, Util: 0.1, Queue: 0.5}},
			TCP:     TCPSample{RetransSegs: 3},
		}
		s.Samples = append(s.Samples, Sample{
			Start: t0.Add(time.Duration(i) * time.Second), Time: t0.Add(time.Duration(i+1) * time.Second),
			Brokers: map[int32]*BrokerSample{1: b}, Host: h,
		})
	}
	return s
}

func approx(got Num, want float64) bool {
	return got.OK() && math.Abs(float64(got)-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func row(t *testing.T, tb Table, entity, resource string) Row {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Entity == entity && r.Resource == resource {
			return r
		}
	}
	t.Fatalf("no row %s / %s in\n%s", entity, resource, tb)
	return Row{}
}

func TestUSESynthetic(t *testing.T) {
	s := synthetic(4, []Num{0.9, 0.5, Missing, 0.7}, []Num{1e6, 3e6, Missing, 2e6})
	s.NICBytesPerSec = 10e6
	tb := s.USE()
	if tb.Samples != 4 || tb.Seconds != 4 {
		t.Errorf("table covers %d samples, %v s", tb.Samples, tb.Seconds)
	}
	h := row(t, tb, "broker 1", "request handlers").Utilisation
	// busy = 1 - idle over the three seconds with a value: 10, 50, 30 %.
	if h.Samples != 3 || !approx(h.Mean, 30) || !approx(h.Max, 50) || h.Unit != "%" {
		t.Errorf("handler utilisation %+v, want mean 30 max 50 %% over 3 samples", h)
	}
	in := row(t, tb, "broker 1", "network in")
	if !approx(in.Amount.Mean, 2e6) || !approx(in.Amount.Max, 3e6) || !approx(in.Utilisation.Mean, 20) || !approx(in.Utilisation.Max, 30) {
		t.Errorf("network in %+v", in)
	}
	if d := row(t, tb, "broker 1", "disk").Utilisation; !d.Blank() || !strings.Contains(d.Note, "--disk-write") {
		t.Errorf("disk utilisation without a capacity: %+v, want blank naming --disk-write", d)
	}
	cpu := row(t, tb, "broker 1", "cpu")
	if !approx(cpu.Amount.Mean, 0.8) || !approx(cpu.Utilisation.Mean, 40) || !approx(cpu.Saturation.Mean, 25) {
		t.Errorf("broker cpu from /proc: %+v", cpu)
	}
	host := row(t, tb, "client host", "cpu")
	if !approx(host.Utilisation.Mean, 62) || !approx(host.Errors.Mean, 2) || !approx(host.Amount.Mean, 1.24) {
		t.Errorf("host cpu %+v", host)
	}
	// A local cluster's traffic is on loopback, the busiest interface: no capacity.
	net := row(t, tb, "client host", "network in")
	if !strings.Contains(net.Amount.Metric, "lo") || !net.Utilisation.Blank() {
		t.Errorf("host network in %+v, want loopback with no utilisation", net)
	}
	mem := row(t, tb, "client host", "memory")
	if !approx(mem.Utilisation.Mean, 60) || !approx(mem.Amount.Mean, 30) {
		t.Errorf("host memory %+v", mem)
	}
	plim := row(t, tb, "client host", "plimsoll")
	if !approx(plim.Utilisation.Mean, 25) || !approx(plim.Saturation.Mean, 2) {
		t.Errorf("plimsoll %+v, want 25%% of 2 procs and 2 ms p99", plim)
	}
	if !strings.Contains(strings.Join(tb.Notes, "\n"), "broker 1: 1 of 4 intervals without metrics") {
		t.Errorf("notes %q do not mention the failed scrape", tb.Notes)
	}

	// Remote: eth0 carries the traffic, and --nic gives it a capacity.
	s.Local = false
	tb = s.USE()
	net = row(t, tb, "client host", "network out")
	if !strings.Contains(net.Amount.Metric, "eth0") || !approx(net.Utilisation.Mean, 20) {
		t.Errorf("remote host network out %+v, want eth0 at 20%% of 10 MB/s", net)
	}
}

func TestWindow(t *testing.T) {
	s := synthetic(10, make([]Num, 10), make([]Num, 10))
	t0 := s.Samples[0].Start
	w := s.Window(t0.Add(3*time.Second), t0.Add(7*time.Second))
	if len(w.Samples) != 4 || !w.Samples[0].Start.Equal(t0.Add(3*time.Second)) || !w.Samples[3].Time.Equal(t0.Add(7*time.Second)) {
		t.Errorf("window [3s,7s] has %d samples from %v", len(w.Samples), w.Samples[0].Start)
	}
	// A sample straddling the start is warm-up and stays out.
	w = s.Window(t0.Add(2500*time.Millisecond), time.Time{})
	if len(w.Samples) != 7 {
		t.Errorf("window from 2.5s has %d samples, want 7", len(w.Samples))
	}
	if len(s.Samples) != 10 {
		t.Error("Window changed the series")
	}
}

// TestUSERecorded summarises series recorded on the real local cluster (refresh them with
// go test -tags integration -run TestProbe -update) and compares with golden files.
func TestUSERecorded(t *testing.T) {
	for _, name := range []string{"series-traffic", "series-pause"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
			if err != nil {
				t.Skipf("no recorded series: %v", err)
			}
			var s Series
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			tb := s.USE()
			golden(t, name+".use.txt", []byte(tb.String()))
			js, err := json.MarshalIndent(tb, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".use.json", append(js, '\n'))
		})
	}
}
