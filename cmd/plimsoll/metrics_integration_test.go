//go:build integration

package main

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scraper scrapes plimsoll's endpoint every quarter second while a command runs.
type scraper struct {
	url  string
	mu   sync.Mutex
	all  []scrape
	done chan struct{}
	wg   sync.WaitGroup
}

// scrape is one scrape's families and when it was taken.
type scrape struct {
	at  time.Time
	mfs map[string]*dto.MetricFamily
}

// scrapeDuring starts scraping http://addr/metrics on a free loopback port it returns.
func scrapeDuring(t *testing.T) (*scraper, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &scraper{url: "http://" + addr + "/metrics", done: make(chan struct{})}
	s.wg.Add(1)
	go s.loop()
	return s, addr
}

func (s *scraper) loop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-time.After(250 * time.Millisecond):
		}
		resp, err := http.Get(s.url)
		if err != nil {
			continue
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		mfs, err := p.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		if err == nil {
			s.mu.Lock()
			s.all = append(s.all, scrape{time.Now(), mfs})
			s.mu.Unlock()
		}
	}
}

func (s *scraper) stop() []scrape {
	close(s.done)
	s.wg.Wait()
	return s.all
}

// metric is the value of name's series with the label value (any label), or its only series.
func (sc scrape) metric(name, label string) float64 {
	mf := sc.mfs[name]
	if mf == nil {
		return math.NaN()
	}
	for _, m := range mf.Metric {
		if label == "" || (len(m.Label) > 0 && m.Label[0].GetValue() == label) {
			return m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return math.NaN()
}

// checkScrapes checks what the endpoint served during a run against its result.json: the
// address was announced, the measure phase's counters grew at the produced rate, and the last
// scrape, after the verdict (--metrics-linger waits for it), holds the result's counts, its
// histograms' counts and p99 buckets.
func checkScrapes(t *testing.T, all []scrape, addr, stderr string, r result) {
	t.Helper()
	if !strings.Contains(stderr, "metrics: Prometheus endpoint at http://"+addr+"/metrics (this machine only)") {
		t.Errorf("stderr does not announce the endpoint at %s:\n%s", addr, stderr)
	}
	var measure []scrape
	for _, sc := range all {
		if sc.metric("plimsoll_run_phase", "measure") == 1 {
			measure = append(measure, sc)
		}
	}
	if len(measure) < 20 || len(all) == 0 || sum(all[len(all)-1], "plimsoll_trials_total") != 1 {
		t.Fatalf("%d scrapes, %d in the measure phase; the last after the verdict: %v", len(all), len(measure), len(all) > 0 && sum(all[len(all)-1], "plimsoll_trials_total") == 1)
	}
	a, b := measure[0], measure[len(measure)-1]
	rate := (b.metric("plimsoll_messages_acked_total", "measured") - a.metric("plimsoll_messages_acked_total", "measured")) / b.at.Sub(a.at).Seconds()
	if d := rate/r.ProducedMsgsPerSec - 1; math.Abs(d) > 0.15 {
		t.Errorf("acked counter grew %.0f msgs/s over the measure phase's scrapes, result %.0f: more than 15%% apart (counters move once a second)", rate, r.ProducedMsgsPerSec)
	}
	if g := b.metric("plimsoll_target_messages_per_second", ""); g != r.TargetMsgsPerSec {
		t.Errorf("target gauge %v, result %v", g, r.TargetMsgsPerSec)
	}
	if err := matchesResult(all[len(all)-1], r); err != nil {
		t.Error(err)
	}
}

func sum(sc scrape, name string) float64 {
	var v float64
	if mf := sc.mfs[name]; mf != nil {
		for _, m := range mf.Metric {
			v += m.GetCounter().GetValue()
		}
	}
	return v
}

// matchesResult: the measured counters are result.json's counts, each histogram holds its
// count of values, and the bucket holding the histogram's p99 holds result.json's p99.
func matchesResult(sc scrape, r result) error {
	c := r.Counts
	for name, want := range map[string]int64{"sent": c.Sent, "acked": c.Acked, "failed": c.Failed, "consumed": c.Consumed, "lost": c.Lost, "duplicated": c.Duplicated} {
		if got := sc.metric("plimsoll_messages_"+name+"_total", "measured"); got != float64(want) {
			return fmt.Errorf("plimsoll_messages_%s_total{window=\"measured\"} = %v, result.json %d", name, got, want)
		}
	}
	for name, key := range map[string]string{"plimsoll_publish_latency_seconds": "publish", "plimsoll_end_to_end_latency_seconds": "end_to_end", "plimsoll_schedule_delay_seconds": "schedule_delay"} {
		mf := sc.mfs[name]
		if mf == nil {
			return fmt.Errorf("no %s", name)
		}
		h, want := mf.Metric[0].GetHistogram(), r.LatencyMs[key]
		if float64(h.GetSampleCount()) != want["count"] {
			return fmt.Errorf("%s holds %d values, result.json's %s %v", name, h.GetSampleCount(), key, want["count"])
		}
		lo, hi := 0.0, math.Inf(1)
		for _, b := range h.Bucket {
			if float64(b.GetCumulativeCount()) >= 0.99*float64(h.GetSampleCount()) {
				hi = b.GetUpperBound()
				break
			}
			lo = b.GetUpperBound()
		}
		if p99 := want["p99"] / 1000; p99 <= lo || p99 > hi {
			return fmt.Errorf("%s: p99 in (%v, %v] s; result.json's %s p99 %v s is not", name, lo, hi, key, p99)
		}
	}
	return nil
}
