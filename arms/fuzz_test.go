package arms

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics; it refuses with an *Error naming the flag; an arm it accepts
// writes back (String) as a spec that parses to the same arm (the NIC rate within rounding).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"kafka=3.9.1", "kafka=4.1.0,jdk=/usr/lib/jvm/x,heap=512m", "listener=ssl,sasl=scram-sha-512",
		"nic=16Mbit/s,message-size=1000", "broker:num.io.threads=16,producer:linger.ms=5,consumer:fetch.min.bytes=1",
		"kafka=3.9.1,kafka=4.1.0", "=x", "producer:=1", "", " , "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := Parse("--a", spec)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Flag != "--a" {
				t.Fatalf("Parse(%q) error %v is not an *Error naming --a", spec, err)
			}
			return
		}
		s := a.String()
		if s == "defaults" {
			s = ""
		}
		b, err := Parse("--a", s)
		if err != nil {
			t.Fatalf("Parse(%q) = %+v, written back as %q, which does not parse: %v", spec, a, s, err)
		}
		if math.Abs(b.NIC-a.NIC) > 0.01*a.NIC {
			t.Fatalf("Parse(%q): NIC %v, written back as %q, reads %v", spec, a.NIC, s, b.NIC)
		}
		a.NIC, b.NIC = 0, 0
		if !Same(a, b) {
			t.Fatalf("Parse(%q) = %+v, written back as %q, reads %+v", spec, a, s, b)
		}
	})
}

// FuzzReadManifest: ReadManifest never panics on any manifest.json, names the file in its
// errors, and a manifest it reads is written and read again with the same arms and steps.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"command":"plimsoll compare","mode":"run","a":{"kafka":"3.9.1"},"b":{"kafka":"4.1.0","broker":{"x":"1"}},` +
		`"repeat":1,"order":[{"arm":"a","rep":1,"dir":"a-1","started":"2025-03-01T12:00:00Z","finished":"2025-03-01T12:01:00Z","exit":0}]}`))
	f.Add([]byte(`{"order":[{"started":"x"}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"a":{"nic_bytes_per_sec":1e999}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dir)
		if err != nil {
			if want := filepath.Join(dir, ManifestFile); !errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v does not name %s", err, want)
			}
			return
		}
		again := t.TempDir()
		if err := m.Write(again); err != nil {
			return // a value JSON cannot hold again (e.g. a time beyond year 9999) is refused, not written
		}
		m2, err := ReadManifest(again)
		if err != nil {
			t.Fatalf("a manifest written by Write does not read back: %v", err)
		}
		if !Same(m.A, m2.A) || !Same(m.B, m2.B) || len(m.Order) != len(m2.Order) || m.Mode != m2.Mode || m.Repeat != m2.Repeat {
			t.Fatalf("manifest %+v read back as %+v", m, m2)
		}
	})
}
