package probe

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestHostReader reads two real /proc snapshots taken a second apart while a busy loop ran
// (pid 4242 in testdata) and checks the interval's sample.
func TestHostReader(t *testing.T) {
	brokers := map[int32]int{1: 4242, 2: 999999}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := testHost(t, "testdata/proc-a", brokers).read(t0)
	b := testHost(t, "testdata/proc-b", brokers).read(t0.Add(time.Second))
	if len(a.errs)+len(b.errs) > 0 {
		t.Fatalf("reading errors: %v %v", a.errs, b.errs)
	}
	s := diffHost(a, b)

	near := func(what string, got Num, want float64) {
		t.Helper()
		if !got.OK() || math.Abs(float64(got)-want) > 1e-3 {
			t.Errorf("%s = %v, want %.4f", what, got, want)
		}
	}
	// 100 ticks of utime in one second: one core.
	near("self CPU", s.Self.CPU, 1.0)
	near("broker 1 CPU", s.Brokers[1].CPU, 1.0)
	if s.Brokers[2].Err == "" || s.Brokers[2].CPU.OK() {
		t.Errorf("broker 2 (no such pid) = %+v, want an error and missing CPU", s.Brokers[2])
	}
	// /proc/stat: 204 user, 4 system, 1 steal ticks of 209.
	near("user", s.CPU.User, 204.0/209)
	near("system", s.CPU.System, 4.0/209)
	near("steal", s.CPU.Steal, 1.0/209)
	near("busy", s.CPU.Busy, 1)
	sum := s.CPU.User + s.CPU.System + s.CPU.IOWait + s.CPU.Steal + s.CPU.Idle
	near("sum of CPU shares", sum, 1)
	near("cpu pressure", s.CPUPressure, (431338556-431007808)/1e6)
	near("run-queue wait", s.Self.RunQueueWait, (185070057-135627222)/1e9)
	if s.Cores != 2 || s.RunQueue != 2 {
		t.Errorf("cores %d run queue %v, want 2 and 2 (3 running minus the reader)", s.Cores, s.RunQueue)
	}
	if s.Memory.Total != 25276502016 || s.Memory.Available != 24659079168 {
		t.Errorf("memory %+v", s.Memory)
	}
	// Interfaces with no traffic ever (ifb0, ifb1) are left out.
	if len(s.Net) != 2 || s.Net[0].Name != "eth0" || s.Net[1].Name != "lo" {
		t.Errorf("interfaces %+v, want eth0 and lo", s.Net)
	}
	if len(s.Disks) != 1 || s.Disks[0].Name != "vda" {
		t.Errorf("disks %+v, want vda only", s.Disks)
	}
	// RSS depends on the page size of the machine running the test.
	for id, p := range s.Brokers {
		p.RSS = 0
		s.Brokers[id] = p
	}
	s.Self.RSS = 0
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "host-sample.golden.json", append(got, '\n'))
}

// testHost reads a proc tree in testdata as plimsoll's pid 4242.
func testHost(t testing.TB, root string, brokers map[int32]int) *hostReader {
	t.Helper()
	h, err := newHostReader(root, "testdata", 4242, brokers)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDiffHostRates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := &hostReading{at: t0,
		net:   []ifCounters{{name: "eth0", rxBytes: 1000, txBytes: 500, rxPackets: 10, rxDrop: 1}},
		disks: []diskCounters{{name: "sda", sectorsWritten: 100, writes: 10, ioTicksMs: 1000, weightedMs: 2000}},
		tcp:   &tcpCounters{outSegs: 100, retransSegs: 5},
	}
	b := &hostReading{at: t0.Add(2 * time.Second),
		net:   []ifCounters{{name: "eth0", rxBytes: 5000, txBytes: 300, rxPackets: 30, rxDrop: 3}, {name: "eth1", rxBytes: 9}},
		disks: []diskCounters{{name: "sda", sectorsWritten: 4100, writes: 30, ioTicksMs: 2500, weightedMs: 5000}},
		tcp:   &tcpCounters{outSegs: 300, retransSegs: 9},
	}
	s := diffHost(a, b)
	if len(s.Net) != 1 {
		t.Fatalf("interfaces %+v: want eth0 only (eth1 has no earlier reading)", s.Net)
	}
	n := s.Net[0]
	if n.RxBytes != 2000 || n.RxPackets != 10 || n.RxDrops != 1 {
		t.Errorf("eth0 rx %v B/s %v pkt/s %v drops/s, want 2000 10 1", n.RxBytes, n.RxPackets, n.RxDrops)
	}
	if n.TxBytes.OK() {
		t.Errorf("tx bytes went backwards (a reset): %v, want missing", n.TxBytes)
	}
	d := s.Disks[0]
	if d.WriteBytes != 4000*512/2 || d.WriteIOs != 10 || d.Util != 0.75 || d.Queue != 1.5 {
		t.Errorf("disk %+v, want 1024000 B/s, 10 IO/s, util 0.75, queue 1.5", d)
	}
	if s.TCP.RetransSegs != 2 || s.TCP.OutSegs != 100 {
		t.Errorf("tcp %+v, want 2 retrans/s of 100 segs/s", s.TCP)
	}
	if s.CPU.Busy.OK() || s.Self.CPU.OK() {
		t.Errorf("no stat readings, yet CPU %v self %v", s.CPU.Busy, s.Self.CPU)
	}
}

func TestProcSampleRestartedProcess(t *testing.T) {
	prev := &pidStat{state: 'S', utime: 100, starttime: 5}
	cur := &pidStat{state: 'S', utime: 20, starttime: 900}
	if s := procSample(prev, cur, "", 1); s.CPU.OK() {
		t.Errorf("a pid reused by a new process gave CPU %v, want missing", s.CPU)
	}
	cur.starttime = 5
	cur.utime = 150
	if s := procSample(prev, cur, "", 0.5); s.CPU != 1 {
		t.Errorf("50 ticks in 0.5 s = %v cores, want 1", s.CPU)
	}
}

func TestSchedHist(t *testing.T) {
	prev := schedHist{counts: []uint64{10, 0, 0, 0}, buckets: []float64{0, 1e-6, 1e-3, 1e-1, math.Inf(1)}}
	cur := schedHist{counts: []uint64{100, 9, 1, 0}, buckets: prev.buckets}
	d := cur.sub(prev)
	if q := d.quantile(0.5); q != 1e-6 {
		t.Errorf("p50 = %v, want 1e-6", q)
	}
	if q := d.quantile(0.99); q != 1e-3 {
		t.Errorf("p99 = %v, want 1e-3 (the 100th of 100 samples is in the third bucket)", q)
	}
	open := schedHist{counts: []uint64{0, 0, 0, 5}, buckets: prev.buckets}
	if q := open.quantile(0.99); q != 1e-1 {
		t.Errorf("open last bucket p99 = %v, want its lower bound 0.1", q)
	}
	if q := prev.sub(cur).quantile(0.99); q.OK() {
		t.Errorf("a histogram that went backwards gave %v, want missing", q)
	}
	if h := readSched(); len(h.counts) == 0 {
		t.Error("the runtime reports no scheduling latency histogram")
	}
}

// TestProcSampleUserSystem: a process's CPU split into user and system time, and its JIT
// compilers' user part, each missing (nil) where CPU or the compilers' CPU is.
func TestProcSampleUserSystem(t *testing.T) {
	jit := func(all, user uint64) (map[int]uint64, map[int]uint64) {
		return map[int]uint64{7: all}, map[int]uint64{7: user}
	}
	stat := func(utime, stime, start uint64, jitAll, jitUser uint64, compilers bool) *pidStat {
		p := &pidStat{state: 'S', utime: utime, stime: stime, starttime: start}
		if compilers {
			p.compilers, p.compilersUser = jit(jitAll, jitUser)
		}
		return p
	}
	none := -1.0
	for _, c := range []struct {
		name                            string
		prev, cur                       *pidStat
		cpu, user, system, jit, jitUser float64 // cores over 2 s; none: missing
	}{
		{"user and system", stat(100, 40, 5, 0, 0, false), stat(260, 80, 5, 0, 0, false), 1, 0.8, 0.2, none, none},
		{"the compilers' user part", stat(100, 40, 5, 50, 45, true), stat(260, 80, 5, 90, 80, true), 1, 0.8, 0.2, 0.2, 0.175},
		{"system time only (softirq charged to a sleeping JVM)", stat(100, 40, 5, 0, 0, false), stat(100, 100, 5, 0, 0, false), 0.3, 0, 0.3, none, none},
		{"a pid reused by a new process", stat(100, 40, 5, 0, 0, false), stat(20, 10, 900, 0, 0, false), none, none, none, none, none},
		{"no previous reading", nil, stat(20, 10, 5, 0, 0, false), none, none, none, none, none},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := procSample(c.prev, c.cur, "", 2)
			ptr := func(n *Num) Num {
				if n == nil {
					return Missing
				}
				return *n
			}
			for _, f := range []struct {
				what string
				got  Num
				want float64
			}{{"cpu", s.CPU, c.cpu}, {"user", ptr(s.User), c.user}, {"system", ptr(s.System), c.system},
				{"compiler", ptr(s.Compiler), c.jit}, {"compiler user", ptr(s.CompilerUser), c.jitUser}} {
				if f.want == none && f.got.OK() || f.want != none && (!f.got.OK() || math.Abs(float64(f.got)-f.want) > 1e-9) {
					t.Errorf("%s = %v, want %v (-1: missing)", f.what, f.got, f.want)
				}
			}
		})
	}
}
