package workload

import (
	"os"
	"testing"
)

// Loading is not on the measuring path, but a limit search builds and validates a spec per
// trial, and `plimsoll run` loads files users pass in; these keep both cheap.

func BenchmarkLoadPlimsoll(b *testing.B) {
	data, err := os.ReadFile("testdata/good/full.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(data, "full.yaml", "testdata/good", "", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadOMBWithDriver(b *testing.B) {
	wl, err := os.ReadFile("testdata/omb/workloads/10-topics-3-partitions-100b-backlog.yaml")
	if err != nil {
		b.Fatal(err)
	}
	driver, err := os.ReadFile("testdata/omb/driver-kafka/kafka-throughput.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(wl, "w.yaml", "testdata/omb/workloads", "d.yaml", driver); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	s, err := Load("testdata/good/full.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
