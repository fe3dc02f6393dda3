package units

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{"300MB/s", 300e6},
		{"2.5Gbit/s", 2.5e9 / 8},
		{"125000KB/s", 125e6},
		{"125000kB/s", 125e6},
		{"16Mbit/s", 2e6},
		{"1Gbps", 125e6},
		{"1 MiB/s", 1 << 20},
		{"60MB/s", 60e6},
		{"1e3B/s", 1000},
		{"6GB/min", 1e8},
		{"1GBps", 1e9},
		{"1 GB/sec", 1e9},
		{"100 Mb/s", 100e6 / 8},
		{"100kb/s", 100e3 / 8},
		{"8 bit/s", 1},
		{"10 bits/s", 10.0 / 8},
		{"100 bytes/s", 100},
		{"2 KiBps", 2048},
		{"0", 0},
	}
	for _, c := range cases {
		got, err := ParseRate(c.in)
		if err != nil {
			t.Errorf("ParseRate(%q): %v", c.in, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("ParseRate(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseRateErrors(t *testing.T) {
	for _, in := range []string{"", "fast", "10MB", "10 furlongs/s", "MB/s", "1..2MB/s", "10XB/s"} {
		if _, err := ParseRate(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseRate(%q) error = %v, want ErrSyntax", in, err)
		}
	}
}

// A rate without a unit, or with one that could mean two things, is refused with the fix.
func TestParseRateNamesTheFix(t *testing.T) {
	for in, want := range map[string]string{
		"100":     `write 100MB/s (bytes) or 100Mbit/s (bits)`,
		"1e3":     `write 1e3MB/s (bytes) or 1e3Mbit/s (bits)`,
		"100/s":   `no unit: write 100B/s (bytes) or 100bit/s (bits)`,
		"100M/s":  `no unit: write 100MB/s (bytes) or 100Mbit/s (bits)`,
		"100mb/s": `"mb" is ambiguous (m is milli): write 100MB/s for bytes or 100Mbit/s for bits`,
		"1gbps":   `"gb" is ambiguous (m is milli): write 1GB/s for bytes or 1Gbit/s for bits`,
		"5 mB/s":  `"mB" is ambiguous (m is milli): write 5MB/s for bytes or 5Mbit/s for bits`,
		"10MB":    `a rate needs a unit per second`,
		"10 XB/s": `unknown unit "XB"`,
		"-100":    `write -100MB/s`,
	} {
		_, err := ParseRate(in)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRate(%q) error = %v, want one saying %q", in, err, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{"1000", 1000},
		{"64KiB", 65536},
		{"1.5GB", 1.5e9},
		{"800Mbit", 1e8},
		{"16k", 16000},
		{"1 GiB", 1 << 30},
	}
	for _, c := range cases {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "x", "10MB/s", "5 parsecs"} {
		if _, err := ParseBytes(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseBytes(%q) error = %v, want ErrSyntax", in, err)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{FormatRate(125e6), "125 MB/s"},
		{FormatRate(1.5e6), "1.50 MB/s"},
		{FormatRate(20e3), "20.0 KB/s"},
		{FormatBits(125e6), "1.00 Gbit/s"},
		{FormatBits(2e6), "16.0 Mbit/s"},
		{FormatBytes(0), "0 B"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"300MB/s", "2.5Gbit/s", "1e3", "-1KB/s", "16Mbit/s", "1Gbps", "x", "100mb/s", "1GBps", "5 bits/s", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseRate(%q) = %v without error", s, v)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Fatalf("ParseRate(%q) error %v does not wrap ErrSyntax", s, err)
		}
		if n, u, nerr := splitNumber(s); err == nil && nerr == nil && u == "" && n != 0 {
			t.Fatalf("ParseRate(%q) = %v: a bare number must be refused", s, v)
		}
		b, err := ParseBytes(s)
		if err == nil && (math.IsNaN(b) || math.IsInf(b, 0)) {
			t.Fatalf("ParseBytes(%q) = %v without error", s, b)
		}
	})
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]float64{"1500000": 1.5e6, "1.5M": 1.5e6, "150k/s": 150e3, "50_000 msgs/s": 5e4,
		"2e5": 2e5, "3 msg/s": 3, "7K /sec": 7e3, "1G": 1e9} {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "k", "50kB/s", "NaN", "1e400", "five"} {
		if _, err := ParseCount(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCount(%q): %v, want ErrSyntax", bad, err)
		}
	}
}

// FuzzParseCount: ParseCount never panics; what it accepts is a finite number, and its errors
// wrap ErrSyntax.
func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"1500000", "1.5M", "150k/s", "50_000 msgs/s", "2G msg/s", "1e308G", "-3", "k", " /s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseCount(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseCount(%q) error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("ParseCount(%q) = %v", s, v)
		}
	})
}
