package scenario

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

// The partition scenarios' host limits: what one partition replica costs a broker, and the
// share of each OS limit they keep free.
const (
	// fdsPerPartition is the file descriptors one partition replica of one segment holds: its
	// log's (a broker keeps each segment's log file open; the indexes are mapped and their files
	// closed). Measured by max-partitions' full mode on this project's host: 0.946 per partition
	// on Kafka 4.1.0 (KRaft, 18,000 partitions), 0.753 on 3.9.1 KRaft and 1.00 on 3.9.1 with
	// ZooKeeper (4,000 each). 002 counted 2 (slide 45), which the findings show beside ours; with
	// 2 the checks refused reassignment's full mode, whose 10,000 replicas per broker hold about
	// 10,000 files, on a host limited to 20,000. max-partitions measures its own as it climbs.
	fdsPerPartition = 1
	// diskPerPartition is what an empty partition replica takes on disk: its directory block,
	// the empty log, partition.metadata and leader-epoch-checkpoint blocks (the preallocated
	// indexes are sparse); 16 KiB rounds up 3-4 blocks of 4 KiB.
	diskPerPartition = 16 << 10
	// diskSpare is left free beyond the partitions' own need, for the brokers' logs.
	diskSpare = 1 << 30
	// limitShare is the share of vm.max_map_count and of the open-files limit a scenario lets its
	// brokers reach before it refuses (Check) or stops (max-partitions): a JVM's own maps (code
	// cache, thread stacks, jars) and sockets grow with load beyond the partitions' 2 each.
	limitShare = 0.9
)

// hostLimits are the OS limits a broker hosting many partitions meets.
type hostLimits struct {
	MaxMapCount int   // vm.max_map_count: memory maps per process
	OpenFiles   int   // the brokers' open-files limit (RLIMIT_NOFILE)
	DiskFree    int64 // bytes free on the filesystem of the brokers' data
}

// readHostLimits reads vm.max_map_count, the open-files limit of pid (the brokers inherit this
// process's, so pid 0 reads our own) and the free space under dir.
func readHostLimits(pid int, dir string) (hostLimits, error) {
	var h hostLimits
	data, err := os.ReadFile("/proc/sys/vm/max_map_count")
	if err != nil {
		return h, fmt.Errorf("reading vm.max_map_count: %w", err)
	}
	if h.MaxMapCount, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
		return h, fmt.Errorf("vm.max_map_count %q: %w", data, err)
	}
	if h.OpenFiles, err = openFilesLimit(pid); err != nil {
		return h, err
	}
	for d := dir; ; d = filepath.Dir(d) { // the nearest existing ancestor: nothing is created
		var st syscall.Statfs_t
		if err := syscall.Statfs(d, &st); err == nil {
			h.DiskFree = int64(st.Bavail) * st.Bsize
			return h, nil
		}
		if d == filepath.Dir(d) {
			return h, fmt.Errorf("free disk space under %s: no directory to ask", dir)
		}
	}
}

// openFilesLimit is the soft "Max open files" of pid (0: this process). A JVM raises its soft
// limit to the hard one at start (-XX:+MaxFDLimit, on by default), so for ourselves, whose
// brokers inherit our limits, the hard limit is the one that binds them.
func openFilesLimit(pid int) (int, error) {
	if pid == 0 {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return 0, fmt.Errorf("reading the open-files limit: %w", err)
		}
		return int(min(r.Max, 1<<31-1)), nil
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the open-files limit of broker pid %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Max open files"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				if fields[0] == "unlimited" {
					return 1<<31 - 1, nil
				}
				return strconv.Atoi(fields[0])
			}
		}
	}
	return 0, fmt.Errorf("/proc/%d/limits has no Max open files line", pid)
}

// checkRoom refuses a plan that would host perBroker partition replicas on each broker (and
// total replicas on this host's disk) past limitShare of an OS limit; the error names the sysctl
// or ulimit to raise and by how much.
func (h hostLimits) checkRoom(perBroker, total int) error {
	if maps := perBroker * model.MapsPerPartition; float64(maps) > limitShare*float64(h.MaxMapCount) {
		need := int(float64(maps)/limitShare) + 1
		return fmt.Errorf("%s partition replicas per broker need %s memory maps (%d each), over %s of vm.max_map_count %s: raise it (sudo sysctl -w vm.max_map_count=%d) or lower the partition count",
			units.Count(float64(perBroker)), units.Count(float64(maps)), model.MapsPerPartition, units.Pct(limitShare), units.Count(float64(h.MaxMapCount)), need)
	}
	if fds := perBroker * fdsPerPartition; float64(fds) > limitShare*float64(h.OpenFiles) {
		return fmt.Errorf("%s partition replicas per broker need about %s open files (%d each, measured; 002 counted 2), over %s of the open-files limit %s: raise it (ulimit -n %d, or nofile in /etc/security/limits.conf) or lower the partition count",
			units.Count(float64(perBroker)), units.Count(float64(fds)), fdsPerPartition, units.Pct(limitShare), units.Count(float64(h.OpenFiles)), int(float64(fds)/limitShare)+1)
	}
	if need := int64(total)*diskPerPartition + diskSpare; need > h.DiskFree {
		return fmt.Errorf("%s partition replicas need about %s of disk (%s each and %s spare), only %s is free: free some space or lower the partition count",
			units.Count(float64(total)), units.FormatBytes(float64(need)), units.FormatBytes(diskPerPartition), units.FormatBytes(diskSpare), units.FormatBytes(float64(h.DiskFree)))
	}
	return nil
}

// config records the limits in a scenario's configuration.
func (h hostLimits) config(c map[string]string) {
	c["vm.max_map_count"] = units.Count(float64(h.MaxMapCount))
	c["open files limit"] = units.Count(float64(h.OpenFiles))
	c["disk free"] = units.FormatBytes(float64(h.DiskFree))
}

// replicasPerBroker is the most partition replicas one of brokers holds when replicas are spread evenly.
func replicasPerBroker(replicas, brokers int) int {
	brokers = max(brokers, 1)
	return (replicas + brokers - 1) / brokers
}
