package fleet

import (
	"reflect"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// TestRunOptions: a worker's loadgen options name the run (its topics and groups) and carry
// its share, its balancer owning the share's partitions, and the plan's start.
func TestRunOptions(t *testing.T) {
	p := testPlan()
	s, err := p.Share(1)
	if err != nil {
		t.Fatal(err)
	}
	o := RunOptions(p, s)
	sh := o.Share
	if o.RunID != p.RunID || sh == nil || !sh.Start.Equal(p.Start) || sh.Producers != (loadgen.Range{Lo: 2, Hi: 4}) ||
		sh.Partitions != (loadgen.Range{Lo: 4, Hi: 8}) || sh.Consumers != (loadgen.Range{Lo: 1, Hi: 2}) {
		t.Fatalf("options %+v, share %+v", o, sh)
	}
	if b, ok := sh.Balancer.(*balancer); !ok || b.own != s.Partitions {
		t.Errorf("balancer %#v, want fleet's owning %+v", sh.Balancer, s.Partitions)
	}
}

// TestSecondOfFinalOf: every field a run feeds lands in the report's.
func TestSecondOfFinalOf(t *testing.T) {
	e := func(ns int64) hdr.Encoded {
		h := hdr.New()
		h.Record(ns)
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	fs := loadgen.FeedSecond{Index: 4, Phase: "measure", Sent: 1, Acked: 2, AckedBytes: 3, Consumed: 4, Failed: 5, Errors: 6, BufferFullNs: 7, InFlight: 8,
		Backlog: []int64{9, 10}, Publish: e(1e6), EndToEnd: e(2e6), ScheduleDelay: e(3e6)}
	want := Second{Index: 4, Phase: "measure", Tally: Tally{Sent: 1, Acked: 2, AckedBytes: 3, Consumed: 4, Failed: 5, Errors: 6, BufferFullNs: 7, InFlight: 8,
		Backlog: []int64{9, 10}}, Publish: e(1e6), EndToEnd: e(2e6), ScheduleDelay: e(3e6)}
	if got := SecondOf(fs); !reflect.DeepEqual(got, want) {
		t.Errorf("second %+v\n want %+v", got, want)
	}
	ff := loadgen.FeedFinal{Counts: loadgen.Counts{Sent: 10, Lost: 1}, Excluded: loadgen.Counts{Sent: 2},
		Publish: e(1e6), EndToEnd: e(2e6), ScheduleDelay: e(3e6), AckWait: e(4e6),
		Groups: []loadgen.FeedGroup{{Name: "g", Measured: ledger.Counts{Consumed: 9, Duplicated: 1, Redelivered: 1, OutOfOrder: 2},
			Excluded: ledger.Counts{Consumed: 2}, Foreign: 3, Seen: 11, Lost: 1, Unconsumed: 0, CaughtUp: true}}}
	wantF := Final{Counts: ff.Counts, Excluded: ff.Excluded, Publish: e(1e6), EndToEnd: e(2e6), ScheduleDelay: e(3e6), AckWait: e(4e6),
		Groups: []GroupLedger{{Name: "g", Producers: Range{2, 4}, Measured: LedgerCounts{Consumed: 9, Duplicated: 1, Redelivered: 1, OutOfOrder: 2},
			Excluded: LedgerCounts{Consumed: 2}, Foreign: 3, Seen: 11, Lost: 1, CaughtUp: true}}}
	if got := FinalOf(ff, Range{2, 4}); !reflect.DeepEqual(got, wantF) {
		t.Errorf("final %+v\n want %+v", got, wantF)
	}
}
