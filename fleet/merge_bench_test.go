package fleet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// mergeBenchWorkers are the fleet sizes BenchmarkMergeSecond measures (docs/fleet-sizing.md).
var mergeBenchWorkers = []int{1, 2, 4, 8, 16, 32, 64}

// BenchmarkMergeSecond is the coordinator's cost per second of a run with N workers: decoding
// N reports off the results topic (each with three interval histograms of 20,000 values) and
// merging them. Beside the time and allocations per merged second it reports what grows with
// N on the topics: one worker's report (report-bytes), the results topic's bytes per second of
// run (results-bytes/s: N reports) and the plan (plan-bytes) for a workload big enough to be
// split N ways (64 producers, 128 partitions, 2 groups of 64 consumers).
//
//	go test -run '^$' -bench MergeSecond -benchtime 20x -benchmem ./fleet/
func BenchmarkMergeSecond(b *testing.B) {
	r := rand.New(rand.NewPCG(64, 1))
	most := mergeBenchWorkers[len(mergeBenchWorkers)-1]
	// Each worker's report is built once; a fleet of n uses the first n.
	recs := make([][]byte, most)
	for w := range recs {
		var e [3]hdr.Encoded
		for k := range e {
			h := hdr.New()
			for range 20_000 {
				h.Record(latency(r))
			}
			var err error
			if e[k], err = h.Encode(); err != nil {
				b.Fatal(err)
			}
		}
		m := Message{RunID: "r", Worker: w, Kind: KindSecond, Second: &Second{Index: 1, Phase: "measured", Tally: Tally{Backlog: []int64{0}},
			Publish: e[0], EndToEnd: e[1], ScheduleDelay: e[2]}}
		var err error
		if recs[w], err = EncodeMessage(m); err != nil {
			b.Fatal(err)
		}
	}
	spec := testSpec()
	spec.Producers, spec.PartitionsPerTopic, spec.ConsumerGroups, spec.ConsumersPerGroup, spec.Topics = most, 2*most, 2, most, 1
	for _, n := range mergeBenchWorkers {
		p := testPlan()
		p.Workers, p.Spec = n, spec
		plan, err := p.Encode()
		if err != nil {
			b.Fatal(err)
		}
		var topic int
		for _, rec := range recs[:n] {
			topic += len(rec)
		}
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ss := make([]Second, n)
				for w, rec := range recs[:n] {
					m, err := DecodeMessage(rec)
					if err != nil {
						b.Fatal(err)
					}
					ss[w] = *m.Second
				}
				if _, err := MergeSeconds(ss); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(topic)/float64(n), "report-bytes")
			b.ReportMetric(float64(topic), "results-bytes/s")
			b.ReportMetric(float64(len(plan)), "plan-bytes")
		})
	}
}
