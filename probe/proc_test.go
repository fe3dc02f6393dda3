package probe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProcGolden parses files copied from this machine's /proc and compares what each parser
// read with a golden file.
func TestProcGolden(t *testing.T) {
	var out strings.Builder
	for _, snap := range []string{"proc-a", "proc-b"} {
		fmt.Fprintf(&out, "== %s\n", snap)
		st, err := parseStat(readTestdata(t, snap+"/stat"))
		fmt.Fprintf(&out, "stat: %+v %v\n", st, err)
		la, err := parseLoadavg(readTestdata(t, snap+"/loadavg"))
		fmt.Fprintf(&out, "loadavg: %+v %v\n", la, err)
		ps, err := parsePIDStat(readTestdata(t, snap+"/4242/stat"))
		fmt.Fprintf(&out, "pid stat: state=%c utime=%d stime=%d threads=%d start=%d rss=%d %v\n",
			ps.state, ps.utime, ps.stime, ps.threads, ps.starttime, ps.rssPages, err)
		nd, err := parseNetDev(readTestdata(t, snap+"/net/dev"))
		fmt.Fprintf(&out, "net/dev: %+v %v\n", nd, err)
		tcp, err := parseSNMP(readTestdata(t, snap+"/net/snmp"))
		fmt.Fprintf(&out, "snmp: %+v %v\n", tcp, err)
		ds, err := parseDiskstats(readTestdata(t, snap+"/diskstats"))
		fmt.Fprintf(&out, "diskstats: %d devices, whole disks in use %+v %v\n", len(ds), wholeDisks(ds), err)
		mi, err := parseMeminfo(readTestdata(t, snap+"/meminfo"))
		fmt.Fprintf(&out, "meminfo: %+v %v\n", mi, err)
		for _, r := range []string{"cpu", "io", "memory"} {
			v, err := parsePressure(readTestdata(t, snap+"/pressure/"+r))
			fmt.Fprintf(&out, "pressure %s: %d %v\n", r, v, err)
		}
		w, err := parseSchedstat(readTestdata(t, snap+"/4242/task/4242/schedstat"))
		fmt.Fprintf(&out, "schedstat: %d %v\n", w, err)
	}
	if strings.Contains(out.String(), "probe: cannot parse") {
		t.Errorf("a real /proc file failed to parse:\n%s", out.String())
	}
	golden(t, "proc.golden", []byte(out.String()))
}

func TestParsePIDStat(t *testing.T) {
	// utime 14, stime 15, threads 20, starttime 22, rss 24 (proc(5) numbering).
	tail := " 1 1 1 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 37 0 12345 1000000 2048 18446744073709551615 0"
	cases := []struct {
		name, in string
		want     pidStat
		err      bool
	}{
		{"plain", "42 (java) S" + tail, pidStat{state: 'S', utime: 250, stime: 50, threads: 37, starttime: 12345, rssPages: 2048}, false},
		{"spaces and parens in the name", "42 (my (odd) proc) T" + tail, pidStat{state: 'T', utime: 250, stime: 50, threads: 37, starttime: 12345, rssPages: 2048}, false},
		{"no name", "42 java S" + tail, pidStat{}, true},
		{"truncated", "42 (java) S 1 1 1", pidStat{}, true},
		{"bad utime", "42 (java) S 1 1 1 0 -1 4194304 10 0 0 0 x 50 0 0 20 0 37 0 12345 1000000 2048 0", pidStat{}, true},
		{"empty", "", pidStat{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parsePIDStat([]byte(c.in))
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			if err != nil && !errors.Is(err, ErrParse) {
				t.Errorf("error %v does not wrap ErrParse", err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
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
			got, err := parseStat([]byte(c.in))
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error %v", err, c.err)
			}
			if err == nil && (got.cores != c.cores || got.procsRunning != c.running) {
				t.Errorf("cores %d running %d, want %d %d", got.cores, got.procsRunning, c.cores, c.running)
			}
		})
	}
}

func TestParseDiskstatsOldKernel(t *testing.T) {
	// Kernels before 4.18 print 14 fields, no discard or flush counters.
	got, err := parseDiskstats([]byte("   8       0 sda 100 0 800 50 200 0 1600 70 0 90 120\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := diskCounters{name: "sda", reads: 100, sectorsRead: 800, writes: 200, sectorsWritten: 1600, ioTicksMs: 90, weightedMs: 120}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := parseDiskstats([]byte("8 0 sda 1 2 3\n")); !errors.Is(err, ErrParse) {
		t.Errorf("short line: error %v, want ErrParse", err)
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

func TestParseSmallFiles(t *testing.T) {
	if _, err := parseSNMP([]byte("Ip: Forwarding\nIp: 1\n")); !errors.Is(err, ErrParse) {
		t.Errorf("snmp without Tcp: %v, want ErrParse", err)
	}
	if _, err := parseSNMP([]byte("Tcp: OutSegs RetransSegs\nTcp: 1\n")); !errors.Is(err, ErrParse) {
		t.Errorf("snmp with fewer values than names: %v, want ErrParse", err)
	}
	if _, err := parseMeminfo([]byte("MemTotal: 100 kB\n")); !errors.Is(err, ErrParse) {
		t.Errorf("meminfo without MemAvailable: %v, want ErrParse", err)
	}
	if _, err := parseLoadavg([]byte("0.5 0.4 0.3 2-10 99\n")); !errors.Is(err, ErrParse) {
		t.Errorf("loadavg without runnable/total: %v, want ErrParse", err)
	}
	if v, err := parsePressure([]byte("some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0 avg60=0 avg300=0 total=5\n")); err != nil || v != 123456 {
		t.Errorf("pressure = %d, %v; want 123456", v, err)
	}
	if _, err := parseNetDev([]byte("Inter-|\n face |\n  eth0: 1 2 3\n")); !errors.Is(err, ErrParse) {
		t.Errorf("net/dev short line: %v, want ErrParse", err)
	}
	if _, ok := parseUint([]byte("18446744073709551616")); ok {
		t.Error("parseUint accepted 2^64")
	}
	if v, ok := parseInt([]byte("-1")); !ok || v != -1 {
		t.Errorf("parseInt(-1) = %d %v", v, ok)
	}
}
