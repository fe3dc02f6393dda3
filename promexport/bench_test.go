package promexport

import (
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// runHist is a measured window's histogram: 300,000 values around 5 ms with a tail to 2 s.
func runHist() *hdr.Hist {
	rng := rand.New(rand.NewPCG(3, 4))
	h := hdr.New()
	for range 300_000 {
		h.Record(int64(rng.ExpFloat64() * float64(5*time.Millisecond)))
	}
	h.Record(int64(2 * time.Second))
	return h
}

// BenchmarkLive is the Exporter's work once a second of a run (loadgen.Options.Live): copying
// the three histograms under its lock. It must not allocate: it runs beside the load.
func BenchmarkLive(b *testing.B) {
	e := New()
	h := runHist()
	l := &loadgen.Live{RunID: "bench", Second: second, Publish: h, EndToEnd: h, ScheduleDelay: h}
	b.ReportAllocs()
	for b.Loop() {
		e.Live(l)
	}
}

// BenchmarkScrape is one scrape of /metrics during such a run: the histograms' conversion to
// buckets is paid here, once per scrape.
func BenchmarkScrape(b *testing.B) {
	e := New()
	h := runHist()
	e.Live(&loadgen.Live{RunID: "bench", Second: second, Publish: h, EndToEnd: h, ScheduleDelay: h})
	handler := e.Handler()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		_, _ = io.Copy(io.Discard, w.Body)
	}
}
