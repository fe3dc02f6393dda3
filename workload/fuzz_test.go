package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unsafeInput skips inputs that name device or proc files: a fuzzer could otherwise make the
// loader open /dev/stdin and wait on it. Loading real files under testdata is fine.
func unsafeInput(s []byte) bool {
	return bytes.Contains(s, []byte("/dev")) || bytes.Contains(s, []byte("/proc")) || bytes.Contains(s, []byte("/sys"))
}

func addSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzLoad feeds arbitrary YAML to the loader: it must never panic, must fail only with
// ErrInvalid errors, and whatever it accepts must validate and render.
func FuzzLoad(f *testing.F) {
	addSeeds(f, "testdata/good/*.yaml")
	addSeeds(f, "testdata/bad/*.yaml")
	addSeeds(f, "testdata/omb/workloads/*.yaml")
	f.Add([]byte("rate: &r 5k\nproducers: *r\n"))
	f.Add([]byte("producer-props: &p {acks: all}\nconsumer-props: *p\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if unsafeInput(data) {
			t.Skip()
		}
		s, err := load(data, "fuzz.yaml", "testdata/good", "", nil)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") && !strings.Contains(err.Error(), "testdata") {
				t.Fatalf("error does not say where: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Load accepted a spec that does not validate: %v", err)
		}
		_ = s.Warnings()
		_ = s.String()
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("cannot render as JSON: %v", err)
		}
	})
}

// FuzzOMBDriver applies arbitrary driver YAML to a fixed OMB workload.
func FuzzOMBDriver(f *testing.F) {
	addSeeds(f, "testdata/omb/driver-kafka/*.yaml")
	f.Add([]byte("producerConfig:\n  acks: all\n  linger.ms: 1\n"))
	f.Add([]byte("replicationFactor: 3\ntopicConfig: \"min.insync.replicas=2\\nretention.ms=1\"\n"))
	wl, err := os.ReadFile("testdata/omb/workloads/10-topics-3-partitions-100b-backlog.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, driver []byte) {
		s, err := load(wl, "w.yaml", "testdata/omb/workloads", "d.yaml", driver)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted a driver that does not validate: %v", err)
		}
		_ = s.EffectiveProducerProps().String()
		_ = s.EffectiveConsumerProps().String()
	})
}

// FuzzSet gives arbitrary text to every flag: errors only, never a panic.
func FuzzSet(f *testing.F) {
	for i, fd := range Fields() {
		f.Add(uint8(i), fd.Default)
	}
	f.Add(uint8(6), "1e400")
	f.Add(uint8(15), "9e30GB")
	f.Fuzz(func(t *testing.T, i uint8, value string) {
		fields := Fields()
		fd := fields[int(i)%len(fields)]
		if unsafeInput([]byte(value)) {
			t.Skip()
		}
		s := Default()
		if err := s.Set(fd.Flag, value); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Set(%s, %q) error does not wrap ErrInvalid: %v", fd.Flag, value, err)
		}
		if err := s.Validate(); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Validate error does not wrap ErrInvalid: %v", err)
		}
		_ = s.Warnings()
	})
}
