package probe

import (
	"errors"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// HostSample is one interval's view of the host plimsoll runs on (and, for a local cluster,
// the brokers run on). Rates are per second over Interval; fractions are 0..1.
type HostSample struct {
	// Errs lists what could not be read this interval (those values are missing).
	Errs     []string `json:"errs,omitempty"`
	Interval float64  `json:"interval_s"`
	Cores    int      `json:"cores"`
	// CPU is the share of all cores' time by kind, from /proc/stat.
	CPU CPUSample `json:"cpu"`
	// RunQueue is the number of runnable tasks at the end of the interval, the probe's own
	// reading thread not counted (/proc/stat procs_running - 1).
	RunQueue Num `json:"run_queue"`
	Load1    Num `json:"load1"`
	// Pressure is the share of time at least one task stalled waiting for the resource
	// (Linux PSI "some", /proc/pressure/*); missing on kernels without PSI.
	CPUPressure    Num `json:"cpu_pressure"`
	IOPressure     Num `json:"io_pressure"`
	MemoryPressure Num `json:"memory_pressure"`
	// Self is plimsoll's own process.
	Self ProcSample `json:"self"`
	// Brokers are the local broker JVMs by broker id (Config.BrokerPIDs).
	Brokers map[int32]ProcSample `json:"brokers,omitempty"`
	Net     []IfaceSample        `json:"net,omitempty"`
	// Qdiscs are the root qdiscs of the probe's namespace that carried traffic or held a
	// backlog (netlink), its queueing disciplines such as fq_codel; noqueue interfaces and the
	// broker links' ends are left out.
	Qdiscs []ShaperSample `json:"qdiscs,omitempty"`
	// Links are the brokers' emulated links by broker id (Config.Links).
	Links  map[int32]LinkSample `json:"links,omitempty"`
	TCP    TCPSample            `json:"tcp"`
	Disks  []DiskSample         `json:"disks,omitempty"`
	Memory MemorySample         `json:"memory"`
}

// CPUSample splits the host's CPU time; Busy is everything but Idle and IOWait.
type CPUSample struct {
	User   Num `json:"user"`   // user + nice
	System Num `json:"system"` // system + irq + softirq
	IOWait Num `json:"iowait"`
	Steal  Num `json:"steal"` // taken by the hypervisor for other guests
	Idle   Num `json:"idle"`
	Busy   Num `json:"busy"`
}

// ProcSample is one process's use of the host.
type ProcSample struct {
	PID int `json:"pid"`
	// CPU is CPU seconds per second (utime+stime): 1.0 is one core fully busy.
	CPU Num `json:"cpu_cores"`
	// User and System are the two parts of CPU, cores: utime, the process's own code (a JVM's
	// crypto and its JIT compilers included), and stime, the kernel's work on its behalf plus,
	// on kernels without CONFIG_IRQ_TIME_ACCOUNTING, the softirq work (network receive, veth
	// pairs, tbf shapers) that happened to interrupt it. Nil when CPU is missing, and in records
	// from before they were kept.
	User   *Num `json:"user_cores,omitempty"`
	System *Num `json:"system_cores,omitempty"`
	// Compiler is the part of CPU that a broker JVM's JIT compiler threads used
	// (/proc/PID/task/TID/stat of the threads HotSpot names C1 and C2 CompilerThread), cores:
	// work a freshly started JVM does for minutes and a long-running one has done (docs/warmup.md).
	// Nil when not read (plimsoll itself, a process gone).
	Compiler *Num `json:"compiler_cores,omitempty"`
	// CompilerUser is the user-time part of Compiler (the compiler threads' utime), the share of
	// User that was JIT compiling. Nil when Compiler is, and in records from before it was kept.
	CompilerUser *Num `json:"compiler_user_cores,omitempty"`
	// State is the proc(5) state letter: R running, S sleeping, D disk wait, T stopped (SIGSTOP),
	// Z zombie; "" when the process is gone.
	State   string `json:"state"`
	RSS     Num    `json:"rss_bytes"`
	Threads int    `json:"threads"`
	// RunQueueWait is thread-seconds per second spent runnable but waiting for a CPU, summed over
	// the process's threads (/proc/PID/task/*/schedstat). Measured for plimsoll only.
	RunQueueWait Num `json:"runq_wait"`
	// SchedLatencyP99 is the 99th percentile, over this interval, of the time goroutines waited
	// to be scheduled (Go runtime metric /sched/latencies:seconds), in seconds. plimsoll only.
	SchedLatencyP99 Num `json:"sched_latency_p99_s"`
	// SchedLatency is the distribution behind SchedLatencyP99, so that a window's seconds can be
	// merged (never their percentiles averaged). plimsoll only; nil when not measured.
	SchedLatency *SchedHist `json:"sched_latency,omitempty"`
	// NIC is the broker's emulated NIC (eth0 in its own network namespace): bytes received are
	// its inbound traffic, bytes sent its outbound. Nil on loopback.
	NIC *IfaceSample `json:"nic,omitempty"`
	// TCP is the TCP of the broker's own network namespace (/proc/PID/net/snmp), for a broker
	// with an emulated NIC; nil on loopback, where it would be the host's (HostSample.TCP).
	TCP *TCPSample `json:"tcp,omitempty"`
	Err string     `json:"err,omitempty"`
}

// IfaceSample is one network interface's traffic, per second.
type IfaceSample struct {
	Name      string `json:"name"`
	RxBytes   Num    `json:"rx_bytes"`
	TxBytes   Num    `json:"tx_bytes"`
	RxPackets Num    `json:"rx_packets"`
	TxPackets Num    `json:"tx_packets"`
	RxDrops   Num    `json:"rx_drops"`
	TxDrops   Num    `json:"tx_drops"`
	RxErrs    Num    `json:"rx_errs"`
	TxErrs    Num    `json:"tx_errs"`
}

// TCPSample is the host's TCP segments per second (/proc/net/snmp).
type TCPSample struct {
	OutSegs     Num `json:"out_segs"`
	RetransSegs Num `json:"retrans_segs"`
	InErrs      Num `json:"in_errs"`
}

// DiskSample is one block device (whole disks only, never-used devices left out).
type DiskSample struct {
	Name       string `json:"name"`
	ReadBytes  Num    `json:"read_bytes"`
	WriteBytes Num    `json:"write_bytes"`
	ReadIOs    Num    `json:"read_ios"`
	WriteIOs   Num    `json:"write_ios"`
	// Util is the share of the interval with at least one request in flight (io_ticks).
	Util Num `json:"util"`
	// Queue is the average number of requests in flight (weighted time in queue / interval).
	Queue Num `json:"queue"`
}

// MemorySample is /proc/meminfo at the end of the interval, in bytes.
type MemorySample struct {
	Total     Num `json:"total"`
	Available Num `json:"available"`
	Cached    Num `json:"cached"` // page cache
	Dirty     Num `json:"dirty"`  // written, not yet on disk
	Writeback Num `json:"writeback"`
}

// hostReader reads the host's counters from a proc tree (the real /proc, or testdata).
type hostReader struct {
	fs      procfs.FS
	root    string          // fs's mount point
	block   *blockdevice.FS // nil when the sys tree cannot be opened: no disks
	selfPID int
	brokers map[int32]int
	sched   func() schedHist // Go scheduler latency histogram; nil in tests
	// compilerTIDs caches, per broker pid, which of its threads are JIT compilers.
	compilerTIDs map[int]map[int]bool
}

// threadsOf is pid's entry of the compiler-thread cache, made on first use.
func (h *hostReader) threadsOf(pid int) map[int]bool {
	if h.compilerTIDs == nil {
		h.compilerTIDs = map[int]map[int]bool{}
	}
	if h.compilerTIDs[pid] == nil {
		h.compilerTIDs[pid] = map[int]bool{}
	}
	return h.compilerTIDs[pid]
}

// newHostReader opens the proc tree at procRoot (and sysRoot, which procfs's block device
// reader wants to exist) for plimsoll's process selfPID and the local brokers' JVMs.
func newHostReader(procRoot, sysRoot string, selfPID int, brokers map[int32]int) (*hostReader, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, err
	}
	h := &hostReader{fs: fs, root: procRoot, selfPID: selfPID, brokers: brokers}
	if b, err := blockdevice.NewFS(procRoot, sysRoot); err == nil {
		h.block = &b
	}
	return h, nil
}

// hostReading is one cumulative reading; two of them make a HostSample.
type hostReading struct {
	at      time.Time
	errs    []string
	stat    *statFile
	load1   *float64
	psi     [3]*uint64 // cpu, io, memory
	selfPID int
	pids    map[int32]int // broker id -> pid
	self    *pidStat
	selfErr string
	wait    map[int]uint64 // plimsoll's threads: tid -> run-queue wait ns
	sched   schedHist
	brokers map[int32]*pidStat
	brErr   map[int32]string
	// brNIC is eth0 of each broker that runs in a network namespace of its own (an emulated
	// NIC), read through /proc/PID/net/dev, which shows the process's namespace.
	brNIC map[int32]ifCounters
	// brTCP is the TCP counters of those brokers' namespaces.
	brTCP map[int32]tcpCounters
	net   []ifCounters
	tcp   *tcpCounters
	disks []diskCounters
	mem   *memInfo
}

func (h *hostReader) read(at time.Time) *hostReading {
	r := &hostReading{at: at, brokers: map[int32]*pidStat{}, brErr: map[int32]string{}, selfPID: h.selfPID, pids: h.brokers}
	h.readSystem(r)
	h.readProcesses(r)
	return r
}

// keep stores v in *dst, or records err as one of the reading's failures.
func keep[T any](r *hostReading, dst **T, v T, err error) {
	if err != nil {
		r.errs = append(r.errs, err.Error())
		return
	}
	*dst = &v
}

// readSystem reads the host-wide files: CPU, load, pressure, network, TCP, disks, memory.
func (h *hostReader) readSystem(r *hostReading) {
	st, err := readStat(h.fs)
	keep(r, &r.stat, st, err)
	l1, err := readLoad1(h.fs)
	keep(r, &r.load1, l1, err)
	for i, res := range []string{"cpu", "io", "memory"} {
		v, err := readPressure(h.fs, res)
		if errors.Is(err, os.ErrNotExist) {
			continue // kernel without PSI: not an error, just missing
		}
		keep(r, &r.psi[i], v, err)
	}
	if n, err := readNetDev(h.fs, 0); err != nil {
		r.errs = append(r.errs, err.Error())
	} else {
		r.net = n
	}
	tcp, err := readSNMP(h.fs, h.selfPID)
	keep(r, &r.tcp, tcp, err)
	if h.block != nil {
		if d, err := readDiskstats(*h.block); err != nil {
			r.errs = append(r.errs, err.Error())
		} else {
			r.disks = wholeDisks(d)
		}
	}
	m, err := readMeminfo(h.fs)
	keep(r, &r.mem, m, err)
}

// readProcesses reads plimsoll's own process and the local brokers' JVMs.
func (h *hostReader) readProcesses(r *hostReading) {
	if p, err := readPIDStat(h.fs, h.root, h.selfPID); err != nil {
		r.selfErr = err.Error()
	} else {
		r.self = &p
	}
	r.wait = taskWaits(h.fs, h.selfPID)
	if h.sched != nil {
		r.sched = h.sched()
	}
	mine, mineOK := netNamespace(h.fs, h.selfPID)
	for id, pid := range h.brokers {
		if p, err := readPIDStat(h.fs, h.root, pid); err != nil {
			r.brErr[id] = err.Error()
		} else {
			p.compilers, p.compilersUser = compilerTicks(h.fs, pid, h.threadsOf(pid))
			r.brokers[id] = &p
		}
		if !mineOK {
			continue
		}
		if c, ok := h.nsNIC(pid, mine); ok {
			if r.brNIC == nil {
				r.brNIC, r.brTCP = map[int32]ifCounters{}, map[int32]tcpCounters{}
			}
			r.brNIC[id] = c
			if t, err := readSNMP(h.fs, pid); err == nil {
				r.brTCP[id] = t
			}
		}
	}
}

// nsNIC reads eth0 of pid's network namespace when that is not mine (this process's): the
// broker's emulated NIC. Brokers in this namespace (loopback) have none.
func (h *hostReader) nsNIC(pid int, mine uint32) (ifCounters, bool) {
	theirs, ok := netNamespace(h.fs, pid)
	if !ok || theirs == mine {
		return ifCounters{}, false
	}
	ifs, err := readNetDev(h.fs, pid)
	if err != nil {
		return ifCounters{}, false
	}
	for _, c := range ifs {
		if c.name == "eth0" {
			return c, true
		}
	}
	return ifCounters{}, false
}

// wholeDisks drops partitions (their I/O is already in the disk's line) and devices that have
// never done any I/O (unused loop and ram devices).
func wholeDisks(ds []diskCounters) []diskCounters {
	names := make(map[string]bool, len(ds))
	for _, d := range ds {
		names[d.name] = true
	}
	out := ds[:0]
	for _, d := range ds {
		if d.zero() || isPartition(d.name, names) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// isPartition reports whether name is another listed device's name followed by a partition
// number: sda1 of sda, nvme0n1p2 of nvme0n1, mmcblk0p1 of mmcblk0.
func isPartition(name string, names map[string]bool) bool {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i == 0 {
		return false
	}
	base := name[:i]
	if names[base] {
		return true
	}
	return strings.HasSuffix(base, "p") && names[base[:len(base)-1]]
}

// diffHost turns two readings into the interval's sample.
func diffHost(prev, cur *hostReading) *HostSample {
	dt := cur.at.Sub(prev.at).Seconds()
	s := &HostSample{Errs: cur.errs, Interval: dt, RunQueue: Missing, Load1: Missing,
		CPUPressure: Missing, IOPressure: Missing, MemoryPressure: Missing}
	s.CPU = CPUSample{Missing, Missing, Missing, Missing, Missing, Missing}
	if cur.stat != nil {
		s.Cores = cur.stat.cores
		s.RunQueue = Num(max(0, cur.stat.procsRunning-1))
	}
	if prev.stat != nil && cur.stat != nil {
		s.CPU = cpuShares(prev.stat.cpu, cur.stat.cpu)
	}
	if cur.load1 != nil {
		s.Load1 = Num(*cur.load1)
	}
	for i, dst := range []*Num{&s.CPUPressure, &s.IOPressure, &s.MemoryPressure} {
		if prev.psi[i] != nil && cur.psi[i] != nil {
			*dst = clamp01(urate(*prev.psi[i], *cur.psi[i], dt) / 1e6)
		}
	}
	s.Self = procSample(prev.self, cur.self, cur.selfErr, dt)
	s.Self.PID = cur.selfPID
	s.Self.RunQueueWait = waitRate(prev.wait, cur.wait, dt)
	d := cur.sched.sub(prev.sched)
	s.Self.SchedLatencyP99 = d.quantile(0.99)
	s.Self.SchedLatency = d.sparse()
	s.Brokers = diffBrokerProcs(prev, cur, dt)
	s.Net = diffNet(prev.net, cur.net, dt)
	s.TCP = diffTCP(prev.tcp, cur.tcp, dt)
	s.Disks = diffDisks(prev.disks, cur.disks, dt)
	s.Memory = MemorySample{Missing, Missing, Missing, Missing, Missing}
	if m := cur.mem; m != nil {
		s.Memory = MemorySample{Num(m.total), Num(m.available), Num(m.cached), Num(m.dirty), Num(m.writeback)}
	}
	return s
}

// diffBrokerProcs is each local broker JVM's interval: CPU, state, memory and its emulated NIC.
func diffBrokerProcs(prev, cur *hostReading, dt float64) map[int32]ProcSample {
	if len(cur.brokers)+len(cur.brErr) == 0 {
		return nil
	}
	out := make(map[int32]ProcSample, len(cur.brokers)+len(cur.brErr))
	for id, p := range cur.brokers {
		out[id] = procSample(prev.brokers[id], p, "", dt)
	}
	for id, e := range cur.brErr {
		out[id] = procSample(nil, nil, e, dt)
	}
	for id, b := range out {
		b.PID = cur.pids[id]
		c, ok1 := cur.brNIC[id]
		p, ok2 := prev.brNIC[id]
		if ok1 && ok2 {
			if d := diffNet([]ifCounters{p}, []ifCounters{c}, dt); len(d) == 1 {
				b.NIC = &d[0]
			}
		}
		if c, ok := cur.brTCP[id]; ok {
			var p *tcpCounters
			if v, ok := prev.brTCP[id]; ok {
				p = &v
			}
			t := diffTCP(p, &c, dt)
			b.TCP = &t
		}
		out[id] = b
	}
	return out
}

// diffTCP is the interval's TCP rates; missing without both readings.
func diffTCP(prev, cur *tcpCounters, dt float64) TCPSample {
	if prev == nil || cur == nil {
		return TCPSample{Missing, Missing, Missing}
	}
	return TCPSample{
		OutSegs:     urate(prev.outSegs, cur.outSegs, dt),
		RetransSegs: urate(prev.retransSegs, cur.retransSegs, dt),
		InErrs:      urate(prev.inErrs, cur.inErrs, dt),
	}
}

func cpuShares(p, c cpuTimes) CPUSample {
	if c.total() <= p.total() {
		return CPUSample{Missing, Missing, Missing, Missing, Missing, Missing}
	}
	tot := float64(c.total() - p.total())
	d := func(a, b uint64) Num {
		if b < a {
			return Missing
		}
		return Num(float64(b-a) / tot)
	}
	s := CPUSample{
		User:   d(p.user+p.nice, c.user+c.nice),
		System: d(p.system+p.irq+p.softirq, c.system+c.irq+c.softirq),
		IOWait: d(p.iowait, c.iowait),
		Steal:  d(p.steal, c.steal),
		Idle:   d(p.idle, c.idle),
	}
	s.Busy = Missing
	if s.Idle.OK() && s.IOWait.OK() {
		s.Busy = clamp01(1 - s.Idle - s.IOWait)
	}
	return s
}

func procSample(prev, cur *pidStat, errText string, dt float64) ProcSample {
	s := ProcSample{CPU: Missing, RSS: Missing, RunQueueWait: Missing, SchedLatencyP99: Missing, Err: errText}
	if cur == nil {
		return s
	}
	s.State = string(cur.state)
	s.Threads = cur.threads
	s.RSS = Num(cur.rssPages * int64(os.Getpagesize()))
	// A different start time is a different process behind a reused pid (a restarted broker).
	if prev != nil && prev.starttime == cur.starttime {
		s.CPU = urate(prev.utime+prev.stime, cur.utime+cur.stime, dt) / clockTicks
		if s.CPU.OK() {
			s.User, s.System = ticksRate(prev.utime, cur.utime, dt), ticksRate(prev.stime, cur.stime, dt)
		}
		s.Compiler = compilerRate(prev.compilers, cur.compilers, dt)
		if s.Compiler != nil {
			s.CompilerUser = compilerRate(prev.compilersUser, cur.compilersUser, dt)
		}
	}
	return s
}

// ticksRate is a clock-tick counter's rate, cores; nil when it went backwards.
func ticksRate(prev, cur uint64, dt float64) *Num {
	n := urate(prev, cur, dt) / clockTicks
	if !n.OK() {
		return nil
	}
	return &n
}

// compilerRate is the JIT compiler threads' CPU over the interval, cores: a thread seen at both
// readings counts its difference, one started since counts all it used (its ticks began after
// the first reading); one that ended meanwhile loses its last interval's share. Nil without
// both readings.
func compilerRate(prev, cur map[int]uint64, dt float64) *Num {
	if prev == nil || cur == nil || dt <= 0 {
		return nil
	}
	n := Num(float64(threadsGrew(prev, cur, true)) / clockTicks / dt)
	return &n
}

func waitRate(prev, cur map[int]uint64, dt float64) Num {
	if prev == nil || cur == nil || dt <= 0 {
		return Missing
	}
	return Num(float64(threadsGrew(prev, cur, false)) / 1e9 / dt)
}

// threadsGrew sums, over the threads of cur (by id), how much each counter grew since prev; a
// thread not in prev counts all of its counter when started counts (it started meanwhile), and
// a counter that went back counts nothing.
func threadsGrew(prev, cur map[int]uint64, started bool) uint64 {
	var sum uint64
	for tid, c := range cur {
		p, ok := prev[tid]
		switch {
		case !ok && started:
			sum += c
		case ok && c >= p:
			sum += c - p
		}
	}
	return sum
}

func diffNet(prev, cur []ifCounters, dt float64) []IfaceSample {
	var out []IfaceSample
	for _, c := range cur {
		if c.zero() {
			continue
		}
		var p *ifCounters
		for i := range prev {
			if prev[i].name == c.name {
				p = &prev[i]
			}
		}
		if p == nil {
			continue // a new interface: rates from the next interval on
		}
		out = append(out, IfaceSample{
			Name:    c.name,
			RxBytes: urate(p.rxBytes, c.rxBytes, dt), TxBytes: urate(p.txBytes, c.txBytes, dt),
			RxPackets: urate(p.rxPackets, c.rxPackets, dt), TxPackets: urate(p.txPackets, c.txPackets, dt),
			RxDrops: urate(p.rxDrop, c.rxDrop, dt), TxDrops: urate(p.txDrop, c.txDrop, dt),
			RxErrs: urate(p.rxErrs, c.rxErrs, dt), TxErrs: urate(p.txErrs, c.txErrs, dt),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func diffDisks(prev, cur []diskCounters, dt float64) []DiskSample {
	var out []DiskSample
	for _, c := range cur {
		var p *diskCounters
		for i := range prev {
			if prev[i].name == c.name {
				p = &prev[i]
			}
		}
		if p == nil {
			continue
		}
		out = append(out, DiskSample{
			Name:       c.name,
			ReadBytes:  urate(p.sectorsRead, c.sectorsRead, dt) * sectorBytes,
			WriteBytes: urate(p.sectorsWritten, c.sectorsWritten, dt) * sectorBytes,
			ReadIOs:    urate(p.reads, c.reads, dt),
			WriteIOs:   urate(p.writes, c.writes, dt),
			Util:       clamp01(urate(p.ioTicksMs, c.ioTicksMs, dt) / 1000),
			Queue:      urate(p.weightedMs, c.weightedMs, dt) / 1000,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
