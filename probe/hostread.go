package probe

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// The host is read through github.com/prometheus/procfs; this file turns its types into the
// cumulative counters the probe diffs, and checks what procfs leaves to its callers (a line cut
// short, a field absent).

// clockTicks is USER_HZ, the unit of /proc/stat and /proc/PID/stat CPU times: 100 on every
// Linux architecture Go supports (procfs assumes the same).
const clockTicks = 100

// sectorBytes is the unit of /proc/diskstats sector counts, fixed by the kernel whatever the
// device's real sector size.
const sectorBytes = 512

// cpuTimes are the aggregate "cpu" line of /proc/stat, in clock ticks.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

// total leaves out guest and guest_nice: the kernel already counts them in user and nice.
func (c cpuTimes) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// statFile is what the probe reads from /proc/stat.
type statFile struct {
	cpu          cpuTimes
	cores        int // cpuN lines
	procsRunning int // runnable tasks at the moment of reading, the reader included
}

// pidStat is what the probe reads from /proc/PID/stat.
type pidStat struct {
	state        byte   // R, S, D, T (stopped, e.g. SIGSTOP), Z, ...
	utime, stime uint64 // clock ticks
	threads      int
	starttime    uint64 // clock ticks after boot: a different value means a different process
	rssPages     int64
	// compilers is the CPU (utime+stime, clock ticks) of each of a JVM's JIT compiler threads,
	// by thread id; nil when not read (plimsoll itself) or unreadable.
	compilers map[int]uint64
	// compilersUser is the utime part of compilers, by thread id.
	compilersUser map[int]uint64
}

// ifCounters are one interface's line of /proc/net/dev.
type ifCounters struct {
	name                               string
	rxBytes, rxPackets, rxErrs, rxDrop uint64
	txBytes, txPackets, txErrs, txDrop uint64
}

func (c ifCounters) zero() bool {
	return c.rxBytes == 0 && c.txBytes == 0 && c.rxPackets == 0 && c.txPackets == 0
}

// tcpCounters are the Tcp counters of /proc/net/snmp the probe uses.
type tcpCounters struct {
	outSegs, retransSegs, inErrs uint64
}

// diskCounters are one device's line of /proc/diskstats.
type diskCounters struct {
	name                   string
	reads, sectorsRead     uint64
	writes, sectorsWritten uint64
	ioTicksMs, weightedMs  uint64 // time busy, and time × requests in flight
}

func (d diskCounters) zero() bool {
	return d.reads == 0 && d.writes == 0 && d.ioTicksMs == 0
}

// memInfo is what the probe reads from /proc/meminfo, in bytes.
type memInfo struct {
	total, available, cached, dirty, writeback uint64
}

// guard runs a procfs call, turning a panic on malformed text into an ErrParse error: procfs
// v0.23.0 indexes past the end of a /proc/net/dev line with fewer than 16 counters and of a
// /proc/PID/stat that ends at the command name's ')' (FuzzReadNetDev, FuzzReadPIDStat). The
// kernel writes no such file; a reading that hits one is missing, not a crash.
func guard[T any](what string, f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("%w %s: %v", ErrParse, what, r)
		}
	}()
	v, err = f()
	if err != nil && !errors.Is(err, ErrParse) && !errors.Is(err, os.ErrNotExist) {
		err = fmt.Errorf("%w %s: %w", ErrParse, what, err)
	}
	return v, err
}

// ticks converts procfs's seconds back to the clock ticks the kernel counted.
func ticks(seconds float64) uint64 { return uint64(math.Round(seconds * clockTicks)) }

func readStat(fs procfs.FS) (statFile, error) {
	st, err := guard("/proc/stat", fs.Stat)
	if err != nil {
		return statFile{}, err
	}
	c := st.CPUTotal
	s := statFile{
		cpu: cpuTimes{ticks(c.User), ticks(c.Nice), ticks(c.System), ticks(c.Idle),
			ticks(c.Iowait), ticks(c.IRQ), ticks(c.SoftIRQ), ticks(c.Steal)},
		cores: len(st.CPU), procsRunning: int(min(st.ProcessesRunning, math.MaxInt32)),
	}
	if s.cores == 0 || s.cpu.total() == 0 {
		return statFile{}, fmt.Errorf("%w /proc/stat: no aggregate cpu line or no per-core lines", ErrParse)
	}
	// procfs reads as many times as a cpu line has, leaving the rest 0. Every kernel prints at
	// least user, nice, system and idle, and a running host's idle time is never 0: without it
	// the line was cut short.
	if c.Idle <= 0 {
		return statFile{}, fmt.Errorf("%w /proc/stat: the cpu line has no idle time, want at least 4 times", ErrParse)
	}
	return s, nil
}

func readLoad1(fs procfs.FS) (float64, error) {
	l, err := guard("/proc/loadavg", fs.LoadAvg)
	if err != nil {
		return 0, err
	}
	if l == nil || l.Load1 < 0 || math.IsNaN(l.Load1) || math.IsInf(l.Load1, 0) {
		return 0, fmt.Errorf("%w /proc/loadavg: no 1-minute load", ErrParse)
	}
	return l.Load1, nil
}

// readPressure returns the "some" stall total in microseconds from /proc/pressure/res; an
// error wrapping os.ErrNotExist on a kernel without PSI.
func readPressure(fs procfs.FS, res string) (uint64, error) {
	p, err := guard("/proc/pressure/"+res, func() (procfs.PSIStats, error) { return fs.PSIStatsForResource(res) })
	if err != nil {
		return 0, err
	}
	if p.Some == nil {
		return 0, fmt.Errorf("%w /proc/pressure/%s: no \"some\" line", ErrParse, res)
	}
	return p.Some.Total, nil
}

// readPIDStat reads /proc/PID/stat from the proc tree fs, mounted at root.
func readPIDStat(fs procfs.FS, root string, pid int) (pidStat, error) {
	p, err := fs.Proc(pid)
	if err != nil {
		return pidStat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	st, err := guard(fmt.Sprintf("/proc/%d/stat", pid), p.Stat)
	if err != nil {
		return pidStat{}, err
	}
	if len(st.State) != 1 || st.NumThreads < 0 {
		return pidStat{}, fmt.Errorf("%w /proc/%d/stat: state %q, %d threads", ErrParse, pid, st.State, st.NumThreads)
	}
	if err := checkStatLine(root, pid); err != nil {
		return pidStat{}, err
	}
	return pidStat{state: st.State[0], utime: uint64(st.UTime), stime: uint64(st.STime), threads: st.NumThreads,
		starttime: st.Starttime, rssPages: int64(st.RSS)}, nil
}

// readNetDev returns the interfaces of a /proc/net/dev (the host's, or a process's namespace's
// with pid > 0), sorted by name.
func readNetDev(fs procfs.FS, pid int) ([]ifCounters, error) {
	read := fs.NetDev
	if pid > 0 {
		p, err := fs.Proc(pid)
		if err != nil {
			return nil, err
		}
		read = p.NetDev
	}
	nd, err := guard("/proc/net/dev", read)
	if err != nil {
		return nil, err
	}
	out := make([]ifCounters, 0, len(nd))
	for name, l := range nd {
		if name == "" {
			return nil, fmt.Errorf("%w /proc/net/dev: an interface without a name", ErrParse)
		}
		out = append(out, ifCounters{name: name,
			rxBytes: l.RxBytes, rxPackets: l.RxPackets, rxErrs: l.RxErrors, rxDrop: l.RxDropped,
			txBytes: l.TxBytes, txPackets: l.TxPackets, txErrs: l.TxErrors, txDrop: l.TxDropped})
	}
	slices.SortFunc(out, func(a, b ifCounters) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// readSNMP reads the host-wide TCP counters from /proc/PID/net/snmp of this process, which shows
// its network namespace's (the same as /proc/net/snmp).
func readSNMP(fs procfs.FS, pid int) (tcpCounters, error) {
	p, err := fs.Proc(pid)
	if err != nil {
		return tcpCounters{}, err
	}
	sn, err := guard("/proc/net/snmp", p.Snmp)
	if err != nil {
		return tcpCounters{}, err
	}
	var t tcpCounters
	for _, f := range []struct {
		v   *float64
		dst *uint64
	}{{sn.Tcp.OutSegs, &t.outSegs}, {sn.Tcp.RetransSegs, &t.retransSegs}, {sn.Tcp.InErrs, &t.inErrs}} {
		if f.v == nil || *f.v < 0 || *f.v > 1<<63 || math.IsNaN(*f.v) {
			return tcpCounters{}, fmt.Errorf("%w /proc/net/snmp: Tcp lacks OutSegs, RetransSegs or InErrs", ErrParse)
		}
		*f.dst = uint64(*f.v)
	}
	return t, nil
}

func readDiskstats(bfs blockdevice.FS) ([]diskCounters, error) {
	ds, err := guard("/proc/diskstats", bfs.ProcDiskstats)
	if err != nil {
		return nil, err
	}
	out := make([]diskCounters, 0, len(ds))
	for _, d := range ds {
		// major minor name, then 11 counters (kernels since 4.18 and 5.5 add 4 and 2 more).
		if d.IoStatsCount < 14 {
			return nil, fmt.Errorf("%w /proc/diskstats: device %q has %d fields, want at least 14", ErrParse, d.DeviceName, d.IoStatsCount)
		}
		out = append(out, diskCounters{name: d.DeviceName,
			reads: d.ReadIOs, sectorsRead: d.ReadSectors, writes: d.WriteIOs, sectorsWritten: d.WriteSectors,
			ioTicksMs: d.IOsTotalTicks, weightedMs: d.WeightedIOTicks})
	}
	return out, nil
}

func readMeminfo(fs procfs.FS) (memInfo, error) {
	m, err := guard("/proc/meminfo", fs.Meminfo)
	if err != nil {
		return memInfo{}, err
	}
	vals := []*uint64{m.MemTotalBytes, m.MemAvailableBytes, m.CachedBytes, m.DirtyBytes, m.WritebackBytes}
	if slices.Contains(vals, nil) || *m.MemTotalBytes == 0 {
		return memInfo{}, fmt.Errorf("%w /proc/meminfo: want MemTotal, MemAvailable, Cached, Dirty and Writeback", ErrParse)
	}
	return memInfo{*vals[0], *vals[1], *vals[2], *vals[3], *vals[4]}, nil
}

// taskWaits reads the run-queue wait (ns) of each thread of pid from
// /proc/PID/task/TID/schedstat; threads come and go, so the difference is taken per thread id.
func taskWaits(fs procfs.FS, pid int) map[int]uint64 {
	threads, err := fs.AllThreads(pid)
	if err != nil {
		return nil
	}
	w := make(map[int]uint64, len(threads))
	for _, t := range threads {
		// An error is a thread that exited meanwhile, or schedstats switched off.
		if s, err := guard("schedstat", t.Schedstat); err == nil {
			w[t.PID] = s.WaitingNanoseconds
		}
	}
	return w
}

// compilerThread is the start of the name (comm, cut to 15 bytes) HotSpot gives its JIT
// compiler threads: "C1 CompilerThread0", "C2 CompilerThread1", ...
func compilerThread(comm string) bool {
	return strings.HasPrefix(comm, "C1 CompilerThre") || strings.HasPrefix(comm, "C2 CompilerThre")
}

// compilerTicks reads the CPU of pid's JIT compiler threads from /proc/PID/task/TID/stat, by
// thread id (HotSpot starts and stops compiler threads as the work needs them): all of it
// (utime+stime) and its user part (utime); nil when the threads cannot be listed. known caches which thread ids are compilers (a thread keeps its
// name), so that each second reads the names of new threads only and the stat of compilers
// only: reading every thread's stat took 3.5 ms a second for a broker's 109 threads.
func compilerTicks(fs procfs.FS, pid int, known map[int]bool) (all, user map[int]uint64) {
	threads, err := fs.AllThreads(pid)
	if err != nil {
		return nil, nil
	}
	all, user = map[int]uint64{}, map[int]uint64{}
	seen := make(map[int]bool, len(threads))
	for _, t := range threads {
		seen[t.PID] = true
		compiler, ok := known[t.PID]
		if !ok {
			comm, err := guard("task comm", t.Comm)
			if err != nil {
				continue // exited meanwhile
			}
			compiler = compilerThread(comm)
			known[t.PID] = compiler
		}
		if !compiler {
			continue
		}
		if st, err := guard("task stat", t.Stat); err == nil {
			all[t.PID] = uint64(st.UTime) + uint64(st.STime)
			user[t.PID] = uint64(st.UTime)
		}
	}
	for tid := range known {
		if !seen[tid] {
			delete(known, tid)
		}
	}
	return all, user
}

// netNamespace is the inode of pid's network namespace; false when it cannot be read.
func netNamespace(fs procfs.FS, pid int) (uint32, bool) {
	p, err := fs.Proc(pid)
	if err != nil {
		return 0, false
	}
	ns, err := guard("ns", p.Namespaces)
	if err != nil {
		return 0, false
	}
	n, ok := ns["net"]
	return n.Inode, ok
}

// checkStatLine checks that /proc/PID/stat has the kernel's shape after the name: its closing
// parenthesis, one space, then the state's letter. procfs (v0.23.0) skips the two bytes after
// the last ')' unseen, so a line without that space (never a kernel's, but a fuzzer's, or a file
// cut and mended by hand) would give the next letter as the state. The file is read again for
// this, so only its shape is checked, not the letter: a live process's state changes between
// the two reads (plimsoll's own, R in one and S in the next).
func checkStatLine(root string, pid int) error {
	raw, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return fmt.Errorf("process %d: %w", pid, err)
	}
	r := bytes.LastIndexByte(raw, ')')
	if r < 0 || len(raw) < r+3 || raw[r+1] != ' ' || !isLetter(raw[r+2]) {
		return fmt.Errorf("%w /proc/%d/stat: the name's closing parenthesis is not followed by a space and the state's letter", ErrParse, pid)
	}
	return nil
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
