package probe

import (
	"time"

	"github.com/prometheus/procfs"
)

// ProcessMeter measures one process's CPU and its threads' run-queue wait, interval by
// interval, as the probe measures plimsoll's own (ProcSample's CPU and RunQueueWait), from the
// same readers. It is for a process that reports its own use to another: a worker of a run with
// workers, whose load the coordinator's probe does not see. It is not safe for concurrent use.
type ProcessMeter struct {
	fs   procfs.FS
	root string // fs's mount point
	pid  int
	prev *meterReading
}

// ProcessUse is one interval's use of the host by the metered process: CPU seconds per second
// (user + system; 1.0 is one core fully busy) and thread-seconds per second its threads spent
// runnable but waiting for a CPU (/proc/PID/task/*/schedstat). Either is Missing when it could
// not be measured: the first interval, a failed read, schedstats switched off.
type ProcessUse struct {
	CPU          Num
	RunQueueWait Num
}

// meterReading is one cumulative reading of the metered process.
type meterReading struct {
	at   time.Time
	stat *pidStat
	wait map[int]uint64 // tid -> run-queue wait ns
}

// NewProcessMeter opens the proc tree at procRoot ("/proc") for process pid (os.Getpid() for
// the calling process's own use).
func NewProcessMeter(procRoot string, pid int) (*ProcessMeter, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, err
	}
	return &ProcessMeter{fs: fs, root: procRoot, pid: pid}, nil
}

// minMeterInterval is the shortest interval ProcessMeter measures: the kernel counts CPU time in
// clock ticks (10 ms), so over less than half a second one tick more or less would be over 2% of
// a core, and over a few microseconds (seconds a run feeds together after a stall) any tick
// would read as many cores.
const minMeterInterval = 500 * time.Millisecond

// Read reads the process's counters at time at and returns its use since the previous Read;
// the first Read only takes the baseline, its use Missing. A Read less than minMeterInterval
// after the baseline measures nothing (Missing) and keeps the baseline, so that the next covers
// the whole interval.
func (m *ProcessMeter) Read(at time.Time) ProcessUse {
	none := ProcessUse{CPU: Missing, RunQueueWait: Missing}
	if m.prev != nil && at.Sub(m.prev.at) < minMeterInterval {
		return none
	}
	cur := &meterReading{at: at, wait: taskWaits(m.fs, m.pid)}
	if st, err := readPIDStat(m.fs, m.root, m.pid); err == nil {
		cur.stat = &st
	}
	prev := m.prev
	m.prev = cur
	if prev == nil {
		return none
	}
	dt := cur.at.Sub(prev.at).Seconds()
	use := ProcessUse{CPU: procSample(prev.stat, cur.stat, "", dt).CPU, RunQueueWait: waitRate(prev.wait, cur.wait, dt)}
	if len(cur.wait) == 0 { // no thread's schedstat read: not measured, rather than no wait
		use.RunQueueWait = Missing
	}
	return use
}
