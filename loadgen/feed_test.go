package loadgen

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestFeedIndex(t *testing.T) {
	const s = int64(time.Second)
	for _, tc := range []struct {
		name       string
		now, base  int64
		prev, want int
	}{
		{"the first second, on time", 5*s + 1e6, 4 * s, 0, 1},
		{"a second a little late", 3*s + 900e6, 0, 2, 3},
		{"a second skipped (the loop woke 2 s late)", 5*s + 1e6, 0, 3, 5},
		{"the last second, cut short", 7*s + 400e6, 0, 7, 8},
		{"the last second at once", 7*s + 1e3, 0, 7, 8},
	} {
		if got := feedIndex(tc.now, tc.base, tc.prev); got != tc.want {
			t.Errorf("%s: index %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestFeedSecond: each second fed holds the counters of the second and the very encodings the
// interval log keeps (encoded once), an empty histogram encoded too; its index counts from the
// producers' start.
func TestFeedSecond(t *testing.T) {
	p := testProducer(t, 16)
	p.run.measureStart.Store(0)
	g := &group{name: "g", ledger: ledger.NewGroup(2, 1)}
	cn := newConsumer(p.run, g, map[string]int{"a": 0}, 0)
	const base = int64(3 * time.Second)
	p.win = newWindowMeter(1, 16384, 1100, func() int64 { return 0 })
	col := newCollector(p.run, []*producer{p}, []*consumer{cn}, []*group{g}, 100, 1000, base)
	col.feeding = true
	for _, n := range []int{15000, 15400, 2000} { // room for 1,100 B more: yes, no, yes
		p.win.OnProduceBatchWritten(kgo.BrokerMetadata{}, "t", 0, kgo.ProduceBatchMetrics{UncompressedBytes: n})
	}
	for i := range 10 {
		p.pub[phaseMeasured].Record(int64(i+1) * int64(time.Millisecond))
		p.sched[phaseExcluded].Record(int64(i) * int64(time.Microsecond))
	}
	p.sentAll.Add(12)
	p.ackedAll.Add(10)
	p.fullNs.Add(7e6)
	for seq := range uint64(4) {
		g.ledger.Observe(0, int64(seq), 0, seq, phaseMeasured)
	}
	cn.consumedAll.Add(4)
	col.tick(base+int64(time.Second)+5e6, PhaseWarmup)
	if len(col.fed) != 1 {
		t.Fatalf("%d seconds fed, want 1", len(col.fed))
	}
	f1 := &col.fed[0]
	col.fed = nil // the next tick would reuse its array
	p.sentAll.Add(3)
	col.tick(base+int64(1500*time.Millisecond), PhaseMeasure) // a last second, cut short
	if len(col.fed) != 1 {
		t.Fatalf("%d seconds fed, want 1", len(col.fed))
	}
	f2 := &col.fed[0]
	want := FeedSecond{Index: 1, Phase: PhaseWarmup, Sent: 12, Acked: 10, AckedBytes: 1000, Consumed: 4, BufferFullNs: 7e6, Backlog: []int64{6},
		Window: ProduceWindow{Limit: 1, Batches: 3, FullBatches: 1}}
	got := *f1
	got.Publish, got.EndToEnd, got.ScheduleDelay = hdr.Encoded{}, hdr.Encoded{}, hdr.Encoded{}
	if !slices.Equal(got.Backlog, want.Backlog) {
		t.Errorf("backlog %v, want %v", got.Backlog, want.Backlog)
	}
	got.Backlog, want.Backlog = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("second 1: %+v, want %+v", got, want)
	}
	if f2.Index != 2 || f2.Sent != 3 || f2.Acked != 0 || f2.Phase != PhaseMeasure {
		t.Errorf("second 2: index %d sent %d acked %d phase %s; want 2, 3, 0, measure", f2.Index, f2.Sent, f2.Acked, f2.Phase)
	}
	var logged []hdr.Encoded
	for iv := range col.log.All() {
		logged = append(logged, iv.Hist)
	}
	if len(logged) != 2 || logged[0] != f1.Publish || logged[1] != f1.ScheduleDelay {
		t.Errorf("the log holds %d intervals; want the second's publish and schedule delay encodings, the same as fed", len(logged))
	}
	for name, e := range map[string]hdr.Encoded{"publish": f1.Publish, "end to end": f1.EndToEnd, "second 2's publish": f2.Publish} {
		h, err := hdr.Decode(e)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]int64{"publish": 10}[name]; h.Count() != want {
			t.Errorf("%s: %d values, want %d", name, h.Count(), want)
		}
	}
}

// TestFeedOff: a collector that does not feed encodes no empty histogram and feeds nothing.
func TestFeedOff(t *testing.T) {
	p := testProducer(t, 16)
	col := newCollector(p.run, []*producer{p}, nil, nil, 100, 1000, 0)
	col.tick(int64(time.Second), PhaseMeasure)
	if col.fed != nil || col.log.Len() != 0 {
		t.Errorf("fed %v, %d intervals logged; want nothing", col.fed, col.log.Len())
	}
}

// TestFeedLate: a tick more than a second late feeds the seconds whose boundaries it passed
// empty, then its own with every count since the previous tick: the indices run on without a
// gap and the counts stay whole.
func TestFeedLate(t *testing.T) {
	p := testProducer(t, 16)
	g := &group{name: "g", ledger: ledger.NewGroup(2, 1)}
	col := newCollector(p.run, []*producer{p}, nil, []*group{g}, 100, 1000, 0)
	col.feeding = true
	const s = int64(time.Second)
	p.run.measureEnd.Store(s) // the window ended at 1 s: every second after it is the drain's
	col.tick(s+2e6, PhaseDrain)
	p.sentAll.Add(5)
	p.ackedAll.Add(5)
	p.pub[phaseMeasured].Record(3e6)
	col.tick(4*s+50e6, PhaseDrain) // the loop woke 3.05 s after the previous tick
	var idx []int
	var sent int64
	for _, f := range col.fed {
		idx = append(idx, f.Index)
		sent += f.Sent
		h, err := hdr.Decode(f.Publish)
		if err != nil {
			t.Fatal(err)
		}
		if f.Phase != PhaseDrain || f.Backlog[0] != 5 || (f.Index < 4 && (f.Sent != 0 || h.Count() != 0)) || (f.Index == 4 && h.Count() != 1) {
			t.Errorf("second %d: %+v, %d publish values", f.Index, f, h.Count())
		}
	}
	if !slices.Equal(idx, []int{2, 3, 4}) || sent != 5 {
		t.Errorf("fed seconds %v sending %d; want 2 and 3 empty, then 4 with the 5 sent", idx, sent)
	}
}

// TestFeedLateAcrossPhases: the seconds a late tick feeds carry the phase the run was in by the
// clock (a boundary at a second's end counted in that second, as fleet.Plan.PhaseOf does), the
// empty ones never after the tick's, the tick's own never before the loop's: a worker stalled
// across a boundary must label its seconds as the plan and every punctual worker do, or the
// coordinator refuses to merge them (TestShareRuns once failed so on a loaded host: "second 1
// (warmup) merged with second 1 (measure)").
func TestFeedLateAcrossPhases(t *testing.T) {
	const s = int64(time.Second)
	for _, tc := range []struct {
		name       string
		ms, me     int64 // the window's start and end; 0: not known yet
		late       string
		wantPhases []string // of seconds 2, 3, 4, 5 (the late tick's)
	}{
		{"warm-up to the window", 2 * s, 6 * s, PhaseMeasure, []string{PhaseWarmup, PhaseMeasure, PhaseMeasure, PhaseMeasure}},
		{"warm-up through the window to the drain", 2 * s, 3 * s, PhaseDrain, []string{PhaseWarmup, PhaseMeasure, PhaseDrain, PhaseDrain}},
		{"a backlog before the window", 3 * s, 9 * s, PhaseMeasure, []string{PhaseWarmup, PhaseBacklog, PhaseMeasure, PhaseMeasure}},
		{"a backlog still building", 0, 0, PhaseBacklog, []string{PhaseWarmup, PhaseBacklog, PhaseBacklog, PhaseBacklog}},
		// The loop's phase lags the clock when it woke late across a boundary: the tick's own
		// second is labelled by the clock too, as the plan and every punctual worker have it.
		{"a loop behind the window's end", 2 * s, 3 * s, PhaseMeasure, []string{PhaseWarmup, PhaseMeasure, PhaseDrain, PhaseDrain}},
		{"a loop behind the warm-up's end", 2 * s, 6 * s, PhaseWarmup, []string{PhaseWarmup, PhaseMeasure, PhaseMeasure, PhaseMeasure}},
		{"never before the loop's phase", 7 * s, 9 * s, PhaseMeasure, []string{PhaseWarmup, PhaseBacklog, PhaseBacklog, PhaseMeasure}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProducer(t, 16)
			p.run.measureStart.Store(tc.ms)
			p.run.measureEnd.Store(tc.me)
			col := newCollector(p.run, []*producer{p}, nil, nil, 100, 1000, 0)
			col.feeding, col.warmEnd = true, 2*s
			col.tick(s+2e6, PhaseWarmup)
			col.tick(5*s+50e6, tc.late) // the loop woke 4.05 s after the previous tick
			var got []string
			for _, f := range col.fed {
				got = append(got, f.Phase)
			}
			if !slices.Equal(got, tc.wantPhases) {
				t.Errorf("phases of seconds 2-5 %v, want %v", got, tc.wantPhases)
			}
		})
	}
}
