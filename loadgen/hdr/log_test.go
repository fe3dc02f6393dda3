package hdr

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestIntervalLogRoundTrip writes a log and reads it back with hdrhistogram-go's own reader:
// every interval comes back with its tag, its times and its counts, in order.
func TestIntervalLogRoundTrip(t *testing.T) {
	start := time.Unix(1_700_000_000, 250*int64(time.Millisecond))
	log := IntervalLog{Start: start}
	type want struct {
		tag        string
		start, end int64
		hist       *Hist
	}
	var wants []want
	for sec := range int64(3) {
		for i, tag := range []string{"publish", "end_to_end", "schedule_delay"} {
			h := New()
			for v := range 10 * (sec + 1) * int64(i+1) {
				h.Record((v + 1) * int64(time.Millisecond))
			}
			if sec == 1 && tag == "end_to_end" {
				h.Reset() // an empty interval is left out
			} else {
				wants = append(wants, want{tag, sec * 1000, (sec + 1) * 1000, h})
			}
			if err := log.Add(tag, sec*1000, (sec+1)*1000, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	if err := log.Write(&buf, "[a test log]"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "#[a test log]\n") {
		t.Errorf("log starts %q", buf.String()[:40])
	}
	rd := hdrhistogram.NewHistogramLogReader(&buf)
	for i := 0; ; i++ {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			if i != len(wants) {
				t.Errorf("read %d intervals, wrote %d", i, len(wants))
			}
			break
		}
		if i >= len(wants) {
			t.Fatalf("interval %d read, only %d written", i, len(wants))
		}
		w := wants[i]
		if h.Tag() != w.tag || h.StartTimeMs() != start.UnixMilli()+w.start || h.EndTimeMs() != start.UnixMilli()+w.end {
			t.Errorf("interval %d: tag %q %d..%d ms, want %q %d..%d after the start", i, h.Tag(), h.StartTimeMs()-start.UnixMilli(),
				h.EndTimeMs()-start.UnixMilli(), w.tag, w.start, w.end)
		}
		if h.TotalCount() != w.hist.Count() || !h.Equals(w.hist.HDR()) {
			t.Errorf("interval %d (%s): %d values read back, %d written, or other buckets", i, w.tag, h.TotalCount(), w.hist.Count())
		}
	}
}

// TestReadIntervalLog reads back what Write wrote: tags, Unix times to the millisecond, the
// same buckets, and a max within the histogram's resolution of the exact one.
func TestReadIntervalLog(t *testing.T) {
	start := time.Unix(1_700_000_000, 250*int64(time.Millisecond))
	log := IntervalLog{Start: start}
	var hs []*Hist
	for sec := range int64(3) {
		h := New()
		for v := range 100 * (sec + 1) {
			h.Record((v + 1) * int64(time.Millisecond))
		}
		hs = append(hs, h)
		if err := log.Add("publish", sec*1000, (sec+1)*1000, h); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := log.Write(&buf, "[a test log]"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadIntervalLog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(hs) {
		t.Fatalf("read %d intervals, wrote %d", len(got), len(hs))
	}
	for i, iv := range got {
		wantStart := start.UnixMilli() + int64(i)*1000
		// The reader adds seconds as floats and truncates: a millisecond may be lost.
		if iv.Tag != "publish" || iv.StartMs < wantStart-1 || iv.StartMs > wantStart || iv.EndMs-iv.StartMs < 999 || iv.EndMs-iv.StartMs > 1001 {
			t.Errorf("interval %d: %q %d..%d, want publish from %d for 1 s", i, iv.Tag, iv.StartMs, iv.EndMs, wantStart)
		}
		if !iv.Hist.HDR().Equals(hs[i].HDR()) {
			t.Errorf("interval %d: other buckets than written", i)
		}
		if m, w := iv.Hist.MaxNs(), hs[i].MaxNs(); m < w || float64(m) > float64(w)*1.001 {
			t.Errorf("interval %d: max %d ns, want %d within 0.1%%", i, m, w)
		}
	}
	if _, err := ReadIntervalLog(strings.NewReader("0.000,1.000,0.1,HISTFAAAAnotbase64\n")); err == nil {
		t.Error("a damaged histogram was read without an error")
	}
}
