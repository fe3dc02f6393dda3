package hdr

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/internal/memtest"
)

// logOf adds secs seconds of three intervals from second 0.
func logOf(t testing.TB, l *IntervalLog, secs int) { t.Helper(); logOfFrom(t, l, 0, secs) }

// TestIntervalLogSpill: a log that spills all but its latest 5 intervals writes the same
// histograms.hlog, byte for byte, as one held in memory, and yields the same intervals; a spill
// directory where no file can be made holds them in memory, saying so once.
func TestIntervalLogSpill(t *testing.T) {
	start := time.Unix(1_700_000_000, 250*int64(time.Millisecond))
	mem := &IntervalLog{Start: start}
	logOf(t, mem, 20)
	sp := &IntervalLog{Start: start, SpillDir: t.TempDir(), SpillKeep: 5}
	logOf(t, sp, 20)
	defer sp.Close()
	if len(sp.tail.Held) != 5 || sp.tail.Spilled() != sp.Len()-5 {
		t.Fatalf("%d intervals in memory, %d spilled: want 5 and the rest spilled", len(sp.tail.Held), sp.tail.Spilled())
	}
	var want, got bytes.Buffer
	if err := mem.Write(&want, "[a test log]"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Write(&got, "[a test log]"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) || !slices.Equal(slices.Collect(sp.All()), mem.tail.Held) {
		t.Errorf("the spilled log wrote %d bytes unlike the %d of the one in memory, or yields other intervals", got.Len(), want.Len())
	}
	bad := &IntervalLog{Start: start, SpillDir: "/proc", SpillKeep: 2}
	var errs int
	h := New()
	h.Record(int64(time.Millisecond))
	for sec := range int64(6) {
		if bad.Add("publish", sec*1000, (sec+1)*1000, h) != nil {
			errs++
		}
	}
	if errs != 1 || len(bad.tail.Held) != 6 {
		t.Errorf("%d errors, %d intervals held: want 1 error and all 6 held", errs, len(bad.tail.Held))
	}
}

// TestIntervalLogSoak: six simulated hours of three interval histograms a second (encoded
// histograms of a real run, omb/testdata/run/histograms.hlog, each copy with memory of its own)
// added with a spill: the log holds its latest DefaultSpillKeep intervals and the live heap is
// flat from the first hour to the sixth. Held in memory, the first hour grows it by megabytes
// (checked, so the flat figure cannot come from copies sharing memory).
func TestIntervalLogSoak(t *testing.T) {
	const hours = 6
	rec := recordedIntervals(t)
	hour := func(l *IntervalLog, h int) {
		for sec := h * 3600; sec < (h+1)*3600; sec++ {
			for i := range 3 {
				iv := rec[(sec*3+i)%len(rec)]
				iv.StartMs, iv.EndMs, iv.Hist.HDR = int64(sec)*1000, int64(sec+1)*1000, strings.Clone(iv.Hist.HDR)
				if err := l.add(iv); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	before := memtest.LiveHeap()
	mem := &IntervalLog{}
	hour(mem, 0)
	grownMem := memtest.LiveHeap() - before
	if grownMem < 2<<20 {
		t.Fatalf("an hour held in memory grew the heap by %d bytes only", grownMem)
	}
	runtime.KeepAlive(mem)
	mem = nil
	l := &IntervalLog{SpillDir: t.TempDir()}
	defer l.Close()
	var first int64
	for h := range hours {
		hour(l, h)
		if h == 0 {
			first = memtest.LiveHeap()
		}
	}
	grown := memtest.LiveHeap() - first
	t.Logf("an hour in memory: %d B of live heap; spilled, from the first hour to the sixth: %d B", grownMem, grown)
	if len(l.tail.Held) != DefaultSpillKeep || l.Err() != nil || grown > 1<<20 {
		t.Errorf("%d intervals held (want %d), err %v, the live heap grew %d bytes from the first hour to the sixth", len(l.tail.Held), DefaultSpillKeep, l.Err(), grown)
	}
}

// recordedIntervals are the interval histograms of a real run's log.
func recordedIntervals(t testing.TB) []Interval {
	f, err := os.Open(filepath.Join("..", "..", "omb", "testdata", "run", "histograms.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ivs, err := ReadIntervalLog(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []Interval
	for _, iv := range ivs {
		e, err := iv.Hist.Encode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Interval{Tag: iv.Tag, Hist: e})
	}
	return out
}

// logOfFrom adds secs seconds of three intervals, each of its own values, from second from.
func logOfFrom(t testing.TB, l *IntervalLog, from, secs int) {
	t.Helper()
	h := New()
	for sec := int64(from); sec < int64(from+secs); sec++ {
		for i, tag := range []string{"publish", "end_to_end", "schedule_delay"} {
			for v := range 20 + sec%7 + int64(i) {
				h.Record((v*13 + sec + 1) * int64(time.Millisecond))
			}
			if err := l.Add(tag, sec*1000, (sec+1)*1000, h); err != nil {
				t.Fatal(err)
			}
			h.Reset()
		}
	}
}
