package probe

import (
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
	h := &hostReader{root: "testdata/proc-a", selfPID: 4242, brokers: map[int32]int{1: 4242, 2: 4242, 3: 4242}}
	prev := h.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		cur := h.read(time.Now())
		_ = diffHost(prev, cur)
		prev = cur
	}
}

func BenchmarkHostReadLive(b *testing.B) {
	h := &hostReader{root: "/proc", selfPID: 1, sched: readSched}
	if _, err := h.file("stat"); err != nil {
		b.Skip("no /proc")
	}
	prev := h.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		cur := h.read(time.Now())
		_ = diffHost(prev, cur)
		prev = cur
	}
}

func BenchmarkUSE(b *testing.B) {
	s := synthetic(600, make([]Num, 600), make([]Num, 600))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.USE()
	}
}
