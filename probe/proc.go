package probe

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// ErrParse is wrapped by every error about text the probe could not read: a /proc file or a
// Prometheus scrape.
var ErrParse = errors.New("probe: cannot parse")

// The /proc parsers below read the text of one file each and return its cumulative counters.
// They never allocate per line beyond what they return, because they run every second.

// clockTicks is USER_HZ (sysconf(_SC_CLK_TCK)), the unit of /proc/stat and /proc/PID/stat CPU
// times. It is 100 on every Linux architecture Go supports.
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
	procsBlocked int
}

func parseStat(b []byte) (statFile, error) {
	var s statFile
	var f [12][]byte
	sawCPU := false
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		fs := fields(line, f[:0])
		if len(fs) == 0 {
			continue
		}
		switch {
		case string(fs[0]) == "cpu":
			if len(fs) < 5 {
				return s, fmt.Errorf("%w /proc/stat: cpu line has %d fields, want at least 4 times", ErrParse, len(fs)-1)
			}
			var v [8]uint64
			for i := 1; i < len(fs) && i <= 8; i++ {
				n, ok := parseUint(fs[i])
				if !ok {
					return s, fmt.Errorf("%w /proc/stat: cpu field %d %q is not a count", ErrParse, i, fs[i])
				}
				v[i-1] = n
			}
			s.cpu = cpuTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
			sawCPU = true
		case bytes.HasPrefix(fs[0], []byte("cpu")):
			s.cores++
		case string(fs[0]) == "procs_running" && len(fs) > 1:
			n, ok := parseUint(fs[1])
			if !ok {
				return s, fmt.Errorf("%w /proc/stat: procs_running %q", ErrParse, fs[1])
			}
			s.procsRunning = int(n)
		case string(fs[0]) == "procs_blocked" && len(fs) > 1:
			n, ok := parseUint(fs[1])
			if !ok {
				return s, fmt.Errorf("%w /proc/stat: procs_blocked %q", ErrParse, fs[1])
			}
			s.procsBlocked = int(n)
		}
	}
	if !sawCPU || s.cores == 0 {
		return s, fmt.Errorf("%w /proc/stat: no aggregate cpu line or no per-core lines", ErrParse)
	}
	return s, nil
}

// loadAvg is /proc/loadavg: "0.52 0.58 0.59 2/305 12345".
type loadAvg struct {
	load1    float64
	runnable int
}

func parseLoadavg(b []byte) (loadAvg, error) {
	var f [6][]byte
	fs := fields(firstLine(b), f[:0])
	if len(fs) < 4 {
		return loadAvg{}, fmt.Errorf("%w /proc/loadavg: %d fields, want 5", ErrParse, len(fs))
	}
	l1, err := strconv.ParseFloat(string(fs[0]), 64)
	if err != nil || l1 < 0 {
		return loadAvg{}, fmt.Errorf("%w /proc/loadavg: load %q", ErrParse, fs[0])
	}
	slash := bytes.IndexByte(fs[3], '/')
	if slash < 0 {
		return loadAvg{}, fmt.Errorf("%w /proc/loadavg: %q is not runnable/total", ErrParse, fs[3])
	}
	r, ok := parseUint(fs[3][:slash])
	if !ok {
		return loadAvg{}, fmt.Errorf("%w /proc/loadavg: runnable %q", ErrParse, fs[3][:slash])
	}
	return loadAvg{load1: l1, runnable: int(r)}, nil
}

// pidStat is what the probe reads from /proc/PID/stat.
type pidStat struct {
	state        byte   // R, S, D, T (stopped, e.g. SIGSTOP), Z, ...
	utime, stime uint64 // clock ticks
	threads      int
	starttime    uint64 // clock ticks after boot: a different value means a different process
	rssPages     int64
}

func parsePIDStat(b []byte) (pidStat, error) {
	// The command name is in parentheses and may itself hold spaces and parentheses, so the
	// fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return pidStat{}, fmt.Errorf("%w /proc/PID/stat: no ')' after the command name", ErrParse)
	}
	var f [48][]byte
	fs := fields(b[i+1:], f[:0])
	// fs[k] is field k+3 of proc(5): state is 3, utime 14, stime 15, num_threads 20,
	// starttime 22, rss 24.
	if len(fs) < 22 || len(fs[0]) != 1 {
		return pidStat{}, fmt.Errorf("%w /proc/PID/stat: %d fields after the name, want at least 22", ErrParse, len(fs))
	}
	var p pidStat
	p.state = fs[0][0]
	var ok [5]bool
	p.utime, ok[0] = parseUint(fs[11])
	p.stime, ok[1] = parseUint(fs[12])
	var th uint64
	th, ok[2] = parseUint(fs[17])
	p.threads = int(th)
	p.starttime, ok[3] = parseUint(fs[19])
	p.rssPages, ok[4] = parseInt(fs[21])
	for k, good := range ok {
		if !good {
			return pidStat{}, fmt.Errorf("%w /proc/PID/stat: field %d is not a number", ErrParse, []int{14, 15, 20, 22, 24}[k])
		}
	}
	return p, nil
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

func parseNetDev(b []byte) ([]ifCounters, error) {
	var out []ifCounters
	var f [20][]byte
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		colon := bytes.IndexByte(line, ':')
		if colon < 0 || bytes.IndexByte(line, '|') >= 0 {
			continue // the two header lines
		}
		name := bytes.TrimSpace(line[:colon])
		fs := fields(line[colon+1:], f[:0])
		if len(name) == 0 || len(fs) < 16 {
			return nil, fmt.Errorf("%w /proc/net/dev: interface %q has %d counters, want 16", ErrParse, name, len(fs))
		}
		var v [16]uint64
		for i := range v {
			n, ok := parseUint(fs[i])
			if !ok {
				return nil, fmt.Errorf("%w /proc/net/dev: interface %q counter %d %q", ErrParse, name, i+1, fs[i])
			}
			v[i] = n
		}
		out = append(out, ifCounters{
			name:    string(name),
			rxBytes: v[0], rxPackets: v[1], rxErrs: v[2], rxDrop: v[3],
			txBytes: v[8], txPackets: v[9], txErrs: v[10], txDrop: v[11],
		})
	}
	return out, nil
}

// tcpCounters are the Tcp counters of /proc/net/snmp the probe uses.
type tcpCounters struct {
	outSegs, retransSegs, inErrs uint64
}

func parseSNMP(b []byte) (tcpCounters, error) {
	// Each protocol is two lines: "Tcp: Name Name ..." then "Tcp: 1 2 ...".
	var names [24][]byte
	var hdr [][]byte
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		if !bytes.HasPrefix(line, []byte("Tcp:")) {
			continue
		}
		if hdr == nil {
			hdr = fields(line[4:], names[:0])
			continue
		}
		var vals [24][]byte
		vs := fields(line[4:], vals[:0])
		if len(vs) != len(hdr) {
			return tcpCounters{}, fmt.Errorf("%w /proc/net/snmp: Tcp has %d names but %d values", ErrParse, len(hdr), len(vs))
		}
		var t tcpCounters
		found := 0
		for i, n := range hdr {
			var dst *uint64
			switch string(n) {
			case "OutSegs":
				dst = &t.outSegs
			case "RetransSegs":
				dst = &t.retransSegs
			case "InErrs":
				dst = &t.inErrs
			default:
				continue
			}
			v, ok := parseUint(vs[i])
			if !ok {
				return tcpCounters{}, fmt.Errorf("%w /proc/net/snmp: Tcp %s %q", ErrParse, n, vs[i])
			}
			*dst = v
			found++
		}
		if found < 2 {
			return tcpCounters{}, fmt.Errorf("%w /proc/net/snmp: Tcp lacks OutSegs or RetransSegs", ErrParse)
		}
		return t, nil
	}
	return tcpCounters{}, fmt.Errorf("%w /proc/net/snmp: no Tcp lines", ErrParse)
}

// diskCounters are one device's line of /proc/diskstats.
type diskCounters struct {
	name                   string
	reads, sectorsRead     uint64
	writes, sectorsWritten uint64
	inFlight               uint64
	ioTicksMs, weightedMs  uint64 // time busy, and time × requests in flight
}

func (d diskCounters) zero() bool {
	return d.reads == 0 && d.writes == 0 && d.ioTicksMs == 0
}

func parseDiskstats(b []byte) ([]diskCounters, error) {
	var out []diskCounters
	var f [24][]byte
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		fs := fields(line, f[:0])
		if len(fs) == 0 {
			continue
		}
		// major minor name, then 11 counters (kernels since 4.18 and 5.5 add 4 and 2 more).
		if len(fs) < 14 {
			return nil, fmt.Errorf("%w /proc/diskstats: %d fields, want at least 14", ErrParse, len(fs))
		}
		var v [11]uint64
		for i := range v {
			n, ok := parseUint(fs[3+i])
			if !ok {
				return nil, fmt.Errorf("%w /proc/diskstats: device %q field %d %q", ErrParse, fs[2], i+4, fs[3+i])
			}
			v[i] = n
		}
		out = append(out, diskCounters{
			name:  string(fs[2]),
			reads: v[0], sectorsRead: v[2], writes: v[4], sectorsWritten: v[6],
			inFlight: v[8], ioTicksMs: v[9], weightedMs: v[10],
		})
	}
	return out, nil
}

// memInfo is what the probe reads from /proc/meminfo, in bytes.
type memInfo struct {
	total, available, cached, dirty, writeback uint64
}

func parseMeminfo(b []byte) (memInfo, error) {
	var m memInfo
	var f [4][]byte
	seen := 0
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		fs := fields(line, f[:0])
		if len(fs) < 2 {
			continue
		}
		var dst *uint64
		switch string(fs[0]) {
		case "MemTotal:":
			dst = &m.total
		case "MemAvailable:":
			dst = &m.available
		case "Cached:":
			dst = &m.cached
		case "Dirty:":
			dst = &m.dirty
		case "Writeback:":
			dst = &m.writeback
		default:
			continue
		}
		v, ok := parseUint(fs[1])
		if !ok || v > 1<<53 {
			return m, fmt.Errorf("%w /proc/meminfo: %s %q", ErrParse, fs[0], fs[1])
		}
		if len(fs) > 2 && string(fs[2]) == "kB" {
			v *= 1024
		}
		*dst = v
		seen++
	}
	if m.total == 0 || seen < 5 {
		return m, fmt.Errorf("%w /proc/meminfo: want MemTotal, MemAvailable, Cached, Dirty and Writeback", ErrParse)
	}
	return m, nil
}

// parsePressure returns the "some" stall total in microseconds from /proc/pressure/{cpu,io,memory}.
func parsePressure(b []byte) (uint64, error) {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		if !bytes.HasPrefix(line, []byte("some ")) {
			continue
		}
		i := bytes.Index(line, []byte("total="))
		if i < 0 {
			break
		}
		v, ok := parseUint(bytes.TrimSpace(line[i+len("total="):]))
		if !ok {
			return 0, fmt.Errorf("%w /proc/pressure: total %q", ErrParse, line[i:])
		}
		return v, nil
	}
	return 0, fmt.Errorf("%w /proc/pressure: no \"some ... total=\" line", ErrParse)
}

// parseSchedstat returns the run-queue wait in ns from /proc/PID/task/TID/schedstat
// ("on-cpu-ns wait-ns timeslices").
func parseSchedstat(b []byte) (uint64, error) {
	var f [4][]byte
	fs := fields(firstLine(b), f[:0])
	if len(fs) < 2 {
		return 0, fmt.Errorf("%w schedstat: %d fields, want 3", ErrParse, len(fs))
	}
	v, ok := parseUint(fs[1])
	if !ok {
		return 0, fmt.Errorf("%w schedstat: wait %q", ErrParse, fs[1])
	}
	return v, nil
}

func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

func firstLine(b []byte) []byte {
	l, _ := nextLine(b)
	return l
}

// fields splits on spaces and tabs into dst, stopping when dst is full.
func fields(b []byte, dst [][]byte) [][]byte {
	for len(b) > 0 && len(dst) < cap(dst) {
		i := 0
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		b = b[i:]
		if len(b) == 0 {
			break
		}
		j := 0
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		dst = append(dst, b[:j])
		b = b[j:]
	}
	return dst
}

func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := parseUint(b)
	if !ok || u > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}
