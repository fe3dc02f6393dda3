package fleet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// BenchmarkMergeSecond is the coordinator's cost per second of a run with N workers: decoding
// N reports off the results topic (each with three interval histograms of 20,000 values) and
// merging them. It reports the bytes one worker's report takes on the topic.
//
//	nice -n 19 go test -run '^$' -bench MergeSecond -benchtime 20x ./fleet/
func BenchmarkMergeSecond(b *testing.B) {
	r := rand.New(rand.NewPCG(64, 1))
	for _, n := range []int{1, 8, 64} {
		recs := make([][]byte, n)
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
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for b.Loop() {
				ss := make([]Second, n)
				for w, rec := range recs {
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
			b.ReportMetric(float64(len(recs[0])), "report-bytes")
		})
	}
}
