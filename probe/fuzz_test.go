package probe

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/procfs"
	"github.com/prometheus/prometheus/model/labels"
)

// Every reader must reject bad input with an error, never panic, and must not invent values:
// each Fuzz target seeds with the real files from testdata and some malformed ones. The /proc
// readers go through procfs, so these fuzz the library as the probe uses it (it panics on some
// malformed lines; guard turns that into an error).

func seed(f *testing.F, files ...string) {
	for _, name := range files {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n  \t\n"))
	f.Add([]byte("cpu 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"))
}

// fuzzTree writes b to path in a fresh proc tree, as the kernel would have written it.
func fuzzTree(t *testing.T, path string, b []byte) (procfs.FS, string) {
	return procTree(t, map[string]string{path: string(b)})
}

func FuzzReadStat(f *testing.F) {
	seed(f, "proc-a/stat")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := fuzzTree(t, "stat", b)
		s, err := readStat(fs)
		if err == nil && (s.cores < 1 || s.procsRunning < 0 || s.cpu.idle == 0) {
			t.Errorf("accepted %q as %+v", b, s)
		}
	})
}

func FuzzReadLoadavg(f *testing.F) {
	seed(f, "proc-a/loadavg")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := fuzzTree(t, "loadavg", b)
		l, err := readLoad1(fs)
		if err == nil && (l < 0 || math.IsNaN(l) || math.IsInf(l, 0)) {
			t.Errorf("accepted %q as %v", b, l)
		}
	})
}

func FuzzReadPIDStat(f *testing.F) {
	seed(f, "proc-a/4242/stat")
	f.Add([]byte("1 ()) R 1 1 1 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 37 0 12345 1000000 2048 0"))
	f.Add([]byte("1 (x)"))
	f.Add([]byte("1 ()WR 2 2 9 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 37 0 12345 1000000 2048 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, root := fuzzTree(t, "42/stat", b)
		p, err := readPIDStat(fs, root, 42)
		if err != nil {
			return
		}
		rest := bytes.TrimLeft(b[bytes.LastIndexByte(b, ')')+1:], " \t")
		if len(rest) == 0 || rest[0] != p.state {
			t.Errorf("state %q is not the letter after the name in %q", p.state, b)
		}
	})
}

func FuzzReadNetDev(f *testing.F) {
	seed(f, "proc-a/net/dev")
	f.Add([]byte("h\nh\n  eth0: 1 2 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := fuzzTree(t, "net/dev", b)
		ifs, err := readNetDev(fs, 0)
		for _, i := range ifs {
			if err == nil && i.name == "" {
				t.Errorf("an interface without a name from %q", b)
			}
		}
	})
}

func FuzzReadSNMP(f *testing.F) {
	seed(f, "proc-a/4242/net/snmp")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := fuzzTree(t, "42/net/snmp", b)
		_, _ = readSNMP(fs, 42)
	})
}

func FuzzReadDiskstats(f *testing.F) {
	seed(f, "proc-a/diskstats")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, root := fuzzTree(t, "diskstats", b)
		ds, err := readDiskstats(blockFS(t, root))
		if err == nil {
			_ = wholeDisks(ds)
		}
	})
}

func FuzzReadMeminfo(f *testing.F) {
	seed(f, "proc-a/meminfo")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := fuzzTree(t, "meminfo", b)
		m, err := readMeminfo(fs)
		if err == nil && m.total == 0 {
			t.Errorf("accepted %q without MemTotal", b)
		}
	})
}

func FuzzReadPressure(f *testing.F) {
	seed(f, "proc-a/pressure/cpu", "proc-a/pressure/io")
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := procTree(t, map[string]string{"pressure/cpu": string(b), "42/task/42/schedstat": string(b)})
		_, _ = readPressure(fs, "cpu")
		_ = taskWaits(fs, 42)
	})
}

// FuzzParseProm checks that a scrape's samples survive being printed and parsed again: same
// series, same values, and that an error wraps ErrParse.
func FuzzParseProm(f *testing.F) {
	f.Add(readTestdata(f, "scrape-a.txt"))
	f.Add(readTestdata(f, "scrape-broker1.txt"))
	f.Add([]byte(`a{x="1",y="a\"b\\c\n"} 1 123` + "\n# c\nb NaN\n"))
	f.Add([]byte("a{} +Inf\r\n"))
	f.Add([]byte(`a{x="` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		type sample struct {
			name, series string
			v            float64
		}
		var got []sample
		err := parseProm(b, func(n, s []byte, v float64, ls func() labels.Labels) {
			got = append(got, sample{string(n), string(s), v})
			if name := strings.TrimLeft(ls().Get(model.MetricNameLabel), " \t"); name != "" && name != string(n) {
				t.Errorf("series %q: name %q, labels name it %q", s, n, name)
			}
		})
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Errorf("error %v does not wrap ErrParse", err)
			}
			return
		}
		var re bytes.Buffer
		for _, s := range got {
			re.WriteString(s.series + " " + formatFloat(s.v) + "\n")
		}
		i := 0
		if err := parseProm(re.Bytes(), func(n, s []byte, v float64, _ func() labels.Labels) {
			if i >= len(got) {
				t.Fatalf("reprinted text has more samples than %d", len(got))
			}
			w := got[i]
			if string(n) != w.name || string(s) != w.series || !(v == w.v || math.IsNaN(v) && math.IsNaN(w.v)) {
				t.Errorf("reprinted sample %d = %s %v, want %+v", i, s, v, w)
			}
			i++
		}); err != nil {
			t.Errorf("reprinted text does not parse: %v\n%s", err, re.Bytes())
		}
	})
}

func formatFloat(v float64) string {
	b, _ := Num(v).MarshalJSON()
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return string(b)
}

// FuzzReadBroker: a broker's scrape gives a reading with the bytes-in counter, or an error
// wrapping ErrParse (not Prometheus text) or ErrMetrics (not plimsoll's exporter rules); never
// a panic.
func FuzzReadBroker(f *testing.F) {
	f.Add(readTestdata(f, "scrape-broker1.txt"))
	f.Add(readTestdata(f, "scrape-a.txt"))
	f.Add([]byte("kafka_network_RequestMetrics_TotalTimeMs{request=\"Produce\",quantile=\"0.99\"} 12\n"))
	f.Add([]byte("jvm_gc_collection_seconds_sum{gc=\"G1 Young Generation\"} +Inf\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := readBroker(b)
		if err != nil {
			if !errors.Is(err, ErrParse) && !errors.Is(err, ErrMetrics) {
				t.Fatalf("error %v wraps neither ErrParse nor ErrMetrics", err)
			}
			return
		}
		if r == nil || !r.v[mBytesIn].OK() {
			t.Fatal("readBroker accepted a scrape without bytes-in")
		}
	})
}
