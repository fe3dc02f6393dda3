package workload

import (
	"os"
	"strings"
	"testing"
)

// Loading is not on the measuring path, but a limit search builds and validates a spec per
// trial, and `plimsoll run` loads files users pass in; these keep both cheap.

func BenchmarkParseProperties(b *testing.B) {
	text := "# producer\nacks=all\nlinger.ms=1\nbatch.size=1048576\ncompression.type=zstd\n" +
		"enable.idempotence=true\nmax.in.flight.requests.per.connection=5\nretries=2147483647\n" +
		"client.id=plimsoll\\\n  -bench\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";\n"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseProperties(strings.NewReader(text), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

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
