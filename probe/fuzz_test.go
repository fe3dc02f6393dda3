package probe

import (
	"bytes"
	"math"
	"testing"
)

// Every parser must reject bad input with an error, never panic, and must not invent values:
// each Fuzz target seeds with the real files from testdata and some malformed ones.

func seed(f *testing.F, files ...string) {
	for _, name := range files {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n  \t\n"))
	f.Add([]byte("cpu 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"))
}

func FuzzParseStat(f *testing.F) {
	seed(f, "proc-a/stat")
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseStat(b)
		if err == nil && (s.cores < 1 || s.procsRunning < 0) {
			t.Errorf("accepted %q as %+v", b, s)
		}
	})
}

func FuzzParseLoadavg(f *testing.F) {
	seed(f, "proc-a/loadavg")
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseLoadavg(b)
		if err == nil && (l.load1 < 0 || math.IsNaN(l.load1)) {
			t.Errorf("accepted %q as %+v", b, l)
		}
	})
}

func FuzzParsePIDStat(f *testing.F) {
	seed(f, "proc-a/4242/stat")
	f.Add([]byte("1 ()) R 1 1 1 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 37 0 12345 1000000 2048 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePIDStat(b)
		if err != nil {
			return
		}
		rest := bytes.TrimLeft(b[bytes.LastIndexByte(b, ')')+1:], " \t")
		if len(rest) == 0 || rest[0] != p.state {
			t.Errorf("state %q is not the letter after the name in %q", p.state, b)
		}
	})
}

func FuzzParseNetDev(f *testing.F) {
	seed(f, "proc-a/net/dev")
	f.Fuzz(func(t *testing.T, b []byte) {
		ifs, err := parseNetDev(b)
		for _, i := range ifs {
			if err == nil && i.name == "" {
				t.Errorf("an interface without a name from %q", b)
			}
		}
	})
}

func FuzzParseSNMP(f *testing.F) {
	seed(f, "proc-a/net/snmp")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseSNMP(b)
	})
}

func FuzzParseDiskstats(f *testing.F) {
	seed(f, "proc-a/diskstats")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := parseDiskstats(b)
		if err == nil {
			_ = wholeDisks(ds)
		}
	})
}

func FuzzParseMeminfo(f *testing.F) {
	seed(f, "proc-a/meminfo")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMeminfo(b)
		if err == nil && m.total == 0 {
			t.Errorf("accepted %q without MemTotal", b)
		}
	})
}

func FuzzParsePressure(f *testing.F) {
	seed(f, "proc-a/pressure/cpu", "proc-a/pressure/io")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parsePressure(b)
		_, _ = parseSchedstat(b)
	})
}

// FuzzParseProm also checks that every label the parser accepted can be read back by
// labelValue, and that a scrape's values survive being printed and parsed again.
func FuzzParseProm(f *testing.F) {
	f.Add(readTestdata(f, "scrape-a.txt"))
	f.Add([]byte(`a{x="1",y="a\"b\\c\n"} 1 123` + "\n# c\nb NaN\n"))
	f.Add([]byte("a{} +Inf\r\n"))
	f.Add([]byte(`a{x="` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		type sample struct {
			name, labels string
			v            float64
		}
		var got []sample
		err := parseProm(b, func(n, l []byte, v float64) {
			got = append(got, sample{string(n), string(l), v})
			for _, kv := range bytes.Split(l, []byte(",")) {
				if k, _, ok := bytes.Cut(kv, []byte("=")); ok && len(k) > 0 && !bytes.ContainsAny(kv, `\"`) {
					if _, found := labelValue(l, string(bytes.TrimSpace(k))); !found {
						t.Errorf("label %q accepted but not found in %q", k, l)
					}
				}
			}
		})
		if err != nil {
			return
		}
		var re bytes.Buffer
		for _, s := range got {
			re.WriteString(s.name)
			if s.labels != "" {
				re.WriteString("{" + s.labels + "}")
			}
			re.WriteString(" ")
			re.WriteString(formatFloat(s.v))
			re.WriteString("\n")
		}
		i := 0
		if err := parseProm(re.Bytes(), func(n, l []byte, v float64) {
			w := got[i]
			if string(n) != w.name || string(l) != w.labels || !(v == w.v || math.IsNaN(v) && math.IsNaN(w.v)) {
				t.Errorf("reprinted sample %d = %s{%s} %v, want %+v", i, n, l, v, w)
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
