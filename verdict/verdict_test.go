package verdict

import (
	"encoding/json"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

// run builds a load-generator result of a steady run at rate msgs/s for n seconds.
func run(target, produced float64, n int) *loadgen.Result {
	r := &loadgen.Result{TargetMsgsPerSec: target, ProducedMsgsPerSec: produced}
	r.Config.NumCPU, r.Config.GOMAXPROCS, r.Config.ConsumerClients, r.Config.ReplicationFactor = 2, 2, 1, 3
	r.Client.CPUShare = 0.2
	r.Latency.Publish.P99 = 12
	var rows []loadgen.Second
	for i := 0; i < n; i++ {
		rows = append(rows, loadgen.Second{T: float64(i + 1), Phase: loadgen.PhaseMeasure, BacklogMsgs: 50 + int64(i%3)})
	}
	r.Timeline = loadgen.TimelineOf(rows...)
	return r
}

// windowRun is a run whose producers (idempotent: window 1) had a broker's window full the
// given share of the time, every batch full.
func windowRun(target, produced, share float64) *loadgen.Result {
	r := run(target, produced, 20)
	r.Client.WindowLimit, r.Client.WindowShare, r.Client.FullBatchShare, r.Client.Batches = 1, share, 1, 12433
	return r
}

// quietLinks puts every broker's links at 15% and 12% of their capacity.
func quietLinks(_ int, _ int32, b *probe.BrokerSample, _ *probe.MetaSample) {
	b.WireIn, b.WireOut = 3e5, 2.4e5
}

// series builds n one-second probe samples of 3 brokers; edit tweaks each broker sample.
func series(n int, edit func(i int, id int32, b *probe.BrokerSample, m *probe.MetaSample)) *probe.Series {
	s := &probe.Series{Interval: 1, Cores: 2, Local: true, HandlerPools: map[int32]int{1: 2, 2: 2, 3: 2}, NICBytesPerSec: 2e6}
	t0 := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		x := probe.Sample{Start: t0.Add(time.Duration(i) * time.Second), Time: t0.Add(time.Duration(i+1) * time.Second),
			Brokers: map[int32]*probe.BrokerSample{}, Meta: &probe.MetaSample{Brokers: []int32{1, 2, 3}, Partitions: 30}}
		for id := int32(1); id <= 3; id++ {
			b := &probe.BrokerSample{Interval: 1, HandlerIdle: 0.8, NetworkIdle: 0.9, BytesIn: 5e5, ReplicationBytesIn: 1e6,
				WireIn: 1.5e6, WireOut: 1.2e6, HeapUsed: 2e8, HeapMax: 5e8}
			if edit != nil {
				edit(i, id, b, x.Meta)
			}
			x.Brokers[id] = b
		}
		s.Samples = append(s.Samples, x)
	}
	return s
}

// starved sets plimsoll's own run-queue wait and CPU (cores) in every host sample.
func starved(s *probe.Series, wait, cpu float64) *probe.Series {
	for i := range s.Samples {
		s.Samples[i].Host.Self.RunQueueWait, s.Samples[i].Host.Self.CPU = probe.Num(wait), probe.Num(cpu)
	}
	return s
}

// burstyRun is a run on target whose generator fell a little behind (p99 schedule delay 54 ms,
// max 89) using 0.14 of the host's 2 cores.
func burstyRun() *loadgen.Result {
	r := run(17220, 17220, 20)
	r.Client.MaxScheduleDelayMs, r.Latency.ScheduleDelay.P99 = 89, 54
	r.Client.CPUShare = 0.07
	return r
}

// withHost adds host samples: the host's busy share and the brokers' JVM CPU (cores, summed).
func withHost(s *probe.Series, busy, brokerCores float64) *probe.Series {
	for i := range s.Samples {
		s.Samples[i].Host = &probe.HostSample{Interval: 1, Cores: 2, CPU: probe.CPUSample{Busy: probe.Num(busy)},
			Brokers: map[int32]probe.ProcSample{1: {CPU: probe.Num(brokerCores / 3)}, 2: {CPU: probe.Num(brokerCores / 3)}, 3: {CPU: probe.Num(brokerCores / 3)}}}
	}
	return s
}

func TestJudge(t *testing.T) {
	cases := []struct {
		name    string
		in      Input
		crit    func(*Criteria)
		want    State
		reasons []string // criteria expected among the reasons
		bottle  string   // expected prefix of the bottleneck
	}{
		{name: "ok", in: Input{Run: run(1000, 999, 20), Series: series(20, nil)}, want: OK},
		{name: "shortfall", in: Input{Run: run(1000, 900, 20), Series: series(20, nil)}, want: Overloaded, reasons: []string{CritShortfall}},
		{name: "handler-idle", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			if id == 2 {
				b.HandlerIdle = 0.1
			}
		})}, want: Overloaded, reasons: []string{CritHandlerIdle}, bottle: "broker 2"},
		{name: "isr-churn", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(i int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			if id == 1 && i%4 != 0 {
				b.ISRShrinks = 1
			}
		})}, want: Overloaded, reasons: []string{CritISR}},
		{name: "isr-churn-below-half", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(i int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			if id == 1 && i%4 == 0 {
				b.ISRExpands = 1
			}
		})}, want: OK},
		{name: "paused-follower", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(i int, id int32, b *probe.BrokerSample, m *probe.MetaSample) {
			if i >= 5 {
				m.UnderReplicated = 10
				m.OutOfISR = map[int32]int{3: 10}
			}
		})}, want: Overloaded, reasons: []string{CritISR}},
		{name: "client-bound-behind", in: Input{Run: func() *loadgen.Result {
			r := run(200000, 120000, 20)
			r.Client.MaxScheduleDelayMs = 850
			r.Latency.ScheduleDelay.P99 = 700
			r.Counts.Unsent = 1500000
			return r
		}(), Series: series(20, nil)}, want: Invalid, reasons: []string{CritClientBound, CritShortfall}, bottle: "plimsoll"},
		{name: "co-located-host-saturated", in: Input{Run: func() *loadgen.Result {
			r := run(20000, 15000, 20)
			r.Client.MaxScheduleDelayMs = 400
			r.Latency.ScheduleDelay.P99 = 300
			return r
		}(), Series: starved(withHost(series(20, nil), 0.99, 1.7), 0.6, 0.3)}, want: Overloaded, reasons: []string{CritHostCPU, CritShortfall}},
		{name: "noisy-host", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Client.MaxScheduleDelayMs = 400
			r.Latency.ScheduleDelay.P99 = 300
			r.Client.CPUShare = 0.01
			return r
		}(), Series: withHost(series(20, nil), 1.0, 0.4)}, want: Invalid, reasons: []string{CritHostNoise}},
		{name: "jitter-is-not-client-bound", in: Input{Run: func() *loadgen.Result {
			r := run(300, 300, 20)
			r.Client.MaxScheduleDelayMs = 51
			r.Latency.ScheduleDelay.P99 = 14
			return r
		}(), Series: withHost(series(20, nil), 0.6, 0.9)}, want: OK},
		{name: "behind-host-idle", in: Input{Run: func() *loadgen.Result {
			r := run(20000, 15000, 20)
			r.Client.MaxScheduleDelayMs = 400
			r.Latency.ScheduleDelay.P99 = 300
			return r
		}(), Series: starved(withHost(series(20, nil), 0.5, 0.6), 0.4, 0.3)}, want: Invalid, reasons: []string{CritClientBound}},
		// TestNICVerdicts' message-overhead trial (100 B at 17,220 msgs/s near the NICs' limit):
		// the host 73% busy on average, the brokers 1.29 cores, plimsoll 0.14 whose threads
		// waited 0.29 s per second for a CPU: the brokers' bursts, not the generator.
		{name: "behind-host-bursts", in: Input{Run: burstyRun(), Series: starved(withHost(series(20, nil), 0.73, 1.29), 0.29, 0.15)},
			want: Overloaded, reasons: []string{CritHostCPU}},
		{name: "behind-host-bursts-criterion-off", in: Input{Run: burstyRun(), Series: starved(withHost(series(20, nil), 0.73, 1.29), 0.29, 0.15)},
			crit: func(c *Criteria) { c.HostSqueezeShare = 0 }, want: Invalid, reasons: []string{CritClientBound}, bottle: "plimsoll"},
		// The same generator, not starved: timer jitter, judged on the cluster's criteria.
		{name: "behind-host-bursts-not-starved", in: Input{Run: burstyRun(), Series: starved(withHost(series(20, nil), 0.73, 1.29), 0.05, 0.15)},
			want: OK},
		// A generator using a third of the CPU it and the brokers used is not squeezed by them.
		{name: "behind-host-busy-generator", in: Input{Run: func() *loadgen.Result {
			r := burstyRun()
			r.Client.CPUShare = 0.3 // 0.6 cores beside the brokers' 1.29: a share of 0.32
			return r
		}(), Series: starved(withHost(series(20, nil), 0.73, 1.29), 0.5, 0.6)}, want: Invalid, reasons: []string{CritClientBound}},
		// The demo's case: a late tail on a busy host while plimsoll hardly waited for a CPU.
		{name: "late-without-cpu-wait-is-jitter", in: Input{Run: func() *loadgen.Result {
			r := run(10400, 10390, 20)
			r.Client.MaxScheduleDelayMs = 120
			r.Latency.ScheduleDelay.P99 = 81
			return r
		}(), Series: starved(withHost(series(20, nil), 0.79, 1.2), 0.02, 0.3)}, want: OK},
		{name: "client-bound-go-scheduler", in: Input{Run: func() *loadgen.Result {
			r := run(40000, 36000, 20)
			r.Config.GOMAXPROCS, r.Client.CPUShare = 1, 0.25
			r.Client.BufferFullShare = 0.2 // held back by the cluster's acknowledgements
			return r
		}(), Series: func() *probe.Series {
			s := withHost(series(20, nil), 0.95, 1.0)
			for i := range s.Samples {
				// Each second, 2% of goroutine wake-ups waited 30-40 ms for a scheduler thread.
				s.Samples[i].Host.Self.SchedLatencyP99 = 0.04
				s.Samples[i].Host.Self.SchedLatency = &probe.SchedHist{Buckets: []probe.SchedBucket{
					{Lo: 0, Hi: 1e-5, N: 980}, {Lo: 0.03, Hi: 0.04, N: 20}}}
			}
			return s
		}()}, want: Invalid, reasons: []string{CritClientBound}},
		{name: "hot-goroutine-many-cores", in: Input{Run: func() *loadgen.Result {
			// One producer goroutine pinned at one core of a 32-core host: it never waits for a
			// CPU, uses 1/32 of the host, and cannot keep up: messages went unsent.
			r := run(400000, 250000, 20)
			r.Config.NumCPU, r.Config.GOMAXPROCS, r.Client.CPUShare = 32, 32, 1.0/32
			r.Counts.Unsent = 150000 * 20
			r.Client.MaxScheduleDelayMs = 9000
			r.Latency.ScheduleDelay.P99 = 8000
			return r
		}(), Series: starved(withHost(series(20, nil), 0.05, 0.2), 0.001, 1.0)}, want: Invalid, reasons: []string{CritClientBound}},
		{name: "no-broker-metrics", in: Input{Run: run(30000, 18000, 20), Series: func() *probe.Series {
			// A remote cluster without metrics endpoints: only the client host is observed, 15%
			// busy. The shortfall is the cluster's, but nothing observed was near a limit.
			s := withHost(series(20, nil), 0.15, 0)
			for i := range s.Samples {
				s.Samples[i].Brokers, s.Samples[i].Host.Brokers = nil, nil
			}
			s.Local = false
			return s
		}()}, want: Overloaded, reasons: []string{CritShortfall}},
		{name: "client-bound-cpu", in: Input{Run: func() *loadgen.Result {
			r := run(200000, 150000, 20)
			r.Config.GOMAXPROCS, r.Client.CPUShare = 1, 0.49
			return r
		}(), Series: series(20, nil)}, want: Invalid, reasons: []string{CritClientBound}},
		// Measured (TestVerdictClientBound): one scheduler thread compressing with gzip-9 on a
		// host 86% busy got 0.84 cores, its threads waiting 0.22 s per second, its buffers full
		// 96% of the window; 74,047 of 100,000 msgs/s need 1.13 cores.
		{name: "client-bound-cpu-wanted", in: Input{Run: func() *loadgen.Result {
			r := run(100000, 74047, 10)
			r.Config.GOMAXPROCS, r.Client.CPUShare, r.Client.BufferFullShare = 1, 0.42, 0.96
			r.Latency.Publish.P99 = 3674
			return r
		}(), Series: starved(withHost(series(10, nil), 0.86, 0.86), 0.22, 0.84)},
			want: Invalid, reasons: []string{CritClientBound, CritShortfall, CritLatency}, bottle: "plimsoll (the load generator): plimsoll wanted 1.06 of the 1 core it may use"},
		// The same CPU on target is below ClientMaxCPU: nothing says it could not keep up.
		{name: "cpu-wanted-on-target", in: Input{Run: func() *loadgen.Result {
			r := run(74000, 74000, 10)
			r.Config.GOMAXPROCS, r.Client.CPUShare = 1, 0.42
			return r
		}(), Series: starved(withHost(series(10, nil), 0.86, 0.86), 0.22, 0.84)}, want: OK},
		// A stalled cluster: 10% produced scales 0.2 cores to a need of 2, but the generator idled.
		{name: "cpu-need-of-a-stall", in: Input{Run: func() *loadgen.Result {
			r := run(50000, 5000, 10)
			r.Client.CPUShare, r.Client.BufferFullShare = 0.1, 0.9
			return r
		}(), Series: starved(withHost(series(10, nil), 0.5, 0.6), 0.05, 0.2)}, want: Overloaded, reasons: []string{CritShortfall}},
		// Brokers holding the CPU: the generator's threads waited long, but the target needed
		// far less than the cores it may use.
		{name: "cpu-wanted-beside-busy-brokers", in: Input{Run: func() *loadgen.Result {
			r := run(50000, 45000, 10)
			r.Client.CPUShare, r.Client.BufferFullShare = 0.25, 0.5
			return r
		}(), Series: starved(withHost(series(10, nil), 0.88, 1.4), 1.5, 0.5)}, want: Overloaded, reasons: []string{CritShortfall}},
		// Measured: one lean producer on slow acknowledgements (a follower fetch waits 400 ms),
		// publish p99 2.4 s, nothing busy but the brokers' heaps at 59-62%, named the bottleneck.
		{name: "heap-never-the-bottleneck", in: Input{Run: func() *loadgen.Result {
			r := run(1300, 1300, 20)
			r.Latency.Publish.P99 = 2353
			return r
		}(), Series: series(20, func(_ int, _ int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.HeapUsed = 3.1e8
			quietLinks(0, 0, b, nil)
		})}, want: Overloaded, reasons: []string{CritLatency}, bottle: "unknown: no resource was near its capacity (the busiest, broker 1 request handlers"},
		{name: "buffer-full-is-broker-bound", in: Input{Run: func() *loadgen.Result {
			r := run(50000, 30000, 20)
			r.Client.BufferFullShare = 0.2 // held back by the cluster's acknowledgements
			return r
		}(), Series: series(20, nil)}, want: Overloaded, reasons: []string{CritShortfall}},
		{name: "lag-growing", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Timeline.Edit(func(s *loadgen.Second) { s.BacklogMsgs = int64(100 * (s.T - 1)) })
			return r
		}(), Series: series(20, nil)}, want: Overloaded, reasons: []string{CritLag}},
		{name: "latency-slo", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Latency.Publish.P99 = 1800
			return r
		}(), Series: series(20, nil)}, want: Overloaded, reasons: []string{CritLatency}},
		{name: "latency-slo-off", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Latency.Publish.P99 = 1800
			return r
		}(), Series: series(20, nil)}, crit: func(c *Criteria) { c.PublishP99SLOMs = 0 }, want: OK},
		{name: "produce-errors", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Counts.Failed = 3
			r.Errors = []loadgen.ErrorCount{{Source: "produce", Message: "NOT_ENOUGH_REPLICAS", Count: 3}}
			return r
		}(), Series: series(20, nil)}, want: Overloaded, reasons: []string{CritErrors}},
		{name: "network-bottleneck", in: Input{Run: run(1000, 900, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			if id == 3 {
				b.WireIn = 1.96e6
			}
		})}, want: Overloaded, reasons: []string{CritShortfall}, bottle: "broker 3 network in"},
		// acks=1 above the links' capacity: producers get their bytes in, followers fall 10% behind.
		{name: "replication-behind", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.ReplicationBytesIn = 0.9e6
			if id == 2 {
				b.ReplicationBytesIn = 0.85e6
			}
		})}, want: Overloaded, reasons: []string{CritReplication}, bottle: "broker 2"},
		// Followers 2% behind in one window (a fetch in flight at its edges) is not falling behind.
		{name: "replication-within-tolerance", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.ReplicationBytesIn = 0.98e6
		})}, want: OK},
		// Followers catching up after the warm-up fetch more than was appended: fine.
		{name: "replication-catching-up", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.ReplicationBytesIn = 1.2e6
		})}, want: OK},
		{name: "replication-off", in: Input{Run: run(1000, 1000, 20), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.ReplicationBytesIn = 0.5e6
		})}, crit: func(c *Criteria) { c.MinReplicated = 0 }, want: OK},
		{name: "replication-rf1", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 20)
			r.Config.ReplicationFactor = 1
			return r
		}(), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			b.ReplicationBytesIn = 0
		})}, want: OK},
		// The producers' window full nearly all the time, the brokers idle: the client set the
		// rate (loopback, batch.size 1100, linger 0: 1,243 of 5,000 msgs/s, window 0.99).
		{name: "window-bound", in: Input{Run: windowRun(5000, 1243, 0.99), Series: series(20, quietLinks)},
			want: Invalid, reasons: []string{CritClientBound, CritShortfall}, bottle: "plimsoll (the load generator): the producers' request window"},
		// A heap 64% full is no sign of a broker near its limit (slow brokers, 8 producers: 933 of
		// 1,000 msgs/s, window 1.0, batches 93% full, a broker's heap at 63%).
		{name: "window-bound-heap-full", in: Input{Run: windowRun(1000, 933, 1), Series: series(20, func(i int, id int32, b *probe.BrokerSample, m *probe.MetaSample) {
			quietLinks(i, id, b, m)
			b.HeapUsed = 3.2e8
		})}, want: Invalid, reasons: []string{CritClientBound}, bottle: "plimsoll (the load generator): the producers' request window"},
		// Far above a co-located cluster's capacity the window is full too, but the shared host's
		// CPU is the limit (200,000 msgs/s of 1 KB on 2 cores: window 94%, brokers 26% each).
		{name: "window-full-host-busy", in: Input{Run: windowRun(200000, 49131, 0.94), Series: withHost(series(20, quietLinks), 0.99, 1.56)},
			want: Overloaded, reasons: []string{CritShortfall}},
		// The same window with a link near its capacity: the cluster is slow to answer.
		{name: "window-full-link-busy", in: Input{Run: windowRun(1000, 900, 0.99), Series: series(20, func(_ int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			if id == 3 {
				b.WireIn = 1.96e6
			}
		})}, want: Overloaded, reasons: []string{CritShortfall}, bottle: "broker 3 network in"},
		// A window full most of the time in a run that kept up: nothing to explain.
		{name: "window-full-kept-up", in: Input{Run: windowRun(1000, 1000, 0.95), Series: series(20, nil)}, want: OK},
		// The window full but batches mostly not: records did not wait for it (slow brokers at a
		// low rate: the latency is theirs).
		{name: "window-full-batches-not", in: Input{Run: func() *loadgen.Result {
			r := windowRun(50, 50, 1)
			r.Client.FullBatchShare = 0.15
			r.Latency.Publish.P99 = 2073
			return r
		}(), Series: series(20, quietLinks)}, want: Overloaded, reasons: []string{CritLatency}},
		// A shortfall with the window full less than ClientWindowShare of the time is the cluster's.
		{name: "window-below-share", in: Input{Run: windowRun(5000, 1243, 0.6), Series: series(20, quietLinks)}, want: Overloaded, reasons: []string{CritShortfall}},
		{name: "window-criterion-off", in: Input{Run: windowRun(5000, 1243, 0.99), Series: series(20, quietLinks)},
			crit: func(c *Criteria) { c.ClientWindowShare = 0 }, want: Overloaded, reasons: []string{CritShortfall}},
		{name: "no-probe", in: Input{Run: run(1000, 1000, 20)}, want: OK},
		{name: "no-result", in: Input{}, want: Invalid, reasons: []string{CritNoData}},
		{name: "interrupted", in: Input{Run: func() *loadgen.Result {
			r := run(1000, 1000, 8)
			r.Interrupted, r.Window.MeasuredSeconds, r.Config.Spec.Duration = true, 8, 20*time.Second
			return r
		}(), Series: series(8, nil)}, want: Invalid, reasons: []string{CritInterrupted}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crit := DefaultCriteria()
			if c.crit != nil {
				c.crit(&crit)
			}
			if c.in.Series != nil && len(c.in.Series.Samples) > 0 {
				t := use.Summarise(c.in.Series) // as trial.Run does: the window's table, once
				c.in.USE = &t
			}
			v := Judge(c.in, crit)
			if v.State != c.want {
				t.Errorf("state = %s, want %s; reasons %+v", v.State, c.want, v.Reasons)
			}
			for _, want := range c.reasons {
				found := false
				for _, r := range v.Reasons {
					found = found || r.Criterion == want
				}
				if !found {
					t.Errorf("no %q reason in %+v", want, v.Reasons)
				}
			}
			if c.want == OK && len(v.Reasons) > 0 {
				t.Errorf("ok verdict with reasons %+v", v.Reasons)
			}
			if c.bottle != "" && !strings.HasPrefix(v.Bottleneck, c.bottle) {
				t.Errorf("bottleneck = %q, want prefix %q (evidence %v)", v.Bottleneck, c.bottle, v.Evidence)
			}
			golden(t, c.name, v)
			if c.in.Series != nil && len(c.in.Series.Samples) > 3 {
				sameFromSpill(t, c.in, crit, v)
			}
		})
	}
}

// sameFromSpill judges in again with its series spilled (all but 3 samples in a spill file, as
// a long run's are) and wants the same verdict, byte for byte.
func sameFromSpill(t *testing.T, in Input, crit Criteria, want Verdict) {
	t.Helper()
	header := *in.Series
	header.Samples = nil
	sp := &header
	defer sp.Close()
	spill := probe.Spill{Dir: t.TempDir(), Keep: 3}
	for _, x := range in.Series.Samples {
		if err := sp.Add(x, spill); err != nil {
			t.Fatal(err)
		}
	}
	in.Series = sp
	if in.USE != nil {
		u := use.Summarise(sp)
		in.USE = &u
	}
	got, _ := json.Marshal(Judge(in, crit))
	if w, _ := json.Marshal(want); !sp.Spilled() || string(got) != string(w) {
		t.Errorf("from a spilled series (spilled %v): %s\nfrom memory: %s", sp.Spilled(), got, w)
	}
}

func golden(t *testing.T, name string, v Verdict) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "golden", name+".json"), append(got, '\n'))
}

func TestCriteriaDescribe(t *testing.T) {
	off := Criteria{}
	slo := Criteria{PublishP99SLOMs: 250, MinReplicated: 0.97}
	for _, c := range []struct {
		in   Criteria
		want string
	}{
		{DefaultCriteria(), "achieved < 97% of target; consumer lag growth > 2% of the rate per second; followers fetch < 97% of appended bytes; p99 publish > 1000 ms; handler idle < 20%; ISR churn or under-replication > 50% of seconds; any produce error"},
		{slo, "followers fetch < 97% of appended bytes; p99 publish > 250 ms"},
		{off, "none (every criterion switched off)"},
	} {
		if got := c.in.Describe(); got != c.want {
			t.Errorf("Describe() = %q, want %q", got, c.want)
		}
	}
}

// TestCeiling: the throughput ceiling's judgement leaves out the latency SLO and nothing else.
func TestCeiling(t *testing.T) {
	lat := Reason{Criterion: CritLatency}
	short := Reason{Criterion: CritShortfall}
	tests := []struct {
		state   State
		reasons []Reason
		want    State
	}{
		{OK, nil, OK},
		{Overloaded, []Reason{lat}, OK},
		{Overloaded, []Reason{lat, short}, Overloaded},
		{Overloaded, []Reason{short}, Overloaded},
		{Invalid, []Reason{{Criterion: CritClientBound}, lat}, Invalid},
	}
	for _, tt := range tests {
		if got := ceilingState(Verdict{State: tt.state, Reasons: tt.reasons}); got != tt.want {
			t.Errorf("%s with %v: ceiling %s, want %s", tt.state, tt.reasons, got, tt.want)
		}
	}
}

// TestBrokerCPUMissing: a broker whose reading is missing for a second is averaged over the
// seconds it has, not counted as idle.
func TestBrokerCPUMissing(t *testing.T) {
	s := withHost(series(4, nil), 0.5, 3) // each of 3 brokers at 1 core
	s.Samples[1].Host.Brokers[2] = probe.ProcSample{CPU: probe.Missing, Err: "no such process"}
	cores, n := brokerCPU(s)
	if n != 3 || cores != 3 {
		t.Errorf("brokerCPU = %v cores over %d brokers, want 3 over 3", cores, n)
	}
}

// TestInFlightAtEnd: messages the cluster never answered are a produce error, not silence.
func TestInFlightAtEnd(t *testing.T) {
	r := run(1000, 1000, 20)
	r.Counts.InFlightAtEnd = 7
	v := Judge(Input{Run: r}, DefaultCriteria())
	if v.State != Overloaded || len(v.Reasons) != 1 || v.Reasons[0].Criterion != CritErrors || !strings.Contains(v.Reasons[0].Text, "7 messages") {
		t.Errorf("verdict %+v", v)
	}
	c := DefaultCriteria()
	c.ProduceErrors = false
	if v := Judge(Input{Run: r}, c); v.State != OK {
		t.Errorf("with produce errors off: %+v", v)
	}
}

// TestSilentBroker: a run whose settling found a broker answering nothing is invalid, naming it,
// whatever its figures; without one the same run is judged as before.
func TestSilentBroker(t *testing.T) {
	r := &loadgen.Result{}
	r.Window.SilentBrokers = []int32{3}
	v := Judge(Input{Run: r}, DefaultCriteria())
	if v.State != Invalid || len(v.Reasons) != 1 || v.Reasons[0].Criterion != CritSilent || !strings.Contains(v.Reasons[0].Text, "broker 3 answered nothing") {
		t.Errorf("verdict %s, reasons %+v", v.State, v.Reasons)
	}
	r.Window.SilentBrokers = nil
	if v := Judge(Input{Run: r}, DefaultCriteria()); len(v.Reasons) > 0 && v.Reasons[0].Criterion == CritSilent {
		t.Errorf("no silent broker, yet %+v", v.Reasons)
	}
}

// TestSilentInWindow: a broker answering no scrape for SilentSeconds in a row in the window makes
// the run invalid, naming it, ahead of the host-noise its silence leaves (a busy host whose busy
// cores are not the brokers'); two missed scrapes in a row (the most 113 recorded runs show) and
// a first reading are not silence; 0 switches the criterion off.
func TestSilentInWindow(t *testing.T) {
	silentFrom := func(from, n int) func(int, int32, *probe.BrokerSample, *probe.MetaSample) {
		return func(i int, id int32, b *probe.BrokerSample, _ *probe.MetaSample) {
			switch {
			case id == 2 && i == 0:
				b.Err = "first reading: rates start with the next"
			case id == 2 && i >= from && i < from+n:
				b.Err = "scrape of http://127.0.0.1:9404/metrics still running after 1.9s"
			}
		}
	}
	cases := []struct {
		name   string
		s      *probe.Series
		crit   float64
		silent bool
	}{
		{"paused-mid-window", withHost(series(20, silentFrom(6, 14)), 0.97, 0.2), 5, true},
		{"exactly-the-threshold", series(20, silentFrom(3, 5)), 5, true},
		{"two-missed", series(20, silentFrom(3, 2)), 5, false},
		{"twice-two-missed", series(20, func(i int, id int32, b *probe.BrokerSample, m *probe.MetaSample) {
			silentFrom(3, 2)(i, id, b, m)
			silentFrom(6, 2)(i, id, b, m)
		}), 5, false},
		{"switched-off", series(20, silentFrom(6, 14)), 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultCriteria()
			c.SilentSeconds = tc.crit
			v := Judge(Input{Run: run(1000, 1000, 20), Series: tc.s}, c)
			got := len(v.Reasons) > 0 && v.Reasons[0].Criterion == CritSilent
			if got != tc.silent {
				t.Fatalf("silent %v, want %v: %s %+v", got, tc.silent, v.State, v.Reasons)
			}
			if !got {
				return
			}
			if v.State != Invalid || v.Ceiling != Invalid || v.Reasons[0].Broker != 2 || !strings.HasPrefix(v.Bottleneck, "broker 2 answered no metrics scrape for ") ||
				!strings.Contains(v.Bottleneck, "still running") {
				t.Errorf("verdict %s/%s, reasons %+v", v.State, v.Ceiling, v.Reasons)
			}
		})
	}
	v := Judge(Input{Run: run(1000, 1000, 20), Series: withHost(series(20, silentFrom(6, 14)), 0.97, 0.2)}, DefaultCriteria())
	if want := "broker 2 answered no metrics scrape for 14 s in a row from 6 s into the window"; !strings.HasPrefix(v.Reasons[0].Text, want) {
		t.Errorf("reason %q, want it to begin %q", v.Reasons[0].Text, want)
	}
	// Overloaded by the cluster's own criteria (a paused follower's ISR shrinks), the run stays
	// overloaded: a broker the load stalled is the cluster giving out; the silence is one more
	// reason, not the verdict.
	v = Judge(Input{Run: run(1000, 1000, 20), Series: series(20, func(i int, id int32, b *probe.BrokerSample, m *probe.MetaSample) {
		silentFrom(6, 14)(i, id, b, m)
		if i >= 5 {
			m.UnderReplicated = 10
			m.OutOfISR = map[int32]int{2: 10}
		}
	})}, DefaultCriteria())
	var crits []string
	for _, r := range v.Reasons {
		crits = append(crits, r.Criterion)
	}
	if v.State != Overloaded || len(crits) < 2 || crits[0] != CritISR || crits[len(crits)-1] != CritSilent {
		t.Errorf("a silent follower out of the ISR: %s, reasons %v; want overloaded, isr first and silent-broker after", v.State, crits)
	}
}

// TestOverloadBottleneck: an overloaded trial whose failing criteria name a broker gets that
// broker's busiest resource near its capacity (its heap aside) as its bottleneck; when it has
// none, the busiest resource stays and the broker is said to have had none, never a resource
// far from its limit (the 10,000-partition run's "broker 1 memory: 38%").
func TestOverloadBottleneck(t *testing.T) {
	pct := func(entity, resource string, u float64) use.Row {
		return use.Row{Entity: entity, Resource: resource, Utilisation: use.Cell{Metric: "m", Mean: probe.Num(u), Unit: use.UnitPct, Samples: 3}}
	}
	host := pct("client host", "cpu", 100)
	c := DefaultCriteria()
	for _, tc := range []struct {
		name    string
		rows    []use.Row
		broker  int32
		want    string
		without string
	}{
		{"far from capacity", []use.Row{host, pct("broker 1", "memory", 38), pct("broker 1", "cpu", 20)}, 1,
			"client host cpu: 100% (m); broker 1, which the failing criteria name, had no resource at 50% of its capacity", "memory"},
		{"its heap aside", []use.Row{host, pct("broker 1", "memory", 95)}, 1,
			"client host cpu: 100% (m); broker 1, which the failing criteria name, had no resource at 50%", "memory"},
		{"near capacity", []use.Row{host, pct("broker 2", "network in", 80), pct("broker 2", "cpu", 60)}, 2, "broker 2 network in: 80% (m)", ";"},
		{"no broker named", []use.Row{host, pct("broker 2", "network in", 80)}, 0, "client host cpu: 100% (m)", ";"},
	} {
		tb := &use.Table{Rows: tc.rows}
		v := Verdict{Reasons: []Reason{{Criterion: CritISR, Broker: tc.broker}}}
		v.Evidence, v.Bottleneck = evidence(tb, c)
		got := overloadBottleneck(v, tb, c)
		if !strings.HasPrefix(got, tc.want) || strings.Contains(got, tc.without) {
			t.Errorf("%s: %q, want it to begin %q and not to hold %q", tc.name, got, tc.want, tc.without)
		}
	}
}

// TestWorkerLost: a lost worker makes any verdict invalid, its reason first.
func TestWorkerLost(t *testing.T) {
	for _, st := range []State{OK, Overloaded, Invalid} {
		v := Verdict{State: st, Ceiling: st, Reasons: []Reason{{Criterion: CritLag, Text: "x"}}}
		WorkerLost(&v, "worker 2 went silent after second 7")
		if v.State != Invalid || v.Ceiling != Invalid || len(v.Reasons) != 2 || v.Reasons[0].Criterion != CritWorkerLost || v.Reasons[0].Text != "worker 2 went silent after second 7" {
			t.Errorf("from %s: %+v", st, v)
		}
	}
}
