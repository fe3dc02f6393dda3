package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kfake"
)

// exporter serves Prometheus text whose counters grow with real time, like a broker under a
// steady 1 MB/s with its handler pool 75% idle (two pools marking the meter).
type exporter struct {
	start time.Time
	calls atomic.Int64
	// fail and slow pick calls (1-based) that answer HTTP 500, or wait until hold is closed
	// (or the request is abandoned) before answering.
	fail, slow func(n int64) bool
	hold       chan struct{}
	release    func()
}

func (e *exporter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := e.calls.Add(1)
	if e.fail != nil && e.fail(n) {
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	if e.slow != nil && e.slow(n) {
		select {
		case <-e.hold:
		case <-r.Context().Done():
			return
		}
	}
	sec := time.Since(e.start).Seconds()
	fmt.Fprintf(w, "# TYPE kafka_server_brokertopicmetrics_bytesinpersec_total counter\n")
	fmt.Fprintf(w, "kafka_server_brokertopicmetrics_bytesinpersec_total %g\n", 5e6+1e6*sec)
	fmt.Fprintf(w, "kafka_server_brokertopicmetrics_bytesinpersec_total{topic=\"run-a\"} %g\n", 1e6*sec)
	fmt.Fprintf(w, "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count %g\n", 1.5e9*sec)
	fmt.Fprintf(w, "kafka_network_socketserver_networkprocessoravgidlepercent 0.9\n")
	fmt.Fprintf(w, "kafka_network_requestmetrics_totaltimems{quantile=\"0.99\",request=\"Produce\"} 12.5\n")
}

func newExporter(t *testing.T, e *exporter) string {
	e.start = time.Now()
	e.hold = make(chan struct{})
	e.release = sync.OnceFunc(func() { close(e.hold) })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	t.Cleanup(e.release) // before srv.Close, which waits for held requests
	return srv.URL + "/metrics"
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func fakeCluster(t *testing.T) []string {
	c, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(4, "run-a"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func TestProbeStartStop(t *testing.T) {
	steady := &exporter{}
	flaky := &exporter{fail: func(n int64) bool { return n == 3 || n == 4 }}
	slow := &exporter{slow: func(n int64) bool { return n == 3 }}
	cfg := Config{
		Target: target.Target{Bootstrap: fakeCluster(t), MetricsURLs: map[int32]string{
			1: newExporter(t, steady), 2: newExporter(t, flaky), 3: newExporter(t, slow)}},
		Interval:     200 * time.Millisecond,
		TopicPrefix:  "run-",
		HandlerPools: 2,
	}
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Broker 3's second scrape answers only once an observation has recorded it as still
	// running; the probe then goes on until it has 7 samples.
	waitFor(t, 10*time.Second, "broker 3's held scrape recorded as still running", func() bool {
		return slices.ContainsFunc(p.Snapshot().Samples, func(x Sample) bool {
			return strings.Contains(x.Brokers[3].Err, "still running")
		})
	})
	slow.release()
	waitFor(t, 10*time.Second, "7 samples", func() bool { return len(p.Snapshot().Samples) >= 7 })
	s := p.Stop()
	if again := p.Stop(); len(again.Samples) != len(s.Samples) {
		t.Errorf("a second Stop returned %d samples, the first %d", len(again.Samples), len(s.Samples))
	}
	if len(s.Samples) < 7 {
		t.Fatalf("%d samples, want at least 7", len(s.Samples))
	}
	near := func(what string, got Num, want, tol float64) {
		t.Helper()
		if !got.OK() || math.Abs(float64(got)-want) > tol*want {
			t.Errorf("%s = %v, want %v ± %.0f%%", what, got, want, tol*100)
		}
	}
	var failed, late int
	var slowBytes, slowSpan float64
	for i, x := range s.Samples {
		if d := x.Time.Sub(x.Start); d < 150*time.Millisecond || d > 600*time.Millisecond {
			t.Errorf("sample %d spans %v, want about 200ms", i, d)
		}
		if b := x.Brokers[1]; b.Err == "" {
			near("broker 1 bytes in", b.BytesIn, 1e6, 0.25)
			near("broker 1 handler idle", b.HandlerIdle, 0.75, 0.25)
			if b.NetworkIdle != 0.9 || b.ProduceMs.P99 != 12.5 {
				t.Errorf("broker 1 gauges: network idle %v, produce p99 %v", b.NetworkIdle, b.ProduceMs.P99)
			}
		} else {
			t.Errorf("sample %d: steady broker failed: %s", i, b.Err)
		}
		if b := x.Brokers[2]; b.Err != "" {
			failed++
			if b.BytesIn.OK() || b.HandlerIdle.OK() {
				t.Errorf("sample %d: failed scrape has values %v %v, want missing", i, b.BytesIn, b.HandlerIdle)
			}
		} else {
			// The first good scrape after the failures spans them: still 1 MB/s.
			near("broker 2 bytes in", b.BytesIn, 1e6, 0.25)
		}
		// A slow scrape's values are timestamped at its midpoint, so single rates around it
		// are off by up to half its delay; their sum over the intervals is not.
		if b := x.Brokers[3]; strings.Contains(b.Err, "still running") {
			late++
		} else if b.Err == "" {
			slowBytes += float64(b.BytesIn) * b.Interval
			slowSpan += b.Interval
		}
		if x.Meta == nil || x.Meta.Err != "" || x.Meta.Partitions != 4 || x.Meta.ISRSizes[2] != 4 {
			t.Errorf("sample %d: metadata %+v, want 4 partitions with two in-sync replicas", i, x.Meta)
		}
		if x.Host == nil || !x.Host.Self.CPU.OK() || !x.Host.CPU.Busy.OK() {
			t.Errorf("sample %d: host %+v, want plimsoll's and the host's CPU", i, x.Host)
		}
	}
	// Calls 3 and 4 (the 2nd and 3rd samples; call 1 is the baseline) failed.
	if failed != 2 {
		t.Errorf("%d samples with broker 2 failed, want 2", failed)
	}
	near("broker 3 bytes over its intervals ÷ their span", Num(slowBytes/slowSpan), 1e6, 0.05)
	if late < 1 {
		t.Errorf("a scrape held past the interval was never late")
	}
	if s.GOMAXPROCS < 1 || s.Cores < 1 || s.HandlerPools[1] != 2 {
		t.Errorf("series settings %+v", s)
	}
}

func TestProbeContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Config{Target: target.Target{Bootstrap: fakeCluster(t)}, Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "2 samples", func() bool { return len(p.Snapshot().Samples) >= 2 })
	cancel()
	select {
	case <-p.done: // the observing goroutine returned by itself
	case <-time.After(10 * time.Second):
		t.Fatal("the probe still observes 10 s after its context ended")
	}
	n := len(p.Snapshot().Samples)
	if m := len(p.Stop().Samples); m != n || n < 2 {
		t.Errorf("after the context ended: %d samples, then %d from Stop; want the probe stopped with at least 2", n, m)
	}
}

func TestStartErrors(t *testing.T) {
	boot := fakeCluster(t)
	notKafka := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "node_load1 0.5")
	}))
	defer notKafka.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	cases := []struct {
		name string
		cfg  Config
		is   error
		says string
	}{
		{"interval too short", Config{Interval: time.Millisecond}, ErrConfig, "Interval 1ms: want at least 100ms"},
		{"negative nic", Config{NICBytesPerSec: -1}, ErrConfig, "NICBytesPerSec -1"},
		{"negative disk", Config{DiskWriteBytesPerSec: -5}, ErrConfig, "DiskWriteBytesPerSec -5"},
		{"three pools", Config{HandlerPools: 3}, ErrConfig, "HandlerPools 3"},
		{"pool override", Config{HandlerPoolsByBroker: map[int32]int{2: 0}}, ErrConfig, "HandlerPoolsByBroker[2] 0"},
		{"bad pid", Config{BrokerPIDs: map[int32]int{1: -4}}, ErrConfig, "BrokerPIDs[1] -4"},
		{"timeout below interval", Config{Interval: time.Second, ScrapeTimeout: 500 * time.Millisecond}, ErrConfig, "ScrapeTimeout 500ms"},
		{"metrics url without scheme", Config{Target: target.Target{MetricsURLs: map[int32]string{2: "localhost:9404"}}}, ErrConfig, `Target.MetricsURLs[2] "localhost:9404": want http://HOST:PORT/metrics`},
		{"no bootstrap", Config{}, target.ErrInvalid, "bootstrap"},
		{"endpoint refuses", Config{Target: target.Target{MetricsURLs: map[int32]string{1: closed.URL}}}, ErrMetrics, "broker 1"},
		{"not a kafka exporter", Config{Target: target.Target{MetricsURLs: map[int32]string{3: notKafka.URL}}}, ErrMetrics, "docs/metrics.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.cfg.Target.Bootstrap == nil && c.is != target.ErrInvalid {
				c.cfg.Target.Bootstrap = boot
			}
			p, err := Start(context.Background(), c.cfg)
			if err == nil {
				p.Stop()
				t.Fatal("no error")
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q, want %v mentioning %q", err, c.is, c.says)
			}
			var ce *ConfigError
			if errors.As(err, &ce) != (c.is == ErrConfig) || strings.Contains(err.Error(), "--") {
				t.Errorf("error %q: a *ConfigError %v, want %v, naming no flag", err, ce != nil, c.is == ErrConfig)
			}
		})
	}
}

func TestStartUnreachableCluster(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.Listener.Addr().String()
	closed.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := Start(ctx, Config{Target: target.Target{Bootstrap: []string{addr}}})
	if !errors.Is(err, ErrMetadata) || !strings.Contains(err.Error(), addr) {
		t.Errorf("error %v, want ErrMetadata naming %s", err, addr)
	}
}
