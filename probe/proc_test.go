package probe

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

func readTestdata(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// procTree writes files (path under the proc root -> content) into a fresh proc tree and
// returns it, and its root directory.
func procTree(t testing.TB, files map[string]string) (procfs.FS, string) {
	t.Helper()
	root := t.TempDir()
	for path, content := range files {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	return fs, root
}

func blockFS(t testing.TB, root string) blockdevice.FS {
	t.Helper()
	b, err := blockdevice.NewFS(root, root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProcGolden reads files copied from this machine's /proc and compares what the probe took
// from each with a golden file.
func TestProcGolden(t *testing.T) {
	var out strings.Builder
	for _, snap := range []string{"proc-a", "proc-b"} {
		root := filepath.Join("testdata", snap)
		fs, err := procfs.NewFS(root)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "== %s\n", snap)
		st, err := readStat(fs)
		fmt.Fprintf(&out, "stat: %+v %v\n", st, err)
		l1, err := readLoad1(fs)
		fmt.Fprintf(&out, "loadavg: load1=%v %v\n", l1, err)
		ps, err := readPIDStat(fs, root, 4242)
		fmt.Fprintf(&out, "pid stat: state=%c utime=%d stime=%d threads=%d start=%d rss=%d %v\n",
			ps.state, ps.utime, ps.stime, ps.threads, ps.starttime, ps.rssPages, err)
		nd, err := readNetDev(fs, 0)
		fmt.Fprintf(&out, "net/dev: %+v %v\n", nd, err)
		tcp, err := readSNMP(fs, 4242)
		fmt.Fprintf(&out, "snmp: %+v %v\n", tcp, err)
		ds, err := readDiskstats(blockFS(t, root))
		fmt.Fprintf(&out, "diskstats: %d devices, whole disks in use %+v %v\n", len(ds), wholeDisks(ds), err)
		mi, err := readMeminfo(fs)
		fmt.Fprintf(&out, "meminfo: %+v %v\n", mi, err)
		for _, r := range []string{"cpu", "io", "memory"} {
			v, err := readPressure(fs, r)
			fmt.Fprintf(&out, "pressure %s: %d %v\n", r, v, err)
		}
		fmt.Fprintf(&out, "schedstat: %v\n", taskWaits(fs, 4242))
	}
	if strings.Contains(out.String(), "probe: cannot parse") || strings.Contains(out.String(), "no such file") {
		t.Errorf("a real /proc file failed to parse:\n%s", out.String())
	}
	golden(t, "proc.golden", []byte(out.String()))
}

func TestReadPIDStat(t *testing.T) {
	// utime 14, stime 15, threads 20, starttime 22, rss 24 (proc(5) numbering); 52 fields in
	// all, as kernels since 3.5 print them.
	tail := " 1 1 1 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 37 0 12345 1000000 2048 18446744073709551615" + strings.Repeat(" 0", 28)
	cases := []struct {
		name, in string
		want     pidStat
		err      bool
	}{
		{"plain", "42 (java) S" + tail, pidStat{state: 'S', utime: 250, stime: 50, threads: 37, starttime: 12345, rssPages: 2048}, false},
		{"spaces and parens in the name", "42 (my (odd) proc) T" + tail, pidStat{state: 'T', utime: 250, stime: 50, threads: 37, starttime: 12345, rssPages: 2048}, false},
		{"no name", "42 java S" + tail, pidStat{}, true},
		{"truncated", "42 (java) S 1 1 1", pidStat{}, true},
		{"cut off after the name", "42 (java)", pidStat{}, true},                          // procfs v0.23.0 panics; guarded
		{"no space after the name", "42 (java)XS" + tail, pidStat{}, true},                // procfs reads S, skipping X
		{"a space and a newline after the name", "42 (java) \nS" + tail, pidStat{}, true}, // procfs skips the newline
		{"bad utime", "42 (java) S 1 1 1 0 -1 4194304 10 0 0 0 x 50 0 0 20 0 37 0 12345 1000000 2048 0", pidStat{}, true},
		{"empty", "", pidStat{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, root := procTree(t, map[string]string{"42/stat": c.in})
			got, err := readPIDStat(fs, root, 42)
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			if err != nil && !errors.Is(err, ErrParse) {
				t.Errorf("error %v does not wrap ErrParse", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
	gone, goneRoot := procTree(t, nil)
	if _, err := readPIDStat(gone, goneRoot, 7); err == nil || errors.Is(err, ErrParse) {
		t.Errorf("a process that is gone: %v, want an error other than ErrParse", err)
	}
}

func TestReadStat(t *testing.T) {
	cases := []struct {
		name, in string
		cores    int
		running  int
		err      bool
	}{
		{"two cores", "cpu  10 0 5 80 2 0 1 3 0 0\ncpu0 5 0 2 40 1 0 0 1 0 0\ncpu1 5 0 3 40 1 0 1 2 0 0\nprocs_running 3\nprocs_blocked 1\n", 2, 3, false},
		{"old kernel, 4 times only", "cpu 10 0 5 80\ncpu0 10 0 5 80\nprocs_running 1\n", 1, 1, false},
		{"no per-core lines", "cpu 10 0 5 80 0 0 0 0\n", 0, 0, true},
		{"bad number", "cpu 10 x 5 80\ncpu0 1 1 1 1\n", 0, 0, true},
		{"short cpu line", "cpu 10 0\ncpu0 1 1 1 1\n", 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, _ := procTree(t, map[string]string{"stat": c.in})
			got, err := readStat(fs)
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			if err != nil && !errors.Is(err, ErrParse) {
				t.Errorf("error %v does not wrap ErrParse", err)
			}
			if err == nil && (got.cores != c.cores || got.procsRunning != c.running) {
				t.Errorf("cores %d running %d, want %d %d", got.cores, got.procsRunning, c.cores, c.running)
			}
		})
	}
}

func TestReadDiskstatsOldKernel(t *testing.T) {
	// Kernels before 4.18 print 14 fields, no discard or flush counters.
	_, root := procTree(t, map[string]string{"diskstats": "   8       0 sda 100 0 800 50 200 0 1600 70 0 90 120\n"})
	got, err := readDiskstats(blockFS(t, root))
	if err != nil {
		t.Fatal(err)
	}
	want := diskCounters{name: "sda", reads: 100, sectorsRead: 800, writes: 200, sectorsWritten: 1600, ioTicksMs: 90, weightedMs: 120}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// procfs leaves out a line with fewer than 14 fields: that device has no reading, rather
	// than counters of 0.
	_, root = procTree(t, map[string]string{"diskstats": "8 0 sda 1 2 3\n   8 16 sdb 100 0 800 50 200 0 1600 70 0 90 120\n"})
	if got, err := readDiskstats(blockFS(t, root)); err != nil || len(got) != 1 || got[0].name != "sdb" {
		t.Errorf("short line: %+v, %v; want sdb only", got, err)
	}
}

func TestReadSmallFiles(t *testing.T) {
	read := func(path, content string, f func(procfs.FS) error) error {
		fs, _ := procTree(t, map[string]string{path: content})
		return f(fs)
	}
	snmp := func(fs procfs.FS) error { _, err := readSNMP(fs, 42); return err }
	if err := read("42/net/snmp", "Ip: Forwarding\nIp: 1\n", snmp); !errors.Is(err, ErrParse) {
		t.Errorf("snmp without Tcp: %v, want ErrParse", err)
	}
	if err := read("42/net/snmp", "Tcp: OutSegs RetransSegs\nTcp: 1\n", snmp); !errors.Is(err, ErrParse) {
		t.Errorf("snmp with fewer values than names: %v, want ErrParse", err)
	}
	if err := read("meminfo", "MemTotal: 100 kB\n", func(fs procfs.FS) error { _, err := readMeminfo(fs); return err }); !errors.Is(err, ErrParse) {
		t.Errorf("meminfo without MemAvailable: %v, want ErrParse", err)
	}
	// Only the 1-minute load is read (the runnable/total field no longer is).
	if err := read("loadavg", "x 0.4 0.3 2/10 99\n", func(fs procfs.FS) error { _, err := readLoad1(fs); return err }); !errors.Is(err, ErrParse) {
		t.Errorf("loadavg without a 1-minute load: %v, want ErrParse", err)
	}
	fs, _ := procTree(t, map[string]string{"pressure/cpu": "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0 avg60=0 avg300=0 total=5\n"})
	if v, err := readPressure(fs, "cpu"); err != nil || v != 123456 {
		t.Errorf("pressure = %d, %v; want 123456", v, err)
	}
	if _, err := readPressure(fs, "io"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pressure on a kernel without PSI: %v, want os.ErrNotExist", err)
	}
	netdev := func(fs procfs.FS) error { _, err := readNetDev(fs, 0); return err }
	if err := read("net/dev", "Inter-|\n face |\n  eth0: 1 2 3\n", netdev); !errors.Is(err, ErrParse) { // procfs v0.23.0 panics; guarded
		t.Errorf("net/dev short line: %v, want ErrParse", err)
	}
}

func TestWholeDisks(t *testing.T) {
	in := []diskCounters{
		{name: "sda", reads: 1}, {name: "sda1", reads: 1}, {name: "nvme0n1", writes: 1}, {name: "nvme0n1p2", writes: 1},
		{name: "mmcblk0", reads: 1}, {name: "mmcblk0p1", reads: 1}, {name: "loop0"}, {name: "dm-0", reads: 1}, {name: "vdb", reads: 1},
	}
	var names []string
	for _, d := range wholeDisks(in) {
		names = append(names, d.name)
	}
	if got, want := strings.Join(names, " "), "sda nvme0n1 mmcblk0 dm-0 vdb"; got != want {
		t.Errorf("whole disks %q, want %q", got, want)
	}
}

// TestCompilerTicks: the CPU of a JVM's JIT compiler threads, by thread id, from
// /proc/PID/task/TID/stat, all of it and its user part; its other threads, and a thread whose stat cannot be read, left out.
func TestCompilerTicks(t *testing.T) {
	line := func(tid int, comm string, utime, stime int) string {
		return fmt.Sprintf("%d (%s) S 1 1 1 0 -1 4194304 10 0 0 0 %d %d 0 0 20 0 37 0 12345 1000000 2048 18446744073709551615", tid, comm, utime, stime) + strings.Repeat(" 0", 28)
	}
	fs, _ := procTree(t, map[string]string{
		"42/stat":         line(42, "java", 900, 100),
		"42/task/42/stat": line(42, "java", 1, 1),
		"42/task/43/stat": line(43, "C2 CompilerThre", 300, 20),
		"42/task/44/stat": line(44, "C1 CompilerThre", 40, 2),
		"42/task/45/stat": line(45, "data-plane-kafk", 500, 70),
		"42/task/46/stat": "46 (C2 CompilerThre) S 1",
		"42/task/42/comm": "java\n",
		"42/task/43/comm": "C2 CompilerThre\n",
		"42/task/44/comm": "C1 CompilerThre\n",
		"42/task/45/comm": "data-plane-kafk\n",
		"42/task/46/comm": "C2 CompilerThre\n",
	})
	known := map[int]bool{99: true} // a thread that has exited since
	got, user := compilerTicks(fs, 42, known)
	if want := map[int]uint64{43: 320, 44: 42}; !reflect.DeepEqual(got, want) {
		t.Errorf("compilerTicks = %v, want %v", got, want)
	}
	if want := map[int]uint64{43: 300, 44: 40}; !reflect.DeepEqual(user, want) {
		t.Errorf("compilerTicks' user part = %v, want %v", user, want)
	}
	if want := map[int]bool{42: false, 43: true, 44: true, 45: false, 46: true}; !reflect.DeepEqual(known, want) {
		t.Errorf("the cache of compiler threads: %v, want %v", known, want)
	}
	if got, user := compilerTicks(fs, 7, map[int]bool{}); got != nil || user != nil {
		t.Errorf("a process that is gone: %v, %v; want nil", got, user)
	}
}

func TestCompilerRate(t *testing.T) {
	for _, c := range []struct {
		name      string
		prev, cur map[int]uint64
		want      float64 // cores over 2 s; -1: nil
	}{
		{"both threads ran", map[int]uint64{1: 100, 2: 50}, map[int]uint64{1: 150, 2: 100}, 0.5},
		{"a thread started meanwhile counts all its ticks", map[int]uint64{1: 100}, map[int]uint64{1: 150, 3: 30}, 0.4},
		{"a thread that ended counts nothing", map[int]uint64{1: 100, 2: 50}, map[int]uint64{1: 150}, 0.25},
		{"a counter that went back counts nothing", map[int]uint64{1: 100}, map[int]uint64{1: 90}, 0},
		{"none idle", map[int]uint64{}, map[int]uint64{}, 0},
		{"no first reading", nil, map[int]uint64{1: 1}, -1},
		{"no second reading", map[int]uint64{1: 1}, nil, -1},
	} {
		got := compilerRate(c.prev, c.cur, 2)
		switch {
		case c.want < 0 && got != nil:
			t.Errorf("%s: %v, want nil", c.name, *got)
		case c.want >= 0 && (got == nil || math.Abs(float64(*got)-c.want) > 1e-9):
			t.Errorf("%s: %v, want %g cores", c.name, got, c.want)
		}
	}
}
