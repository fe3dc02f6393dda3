package probe

import (
	"os"
	"testing"
	"time"
)

// The probe runs once a second next to the load generator; these keep its cost visible.

func BenchmarkReadBroker(b *testing.B) {
	text := readTestdata(b, "scrape-a.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := readBroker(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHostRead(b *testing.B) {
	h := testHost(b, "testdata/proc-a", map[int32]int{1: 4242, 2: 4242, 3: 4242})
	prev := h.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		cur := h.read(time.Now())
		_ = diffHost(prev, cur)
		prev = cur
	}
}

func BenchmarkHostReadLive(b *testing.B) {
	h, err := newHostReader("/proc", "/sys", os.Getpid(), nil)
	if err != nil || !fileExists("/proc/stat") {
		b.Skip("no /proc")
	}
	h.sched = readSched
	prev := h.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		cur := h.read(time.Now())
		_ = diffHost(prev, cur)
		prev = cur
	}
}

// BenchmarkProbeSecond is one second's parsing work on a 3-broker local cluster: the host's
// /proc (three broker JVMs among its processes) read and diffed, and three brokers' scrapes
// parsed and diffed. The scrapes were taken from a local Kafka 4.1.0 cluster (plimsoll cluster
// up, JMX exporter 1.0.1) while plimsoll run produced 2000 msgs/s of 1 KB to it. Network time
// is not included.
func BenchmarkProbeSecond(b *testing.B) {
	second := probeSecond(b)
	b.ReportAllocs()
	for b.Loop() {
		second()
	}
}

// probeSecond sets up BenchmarkProbeSecond's work and returns one second of it.
func probeSecond(b *testing.B) func() {
	h := testHost(b, "testdata/proc-a", map[int32]int{1: 4242, 2: 4242, 3: 4242})
	scrapes := [][]byte{readTestdata(b, "scrape-broker1.txt"), readTestdata(b, "scrape-broker2.txt"), readTestdata(b, "scrape-broker3.txt")}
	prevHost := h.read(time.Now())
	prevBr := make([]*brokerReading, len(scrapes))
	for i, s := range scrapes {
		r, err := readBroker(s)
		if err != nil {
			b.Fatal(err)
		}
		prevBr[i] = r
	}
	return func() {
		cur := h.read(time.Now())
		_ = diffHost(prevHost, cur)
		prevHost = cur
		for i, s := range scrapes {
			r, err := readBroker(s)
			if err != nil {
				b.Fatal(err)
			}
			_ = diffBroker(prevBr[i], r, 2)
			prevBr[i] = r
		}
	}
}

// BenchmarkProcessMeterRead is a worker's reading of its own process, once a second on its
// run's goroutine (fleet): 0.17-0.59 ms and about 150 allocations on the 2-core development
// host, its load average 7-11 across the measurements.
func BenchmarkProcessMeterRead(b *testing.B) {
	m, err := NewProcessMeter("/proc", os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	at := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Second) // a reading a second after the last, as the worker's are
		m.Read(at)
	}
}
