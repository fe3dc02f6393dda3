package use

import (
	"encoding/json"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// golden compares got with testdata/name, rewriting the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// missingBroker is a broker sample with every value missing, as the probe records a failed
// scrape.
func missingBroker() *probe.BrokerSample {
	b := &probe.BrokerSample{}
	v := reflect.ValueOf(b).Elem()
	num := reflect.TypeFor[probe.Num]()
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := range v.NumField() {
			switch f := v.Field(i); {
			case f.Type() == num:
				f.Set(reflect.ValueOf(probe.Missing))
			case f.Kind() == reflect.Struct:
				fill(f)
			}
		}
	}
	fill(v)
	return b
}

// synthetic builds a series of n one-second samples for broker 1 (metrics endpoint and local
// JVM) with the given per-second values.
func synthetic(n int, idle []probe.Num, bytesIn []probe.Num) *probe.Series {
	s := &probe.Series{Interval: 1, Cores: 2, GOMAXPROCS: 2, Local: true, HandlerPools: map[int32]int{1: 2}}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		b := missingBroker()
		b.Interval = 1
		b.HandlerIdle = idle[i]
		b.BytesIn = bytesIn[i]
		b.ReplicationBytesIn = 0
		b.WireIn = bytesIn[i]
		if !idle[i].OK() {
			b.Err = "scrape failed"
		}
		h := &probe.HostSample{Interval: 1, Cores: 2,
			CPU:         probe.CPUSample{User: 0.5, System: 0.1, IOWait: 0, Steal: 0.02, Idle: 0.38, Busy: 0.62},
			CPUPressure: 0.25, RunQueue: 1, Memory: probe.MemorySample{Total: 100, Available: 40, Cached: 30, Dirty: 1, Writeback: 0},
			Self:    probe.ProcSample{CPU: 0.5, SchedLatencyP99: 0.002},
			Brokers: map[int32]probe.ProcSample{1: {CPU: 0.8}},
			Net:     []probe.IfaceSample{{Name: "eth0", RxBytes: 1e6, TxBytes: 2e6}, {Name: "lo", RxBytes: 5e6, TxBytes: 5e6}},
			Disks:   []probe.DiskSample{{Name: "sda", WriteBytes: 1e6, ReadBytes: 0, Util: 0.1, Queue: 0.5}},
			TCP:     probe.TCPSample{RetransSegs: 3},
		}
		s.Samples = append(s.Samples, probe.Sample{
			Start: t0.Add(time.Duration(i) * time.Second), Time: t0.Add(time.Duration(i+1) * time.Second),
			Brokers: map[int32]*probe.BrokerSample{1: b}, Host: h,
		})
	}
	return s
}

func approx(got probe.Num, want float64) bool {
	return got.OK() && math.Abs(float64(got)-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func row(t *testing.T, tb Table, entity, resource string) Row {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Entity == entity && r.Resource == resource {
			return r
		}
	}
	t.Fatalf("no row %s / %s in\n%+v", entity, resource, tb)
	return Row{}
}

func TestSummariseSynthetic(t *testing.T) {
	s := synthetic(4, []probe.Num{0.9, 0.5, probe.Missing, 0.7}, []probe.Num{1e6, 3e6, probe.Missing, 2e6})
	s.NICBytesPerSec = 10e6
	tb := Summarise(s)
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
	if d := row(t, tb, "broker 1", "disk").Utilisation; !d.Blank() || d.Missing != NoDiskCapacity {
		t.Errorf("disk utilisation without a capacity: %+v, want blank for want of the disk's capacity", d)
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
	if !strings.Contains(net.Amount.Metric, "lo") || !net.Utilisation.Blank() || net.Utilisation.Missing != LoopbackNoCapacity {
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

	// Remote: eth0 carries the traffic, and the NIC capacity gives it a utilisation.
	s.Local = false
	tb = Summarise(s)
	net = row(t, tb, "client host", "network out")
	if !strings.Contains(net.Amount.Metric, "eth0") || !approx(net.Utilisation.Mean, 20) {
		t.Errorf("remote host network out %+v, want eth0 at 20%% of 10 MB/s", net)
	}
	s.NICBytesPerSec = 0
	tb = Summarise(s)
	if u := row(t, tb, "client host", "network out").Utilisation; u.Missing != NoNICCapacity {
		t.Errorf("remote host network out without a capacity: %+v, want blank for want of the NIC's capacity", u)
	}
	if u := row(t, tb, "broker 1", "network in").Utilisation; u.Missing != NoNICCapacity {
		t.Errorf("broker network in without a capacity: %+v, want blank for want of the NIC's capacity", u)
	}
}

// TestNoFlagNames: the table states facts; naming the settings that fill a cell is the
// renderer's job.
func TestNoFlagNames(t *testing.T) {
	s := synthetic(3, []probe.Num{0.5, 0.5, 0.5}, []probe.Num{1e6, 1e6, 1e6})
	for _, nic := range []float64{0, 10e6} {
		s.NICBytesPerSec, s.DiskWriteBytesPerSec = nic, nic
		js, err := json.Marshal(Summarise(s))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(js), "--") {
			t.Errorf("the table names a flag: %s", js)
		}
	}
}

func TestSummariseNoEndpoint(t *testing.T) {
	s := synthetic(2, []probe.Num{0.5, 0.5}, []probe.Num{1, 1})
	s.HandlerPools = nil
	s.Local = false
	for i := range s.Samples {
		s.Samples[i].Brokers = nil
		s.Samples[i].Host.Brokers = nil
	}
	s.Samples[0].Meta = &probe.MetaSample{Brokers: []int32{1}}
	tb := Summarise(s)
	cpu := row(t, tb, "broker 1", "cpu")
	if cpu.Amount.Missing != NoMetricsEndpoint || cpu.Saturation.Missing != NotObservableRemotely {
		t.Errorf("remote broker without an endpoint: cpu %+v", cpu)
	}
}

func TestCPU(t *testing.T) {
	s := synthetic(4, make([]probe.Num, 4), make([]probe.Num, 4))
	// Broker 1 at 0.8, 0.8, gone, 0.4; broker 2 seen once at 1.0; plimsoll 0.5 throughout but
	// missing once.
	s.Samples[2].Host.Brokers[1] = probe.ProcSample{CPU: probe.Missing, Err: "gone"}
	s.Samples[3].Host.Brokers[1] = probe.ProcSample{CPU: 0.4}
	s.Samples[1].Host.Brokers[2] = probe.ProcSample{CPU: 1}
	s.Samples[0].Host.Self.CPU = probe.Missing
	s.Samples = append(s.Samples, probe.Sample{}) // no host at all
	got := CPU(s)
	want := []ProcessCPU{
		{Process: "broker 1", Broker: 1, Cores: 2.0 / 3, Samples: 3},
		{Process: "broker 2", Broker: 2, Cores: 1, Samples: 1},
		{Process: "plimsoll", Cores: 0.5, Samples: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("CPU = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Process != want[i].Process || got[i].Broker != want[i].Broker || got[i].Samples != want[i].Samples ||
			math.Abs(got[i].Cores-want[i].Cores) > 1e-12 {
			t.Errorf("CPU[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	cores, n := BrokersCPU(got)
	if n != 2 || math.Abs(cores-(2.0/3+1)) > 1e-12 {
		t.Errorf("BrokersCPU = %v over %d brokers, want %v over 2", cores, n, 2.0/3+1)
	}
	if CPU(nil) != nil || len(CPU(&probe.Series{})) != 0 {
		t.Error("no series, yet some CPU")
	}
}

func TestBrokerTraffic(t *testing.T) {
	s := synthetic(4, []probe.Num{0.5, 0.5, probe.Missing, 0.5}, []probe.Num{1e6, 3e6, probe.Missing, 2e6})
	for i, x := range s.Samples {
		b := x.Brokers[1]
		if b.Err == "" {
			b.ReplicationBytesIn, b.ReplicationBytesOut, b.BytesOut = 2e6, 4e6, probe.Num(float64(i))
		}
	}
	// A counter reset leaves one value missing: the mean is of the other seconds.
	s.Samples[3].Brokers[1].BytesOut = probe.Missing
	s.HandlerPools[2] = 2 // broker 2 has an endpoint but never answered
	got := BrokerTraffic(s)
	want := []Traffic{{Broker: 1, ProduceIn: 2e6, ReplicationIn: 2e6, ReplicationOut: 4e6, ConsumeOut: 0.5, Samples: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BrokerTraffic = %+v, want %+v", got, want)
	}
	if BrokerTraffic(nil) != nil {
		t.Error("traffic from no series")
	}
}

// TestLinkOverhead: the shapers' bytes over the brokers' record bytes, over the seconds that
// have all of them; a second without one figure counts for neither.
func TestLinkOverhead(t *testing.T) {
	s := synthetic(3, []probe.Num{0.5, 0.5, 0.5}, []probe.Num{1e6, 1e6, 1e6})
	for i, x := range s.Samples {
		b := x.Brokers[1]
		b.ReplicationBytesIn, b.BytesOut, b.ReplicationBytesOut = 2e6, 1e6, 2e6 // 6e6 records a second
		x.Host.Links = map[int32]probe.LinkSample{1: {In: probe.ShaperSample{Bytes: 3.3e6}, Out: probe.ShaperSample{Bytes: 3.3e6}}}
		if i == 2 { // a replaced qdisc: no rate this second, whatever the records did
			x.Host.Links[1] = probe.LinkSample{In: probe.ShaperSample{Bytes: probe.Missing}, Out: probe.ShaperSample{Bytes: 9e9}}
		}
	}
	s.Samples[1].Brokers[1].BytesOut = probe.Missing
	got, ok := LinkOverhead(s)
	if !ok || math.Abs(got-0.1) > 1e-12 {
		t.Errorf("LinkOverhead = %v, %v; want 0.1 (6.6 MB on the link for 6 MB of records, second 1 only)", got, ok)
	}
	for name, s := range map[string]*probe.Series{"nil": nil, "no links": synthetic(2, []probe.Num{0.5, 0.5}, []probe.Num{1e6, 1e6})} {
		if v, ok := LinkOverhead(s); ok {
			t.Errorf("%s: LinkOverhead = %v, want none", name, v)
		}
	}
}

func TestBusiest(t *testing.T) {
	pct := func(v float64, metric string) Cell {
		return Cell{Metric: metric, Unit: UnitPct, Mean: probe.Num(v), Max: probe.Num(v), Samples: 1}
	}
	tb := &Table{Rows: []Row{
		{Entity: "broker 2", Resource: "network in", Utilisation: pct(97, "wire bytes in ÷ NIC")},
		{Entity: "broker 1", Resource: "cpu", Utilisation: pct(40, "JVM share")},
		{Entity: "broker 1", Resource: "disk", Utilisation: blank(NoDiskCapacity)},
		{Entity: "broker 1", Resource: "request queue", Utilisation: Cell{Unit: UnitPerS, Mean: 500, Samples: 1}},
		{Entity: "broker 1", Resource: "network in", Utilisation: pct(40, "wire")},
		{Entity: "client host", Resource: "cpu", Utilisation: pct(60, "busy")},
	}}
	got := Busiest(tb, 3)
	want := []Busy{
		{"broker 2", "network in", "wire bytes in ÷ NIC", 97},
		{"client host", "cpu", "busy", 60},
		{"broker 1", "cpu", "JVM share", 40}, // before "broker 1 network in": same utilisation, sorted by name
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Busiest = %+v, want %+v", got, want)
	}
	if len(Busiest(tb, 10)) != 4 || Busiest(nil, 5) != nil {
		t.Error("Busiest keeps only cells in percent, and nothing of no table")
	}
}

// TestSummariseRecorded summarises series the probe recorded on the real local cluster
// (refreshed with go test -tags integration -run TestProbe -update ./probe) and compares with
// golden files.
func TestSummariseRecorded(t *testing.T) {
	for _, name := range []string{"series-traffic", "series-pause"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "probe", "testdata", name+".json"))
			if err != nil {
				t.Skipf("no recorded series: %v", err)
			}
			var s probe.Series
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(Summarise(&s), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".use.json", append(js, '\n'))
		})
	}
}

func BenchmarkSummarise(b *testing.B) {
	s := synthetic(600, make([]probe.Num, 600), make([]probe.Num, 600))
	b.ReportAllocs()
	for b.Loop() {
		_ = Summarise(s)
	}
}

// TestCPUParts: each process's user and system time and its compilers' user time, averaged over
// the samples that read them beside its CPU; absent where none did, as in a sample recorded
// before they were kept (read back from its JSON).
func TestCPUParts(t *testing.T) {
	n := func(v float64) *probe.Num { x := probe.Num(v); return &x }
	var old probe.ProcSample
	if err := json.Unmarshal([]byte(`{"pid":7,"cpu_cores":0.9,"compiler_cores":0.3,"state":"S","rss_bytes":1,"threads":9,"runq_wait":null,"sched_latency_p99_s":null}`), &old); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                       string
		samples                    []probe.ProcSample
		user, system, jit, jitUser float64 // -1: absent
	}{
		{"split every second", []probe.ProcSample{
			{CPU: 1, User: n(0.7), System: n(0.3), Compiler: n(0.25), CompilerUser: n(0.2)},
			{CPU: 0.5, User: n(0.3), System: n(0.2), Compiler: n(0.05), CompilerUser: n(0.0)},
		}, 0.5, 0.25, 0.15, 0.1},
		{"a second without the split counts in CPU only", []probe.ProcSample{
			{CPU: 1, User: n(0.7), System: n(0.3), Compiler: n(0.2), CompilerUser: n(0.2)},
			{CPU: 0.5, Compiler: n(0.1)},
		}, 0.7, 0.3, 0.15, 0.2},
		{"parts of a second without CPU left out", []probe.ProcSample{
			{CPU: 1, User: n(0.6), System: n(0.4)},
			{CPU: probe.Missing, User: n(5), System: n(5), CompilerUser: n(5)},
		}, 0.6, 0.4, -1, -1},
		{"a record from before the split", []probe.ProcSample{old, old}, -1, -1, 0.3, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &probe.Series{}
			for _, p := range c.samples {
				s.Samples = append(s.Samples, probe.Sample{Host: &probe.HostSample{Self: probe.ProcSample{CPU: probe.Missing},
					Brokers: map[int32]probe.ProcSample{1: p}}})
			}
			got := CPU(s)
			if len(got) != 1 {
				t.Fatalf("CPU = %+v, want broker 1 alone", got)
			}
			for _, f := range []struct {
				what string
				got  *float64
				want float64
			}{{"user", got[0].User, c.user}, {"system", got[0].System, c.system}, {"compiler", got[0].Compiler, c.jit}, {"compiler user", got[0].CompilerUser, c.jitUser}} {
				switch {
				case f.want < 0 && f.got != nil:
					t.Errorf("%s = %v, want absent", f.what, *f.got)
				case f.want >= 0 && (f.got == nil || math.Abs(*f.got-f.want) > 1e-12):
					t.Errorf("%s = %v, want %v", f.what, f.got, f.want)
				}
			}
		})
	}
}
