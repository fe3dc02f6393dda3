package loadgen

import (
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// BenchmarkLive is what Options.Live adds to each second of a run, on the run's own goroutine:
// the counts by window from the producers and the groups' ledgers, under their locks. It must
// not allocate. (Nothing on a message's path reads or writes Live: BenchmarkProducerRecord and
// BenchmarkConsumeRecords cover those paths.)
func BenchmarkLive(b *testing.B) {
	prods := []*producer{testProducer(b, 1024), testProducer(b, 1024)}
	groups := []*group{{ledger: ledger.NewGroup(8, 2)}, {ledger: ledger.NewGroup(8, 2)}}
	col := &collector{prods: prods, groups: groups, pub: hdr.New(), e2e: hdr.New(), sched: hdr.New()}
	b.ReportAllocs()
	for b.Loop() {
		if l := col.live("bench", Second{}); l.Publish == nil {
			b.Fatal("no histograms")
		}
	}
}
