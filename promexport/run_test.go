package promexport

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kfake"
)

// TestScrapeMatchesRun drives a real load generator against kfake (client logic only) with the
// endpoint fed and scraped as it runs: scrapes during the run see it progress, and the one after
// its verdict holds the result's counts and histograms.
func TestScrapeMatchesRun(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := New()
	s, err := Serve("127.0.0.1:0", e.Handler())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec := workload.Default()
	spec.Topics, spec.PartitionsPerTopic, spec.ReplicationFactor, spec.Producers = 1, 3, 1, 2
	spec.Rate, spec.MessageSize, spec.ConsumerGroups, spec.ConsumersPerGroup = 2000, 200, 1, 1
	spec.Warmup, spec.Duration = 500*time.Millisecond, 1500*time.Millisecond
	spec.ConsumerProps.Set("heartbeat.interval.ms", "100")
	opts := loadgen.Options{RunID: "promexport", DrainTimeout: 10 * time.Second}
	e.Feed(&opts)
	e.Trial(1, spec.MessageSize, spec.Rate)
	stop := scrapeEvery(s.URL("/"), 100*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := loadgen.Run(ctx, spec, target.Target{Bootstrap: c.ListenAddrs()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.Done(&results.Trial{Result: *res, Verdict: verdict.Verdict{State: verdict.OK}})
	sent := stop()
	midway := false
	for _, v := range sent {
		midway = midway || (v > 0 && v < float64(res.Counts.Sent))
	}
	if !midway {
		t.Errorf("scrapes during the run saw measured sent %v of the final %d: none part-way", sent, res.Counts.Sent)
	}
	if err := consistent(parse(t, get(t, s.URL("/"))), res); err != nil {
		t.Error(err)
	}
}

// scrapeEvery scrapes url every d until the returned stop is called, and returns what each
// scrape read of plimsoll_messages_sent_total{window="measured"}.
func scrapeEvery(url string, d time.Duration) (stop func() []float64) {
	var (
		mu   sync.Mutex
		seen []float64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(d):
			}
			resp, err := http.Get(url)
			if err != nil {
				continue
			}
			p := expfmt.NewTextParser(model.UTF8Validation)
			mfs, err := p.TextToMetricFamilies(resp.Body)
			resp.Body.Close()
			if err == nil {
				mu.Lock()
				seen = append(seen, value(mfs["plimsoll_messages_sent_total"], "measured"))
				mu.Unlock()
			}
		}
	}()
	return func() []float64 {
		close(done)
		wg.Wait()
		return seen
	}
}

func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// value is the family's value for window (counters) or its only value.
func value(mf *dto.MetricFamily, window string) float64 {
	if mf == nil {
		return math.NaN()
	}
	for _, m := range mf.Metric {
		if len(m.Label) == 0 || m.Label[0].GetValue() == window {
			return m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
		}
	}
	return math.NaN()
}

// consistent checks a scrape taken after a run's verdict against its result: the measured
// counters are its counts, the histograms hold its values, and each p99 the buckets give lies
// in the bucket of the result's p99.
func consistent(mfs map[string]*dto.MetricFamily, res *loadgen.Result) error {
	c := res.Counts
	for name, want := range map[string]int64{"sent": c.Sent, "acked": c.Acked, "failed": c.Failed, "consumed": c.Consumed,
		"lost": c.Lost, "duplicated": c.Duplicated} {
		if got := value(mfs["plimsoll_messages_"+name+"_total"], "measured"); got != float64(want) {
			return fmt.Errorf("plimsoll_messages_%s_total{window=\"measured\"} = %v, result %d", name, got, want)
		}
	}
	for name, p := range map[string]loadgen.Percentiles{"publish_latency": res.Latency.Publish, "end_to_end_latency": res.Latency.EndToEnd,
		"schedule_delay": res.Latency.ScheduleDelay} {
		mf := mfs["plimsoll_"+name+"_seconds"]
		if mf == nil {
			return fmt.Errorf("no plimsoll_%s_seconds", name)
		}
		h := mf.Metric[0].GetHistogram()
		if int64(h.GetSampleCount()) != p.Count {
			return fmt.Errorf("plimsoll_%s_seconds holds %d values, result %d", name, h.GetSampleCount(), p.Count)
		}
		lo, hi := quantileBucket(h, 0.99)
		if p99 := p.P99 / 1000; p99 <= lo || p99 > hi {
			return fmt.Errorf("plimsoll_%s_seconds: p99 in (%v, %v] s, the result's %v s is not", name, lo, hi, p99)
		}
	}
	return nil
}

// quantileBucket is the bucket (lower, upper] holding the q quantile, as histogram_quantile
// finds it: the first whose cumulative count reaches q of the total.
func quantileBucket(h *dto.Histogram, q float64) (lo, hi float64) {
	rank := q * float64(h.GetSampleCount())
	for _, b := range h.Bucket {
		if float64(b.GetCumulativeCount()) >= rank {
			return lo, b.GetUpperBound()
		}
		lo = b.GetUpperBound()
	}
	return lo, math.Inf(1)
}
