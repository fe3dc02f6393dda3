package probe

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/internal/memtest"
)

// BenchmarkSeriesGrowth measures what a Series holds in memory per sample (one per second of
// a run): the recorded samples of a real 3-broker run (testdata/series-traffic.json) decoded
// again and again into one series of an hour, the live heap read before and after.
// go test -run XXX -bench SeriesGrowth ./probe
func BenchmarkSeriesGrowth(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "series-traffic.json"))
	if err != nil {
		b.Fatal(err)
	}
	const hour = 3600
	for b.Loop() {
		before := memtest.LiveHeap()
		s := &Series{}
		for len(s.Samples) < hour {
			var part Series
			if err := json.Unmarshal(data, &part); err != nil {
				b.Fatal(err)
			}
			s.Samples = append(s.Samples, part.Samples...)
		}
		s.Samples = s.Samples[:hour:hour]
		b.ReportMetric(float64(memtest.LiveHeap()-before)/hour, "heap-B/sample")
		runtime.KeepAlive(s)
	}
}

// TestTakeSoak: six simulated hours of one sample a second (copies of a real 3-broker run's
// samples), taken every 10 s as watch takes them: the probe never holds more than one interval's
// samples and the live heap does not grow from the first hour to the sixth. Without Take the
// series would hold 21,600 samples, about 80 MB (BenchmarkSeriesGrowth: 3.7 KB a sample).
func TestTakeSoak(t *testing.T) {
	rec := recordedSamples(t)
	p := &Probe{}
	const every, hours = 10, 6
	var taken, most int
	var firstHour int64
	for sec := 1; sec <= hours*3600; sec++ {
		s := cloneSample(rec[sec%len(rec)], time.Duration(sec)*time.Second)
		p.mu.Lock()
		p.series.Samples = append(p.series.Samples, s)
		most = max(most, len(p.series.Samples))
		p.mu.Unlock()
		if sec%every == 0 {
			taken += len(p.Take().Samples)
		}
		if sec == 3600 {
			firstHour = memtest.LiveHeap()
		}
	}
	grown := memtest.LiveHeap() - firstHour
	if taken != hours*3600 || most > every || len(p.Snapshot().Samples) != 0 {
		t.Errorf("taken %d of %d samples, at most %d held at once (want %d), %d left", taken, hours*3600, most, every, len(p.Snapshot().Samples))
	}
	if grown > 1<<20 {
		t.Errorf("the live heap grew %d bytes from the first hour to the sixth", grown)
	}
}

func recordedSamples(t *testing.T) []Sample {
	data, err := os.ReadFile(filepath.Join("testdata", "series-traffic.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Series
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Samples
}

// cloneSample copies x, its host and broker parts, shifted by d: a new sample's own memory.
func cloneSample(x Sample, d time.Duration) Sample {
	x.Start, x.Time = x.Start.Add(d), x.Time.Add(d)
	if x.Host != nil {
		h := *x.Host
		h.Brokers = maps.Clone(h.Brokers)
		h.Net = slices.Clone(h.Net)
		x.Host = &h
	}
	brokers := make(map[int32]*BrokerSample, len(x.Brokers))
	for id, b := range x.Brokers {
		c := *b
		brokers[id] = &c
	}
	x.Brokers = brokers
	return x
}
