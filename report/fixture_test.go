package report

import "time"

// fullData is a co-located search on a 2-core host, 3 brokers, rf 3, four sizes: 100 B is
// client-bound, the others bracket the limit. It uses every field of Data.
func fullData() Data {
	lat := func(p50, p99 float64) map[string]Percentiles {
		return map[string]Percentiles{
			LatencyPublish:       {P50: p50, P90: p50 * 1.8, P99: p99, P999: p99 * 1.9, Max: p99 * 3.1},
			LatencyEndToEnd:      {P50: p50 * 1.4, P90: p50 * 2.5, P99: p99 * 1.3, P999: p99 * 2.4, Max: p99 * 3.6},
			LatencyScheduleDelay: {P50: 0.01, P90: 0.02, P99: 0.08, P999: 0.4, Max: 2.1},
		}
	}
	use := func(cpu, queue string) *UseTable {
		return &UseTable{Rows: []UseRow{
			{Resource: "host cpu", Utilisation: cpu, Saturation: "run queue " + queue, Errors: "0"},
			{Resource: "broker 1 request handlers", Utilisation: "41%", Saturation: "request queue 0.4", Errors: "0"},
			{Resource: "broker 2 network in", Utilisation: "3.1%", Saturation: "-", Errors: "0 drops"},
			{Resource: "ISR", Utilisation: "-", Saturation: "0 under-replicated", Errors: "0 shrinks"},
		}}
	}
	return Data{
		Title:     "plimsoll limit: demo cluster",
		Generated: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
		Command:   "plimsoll limit --sizes 100,1000,10000,100000 --out results/demo",
		Brokers:   3,
		Config: []KV{
			{Key: "Kafka version", Value: "4.1.0"}, {Key: "acks", Value: "all"}, {Key: "linger.ms", Value: "5"},
			{Key: "batch.size", Value: "65536"}, {Key: "compression.type", Value: "none"},
			{Key: "replication factor", Value: "3"}, {Key: "min.insync.replicas", Value: "2"},
			{Key: "partitions", Value: "30"}, {Key: "consumer groups", Value: "2"},
			{Key: "payload entropy", Value: "random bytes (incompressible)"},
		},
		Environment: []KV{{Key: "memory", Value: "7.8 GiB"}, {Key: "NIC emulation", Value: "none"}, {Key: "kernel", Value: "6.8"}},
		CoLocated:   true,
		HostCores:   2,
		CPUShare: []CPUShare{
			{SizeBytes: 1000, Who: "broker 1", Cores: 0.41}, {SizeBytes: 1000, Who: "broker 2", Cores: 0.39},
			{SizeBytes: 1000, Who: "broker 3", Cores: 0.4}, {SizeBytes: 1000, Who: "plimsoll", Cores: 0.72},
			{SizeBytes: 100, Who: "broker 1", Cores: 0.3}, {SizeBytes: 100, Who: "broker 2", Cores: 0.28},
			{SizeBytes: 100, Who: "broker 3", Cores: 0.29}, {SizeBytes: 100, Who: "plimsoll", Cores: 1.05},
			{SizeBytes: 10000, Who: "broker 1", Cores: 0.45}, {SizeBytes: 10000, Who: "broker 2", Cores: 0.44},
			{SizeBytes: 10000, Who: "broker 3", Cores: 0.46}, {SizeBytes: 10000, Who: "plimsoll", Cores: 0.5},
		},
		Boundary: []Point{
			{SizeBytes: 1000, SafeMsgsPerSec: 5000, UnsafeMsgsPerSec: 5400, SafeBytesPerSec: 5e6, Bottleneck: "cpu (host)", Trials: 5},
			{SizeBytes: 100, SafeMsgsPerSec: 40000, Trials: 4, ClientBound: true,
				Note: "plimsoll fell behind its schedule above 40,000 msgs/s (p99 schedule delay 31 ms)"},
			{SizeBytes: 10000, SafeMsgsPerSec: 560, UnsafeMsgsPerSec: 600, Bottleneck: "cpu (host)", Trials: 4},
			{SizeBytes: 100000, SafeMsgsPerSec: 58, UnsafeMsgsPerSec: 62, Bottleneck: "disk write on broker 2", Trials: 3},
		},
		Model: []ModelPoint{
			{SizeBytes: 100, MsgsPerSec: 62000, Bottleneck: "cpu"},
			{SizeBytes: 1000, MsgsPerSec: 6100, BytesPerSec: 6.1e6, Bottleneck: "cpu"},
			{SizeBytes: 10000, MsgsPerSec: 610, Bottleneck: "cpu"},
			{SizeBytes: 100000, MsgsPerSec: 61, Bottleneck: "cpu"},
		},
		Recommendation: &Recommendation{PerBrokerBytesPerSec: 1.11e6, ClusterBytesPerSec: 3.33e6, BrokersDown: 1,
			Text: "That is the measured 5 MB/s at 1 KB, less a broker's share, so the cluster keeps up with one broker down."},
		Trials: []Trial{
			{N: 1, SizeBytes: 100, TargetMsgsPerSec: 10000, AchievedMsgsPerSec: 10000, State: StateOK, Latency: lat(1.1, 4.2)},
			{N: 2, SizeBytes: 100, TargetMsgsPerSec: 20000, AchievedMsgsPerSec: 19990, State: StateOK, Latency: lat(1.3, 5.5)},
			{N: 3, SizeBytes: 100, TargetMsgsPerSec: 40000, AchievedMsgsPerSec: 39950, State: StateOK, Latency: lat(1.9, 9.8), Bottleneck: "cpu (plimsoll)"},
			{N: 4, SizeBytes: 100, TargetMsgsPerSec: 80000, AchievedMsgsPerSec: 51200, State: StateInvalid, ClientBound: true,
				Reasons: []string{"client-bound: p99 schedule delay 31 ms > 10 ms", "plimsoll used 1.05 of 2 cores"}, Latency: lat(14, 95)},
			{N: 5, SizeBytes: 1000, TargetMsgsPerSec: 2500, AchievedMsgsPerSec: 2500, State: StateOK, Latency: lat(1.4, 6.1)},
			{N: 6, SizeBytes: 1000, TargetMsgsPerSec: 5000, AchievedMsgsPerSec: 4999, State: StateOK, Latency: lat(2.2, 14.5), USE: use("81%", "1.6")},
			{N: 7, SizeBytes: 1000, TargetMsgsPerSec: 10000, AchievedMsgsPerSec: 6120, State: StateOverloaded, Bottleneck: "cpu (host)",
				Reasons: []string{"end-to-end p99 2.4 s > 500 ms", "backlog grew 3,900 msgs/s"}, Latency: lat(180, 2400)},
			{N: 8, SizeBytes: 1000, TargetMsgsPerSec: 7071, AchievedMsgsPerSec: 6010, State: StateOverloaded, Bottleneck: "cpu (host)",
				Reasons: []string{"backlog grew 1,050 msgs/s"}, Latency: lat(95, 1300)},
			{N: 9, SizeBytes: 1000, TargetMsgsPerSec: 5400, AchievedMsgsPerSec: 5380, State: StateOverloaded, Bottleneck: "cpu (host)",
				Reasons: []string{"end-to-end p99 740 ms > 500 ms"}, Latency: lat(9.5, 740), USE: use("99%", "4.8")},
			{N: 10, SizeBytes: 10000, TargetMsgsPerSec: 250, AchievedMsgsPerSec: 250, State: StateOK, Latency: lat(2.9, 11)},
			{N: 11, SizeBytes: 10000, TargetMsgsPerSec: 500, AchievedMsgsPerSec: 500, State: StateOK, Latency: lat(3.4, 16)},
			{N: 12, SizeBytes: 10000, TargetMsgsPerSec: 560, AchievedMsgsPerSec: 560, State: StateOK, Latency: lat(3.9, 22)},
			{N: 13, SizeBytes: 10000, TargetMsgsPerSec: 600, AchievedMsgsPerSec: 571, State: StateOverloaded, Bottleneck: "cpu (host)",
				Reasons: []string{"publish p99 910 ms > 500 ms"}, Latency: lat(40, 910)},
			{N: 14, SizeBytes: 100000, TargetMsgsPerSec: 25, AchievedMsgsPerSec: 25, State: StateOK, Latency: lat(9, 31)},
			{N: 15, SizeBytes: 100000, TargetMsgsPerSec: 58, AchievedMsgsPerSec: 58, State: StateOK, Latency: lat(12, 48)},
			{N: 16, SizeBytes: 100000, TargetMsgsPerSec: 62, AchievedMsgsPerSec: 59.5, State: StateOverloaded, Bottleneck: "disk write on broker 2",
				Reasons: []string{"backlog grew 2.4 msgs/s"}, Latency: lat(60, 1500)},
		},
		Notes: []string{
			"Figures from a 2-core laptop: compare runs side by side on the same machine, not against other hosts.",
			"Warm-up (30 s per trial) is excluded from every figure.",
		},
	}
}

// remoteData is a cluster on its own hosts with no model, one size, and no CPU figures.
func remoteData() Data {
	return Data{
		Title:     "plimsoll limit: prod-eu-1",
		Generated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600)),
		Brokers:   6,
		Config:    []KV{{Key: "Kafka version", Value: "3.9.1"}, {Key: "acks", Value: "1"}},
		Boundary: []Point{{SizeBytes: 1024, SafeMsgsPerSec: 412000, UnsafeMsgsPerSec: 437000,
			Bottleneck: "network out on broker 4", Trials: 7}},
		Trials: []Trial{
			{N: 7, SizeBytes: 1024, TargetMsgsPerSec: 412000, AchievedMsgsPerSec: 411800, State: StateOK,
				Latency: map[string]Percentiles{LatencyPublish: {P50: 3, P90: 5, P99: 12, P999: 40, Max: 95}}},
		},
	}
}
