package fleet

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// wire sends m through the results topic's encoding and back, as the coordinator reads it.
func wire(t *testing.T, m Message) Message {
	t.Helper()
	b, err := EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMessage(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return got
}

func encode(t *testing.T, h *hdr.Hist) hdr.Encoded {
	t.Helper()
	e, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// latency draws a value in ns: mostly milliseconds, a tail, now and then beyond the hour.
func latency(r *rand.Rand) int64 {
	switch x := r.IntN(1000); {
	case x == 0:
		return int64(time.Hour) + r.Int64N(int64(time.Hour))
	case x < 20:
		return r.Int64N(int64(10 * time.Second))
	default:
		return r.Int64N(int64(20 * time.Millisecond))
	}
}

func sameHist(a, b *hdr.Hist) bool {
	return a.HDR().Equals(b.HDR()) && a.Overflow() == b.Overflow() && a.MaxNs() == b.MaxNs() && a.Percentiles() == b.Percentiles()
}

// TestMergeSecondsIsExact: values split at random among a random number of workers, each
// worker's histograms encoded, sent as a report and merged, equal one histogram of all the
// values, bucket for bucket; the counters are the sums.
func TestMergeSecondsIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	for round := range 20 {
		n := 1 + r.IntN(8)
		all := [3]*hdr.Hist{hdr.New(), hdr.New(), hdr.New()}
		var want Tally
		want.Backlog = make([]int64, 2)
		var reports []Second
		var whole loadgen.ProduceWindow // one process metering every producer connection
		for w := range n {
			hs := [3]*hdr.Hist{hdr.New(), hdr.New(), hdr.New()}
			for k := range hs {
				for range r.IntN(3000) { // a worker may have recorded nothing
					v := latency(r)
					hs[k].Record(v)
					all[k].Record(v)
				}
			}
			tl := Tally{Sent: r.Int64N(1e6), Acked: r.Int64N(1e6), AckedBytes: r.Int64N(1e9), Consumed: r.Int64N(1e6), Failed: r.Int64N(9),
				Errors: r.Int64N(9), BufferFullNs: r.Int64N(1e9), InFlight: r.Int64N(1e4), Backlog: []int64{r.Int64N(1e5), r.Int64N(1e5)},
				Window: connections(r, &whole)}
			if err := want.add(tl); err != nil {
				t.Fatal(err)
			}
			m := wire(t, Message{RunID: "r-1", Worker: w, Kind: KindSecond, Second: &Second{Index: 7, Phase: "measured", Tally: tl,
				Publish: encode(t, hs[0]), EndToEnd: encode(t, hs[1]), ScheduleDelay: encode(t, hs[2])}})
			reports = append(reports, *m.Second)
		}
		r.Shuffle(len(reports), func(i, j int) { reports[i], reports[j] = reports[j], reports[i] })
		got, err := MergeSeconds(reports)
		if err != nil {
			t.Fatal(err)
		}
		for k, h := range []*hdr.Hist{got.Publish, got.EndToEnd, got.ScheduleDelay} {
			if !sameHist(h, all[k]) {
				t.Errorf("round %d, %d workers, histogram %d: merged %+v\n one histogram of all %+v", round, n, k, h.Percentiles(), all[k].Percentiles())
			}
		}
		if got.Index != 7 || got.Phase != "measured" || got.Workers != n || got.Tally.Sent != want.Sent || got.Tally.AckedBytes != want.AckedBytes ||
			got.Tally.BufferFullNs != want.BufferFullNs || got.Tally.InFlight != want.InFlight || got.Tally.Backlog[0] != want.Backlog[0] || got.Tally.Backlog[1] != want.Backlog[1] {
			t.Errorf("round %d: merged %+v, want the sums %+v", round, got.Tally, want)
		}
		if got.Tally.Window != whole {
			t.Errorf("round %d: merged window %+v, want one process's %+v", round, got.Tally.Window, whole)
		}
	}
}

// connections is one worker's produce window over a span, from up to 6 producer connections'
// readings (a share of the span at the window, batches, full ones), each also metered into
// whole as one process metering every connection would: the largest share, the batches summed.
func connections(r *rand.Rand, whole *loadgen.ProduceWindow) loadgen.ProduceWindow {
	w := loadgen.ProduceWindow{Limit: 5}
	whole.Limit = 5
	for range r.IntN(7) {
		share, batches := r.Float64(), r.Int64N(1e4)
		full := r.Int64N(batches + 1)
		w.Share, w.Batches, w.FullBatches = max(w.Share, share), w.Batches+batches, w.FullBatches+full
		whole.Share, whole.Batches, whole.FullBatches = max(whole.Share, share), whole.Batches+batches, whole.FullBatches+full
	}
	return w
}

// simulate has every worker's producers write to the worker's own partitions and its
// consumers read them back with replays, repeats and gaps; it returns one ledger of every
// record (one process) and each worker's ledger of its own (partitions numbered within it).
func simulate(r *rand.Rand, producers, partitions, n int) (*ledger.Group, []*ledger.Group) {
	whole := ledger.NewGroup(partitions, producers)
	parts := make([]*ledger.Group, n)
	for w := range n {
		sh := Share{Producers: Split(producers, n, w), Partitions: Split(partitions, n, w)}
		parts[w] = ledger.NewGroup(sh.Partitions.Len(), producers)
		type rec struct {
			p   uint32
			seq uint64
		}
		logs := make([][]rec, sh.Partitions.Len()) // each partition's log
		for p := sh.Producers.Lo; p < sh.Producers.Hi; p++ {
			for seq := range uint64(200 + r.IntN(300)) {
				part := r.IntN(len(logs))
				logs[part] = append(logs[part], rec{uint32(p), seq})
				if r.IntN(50) == 0 { // the producer's retry left a second copy in the log
					logs[part] = append(logs[part], rec{uint32(p), seq})
				}
			}
		}
		for part, log := range logs {
			for off := 0; off < len(log); off++ {
				if r.IntN(100) == 0 {
					continue // never read: lost
				}
				phase := ledger.Measured
				if log[off].seq < 50 {
					phase = ledger.Excluded
				}
				whole.Observe(sh.Partitions.Lo+part, int64(off), log[off].p, log[off].seq, phase)
				parts[w].Observe(part, int64(off), log[off].p, log[off].seq, phase)
				if r.IntN(40) == 0 && off > 3 { // a rebalance: read the last few offsets again
					off -= 3
				}
			}
		}
		if r.IntN(3) == 0 { // an unstamped record
			whole.Observe(sh.Partitions.Lo, 1<<40, uint32(producers), 0, ledger.Measured)
			parts[w].Observe(0, 1<<40, uint32(producers), 0, ledger.Measured)
		}
	}
	return whole, parts
}

// missing counts the sequences below hi of the given producers that g never saw.
func missing(g *ledger.Group, producers Range, hi uint64) int64 {
	var n int64
	for p := producers.Lo; p < producers.Hi; p++ {
		n += int64(g.Missing(p, nil, 0, hi))
	}
	return n
}

// TestUniteLedgersIsExact: the union of the workers' ledgers, each over the records of its own
// partitions, has the counts of one ledger that saw every record, for random splits.
func TestUniteLedgersIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 2))
	for round := range 20 {
		producers := 1 + r.IntN(9)
		partitions := producers + r.IntN(8)
		n := 1 + r.IntN(producers)
		whole, parts := simulate(r, producers, partitions, n)
		all := Range{0, producers}
		want := LedgerState("g0", whole, all, missing(whole, all, 500), 0, true)
		var finals []Final
		for w, g := range parts {
			own := Split(producers, n, w)
			l := LedgerState("g0", g, own, missing(g, own, 500), 0, true)
			m := wire(t, Message{RunID: "r-1", Worker: w, Kind: KindFinal, Final: &Final{Groups: []GroupLedger{l},
				Publish: encode(t, hdr.New()), EndToEnd: encode(t, hdr.New()), ScheduleDelay: encode(t, hdr.New()), AckWait: encode(t, hdr.New())}})
			finals = append(finals, *m.Final)
		}
		r.Shuffle(len(finals), func(i, j int) { finals[i], finals[j] = finals[j], finals[i] })
		got, err := MergeFinals(finals, producers)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Groups) != 1 || got.Groups[0] != want {
			t.Errorf("round %d (%d producers, %d partitions, %d workers): united %+v\n one ledger %+v", round, producers, partitions, n, got.Groups, want)
		}
		if want.Measured.Duplicated == 0 || want.Lost == 0 || want.Excluded.Consumed == 0 {
			t.Errorf("round %d: the simulation should repeat, lose and exclude messages: %+v", round, want)
		}
	}
}

func TestMergeFinalsSumsCountsAndHistograms(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 3))
	var finals []Final
	var want loadgen.Counts
	var whole loadgen.ProduceWindow
	all := [4]*hdr.Hist{hdr.New(), hdr.New(), hdr.New(), hdr.New()}
	for w := range 5 {
		c := loadgen.Counts{Sent: r.Int64N(1e6), Acked: r.Int64N(1e6), Failed: r.Int64N(9), Unsent: r.Int64N(9), InFlightAtEnd: r.Int64N(9), Consumed: r.Int64N(1e6),
			Lost: r.Int64N(9), Unconsumed: r.Int64N(9), Duplicated: r.Int64N(9), Redelivered: r.Int64N(9), OutOfOrder: r.Int64N(9)}
		addCounts(&want, c)
		var enc [4]hdr.Encoded
		for k := range enc {
			h := hdr.New()
			for range 1000 {
				v := latency(r)
				h.Record(v)
				all[k].Record(v)
			}
			enc[k] = encode(t, h)
		}
		f := Final{Counts: c, Excluded: loadgen.Counts{Sent: int64(w)}, Publish: enc[0], EndToEnd: enc[1], ScheduleDelay: enc[2], AckWait: enc[3],
			Groups: []GroupLedger{{Name: "g1", Producers: Split(10, 5, w)}, {Name: "g0", Producers: Split(10, 5, w)}}, Window: connections(r, &whole)}
		finals = append(finals, *wire(t, Message{RunID: "r", Worker: w, Kind: KindFinal, Final: &f}).Final)
	}
	got, err := MergeFinals(finals, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Counts != want || got.Excluded.Sent != 0+1+2+3+4 {
		t.Errorf("counts %+v\n want %+v", got.Counts, want)
	}
	for k, h := range []*hdr.Hist{got.Publish, got.EndToEnd, got.ScheduleDelay, got.AckWait} {
		if !sameHist(h, all[k]) {
			t.Errorf("histogram %d: merged %+v, want %+v", k, h.Percentiles(), all[k].Percentiles())
		}
	}
	if len(got.Groups) != 2 || got.Groups[0].Name != "g0" || got.Groups[1].Name != "g1" || got.Groups[0].Producers != (Range{0, 10}) {
		t.Errorf("groups %+v, want g0 and g1 over producers 0..9", got.Groups)
	}
	if got.Window != whole {
		t.Errorf("window %+v, want one process's %+v", got.Window, whole)
	}
}

func TestMergeRefuses(t *testing.T) {
	e := encode(t, hdr.New())
	sec := func(i int, phase string, groups int) Second {
		return Second{Index: i, Phase: phase, Tally: Tally{Backlog: make([]int64, groups)}, Publish: e, EndToEnd: e, ScheduleDelay: e}
	}
	for _, tc := range []struct {
		name string
		ss   []Second
		want string
	}{
		{"nothing", nil, "no reports"},
		{"two seconds", []Second{sec(3, "measured", 1), sec(4, "measured", 1)}, "second 4 (measured) merged with second 3"},
		{"two phases", []Second{sec(3, "warmup", 1), sec(3, "measured", 1)}, "second 3 (measured) merged with second 3 (warmup)"},
		{"other groups", []Second{sec(3, "measured", 1), sec(3, "measured", 2)}, "2 groups' backlog merged with one of 1"},
		{"a bad histogram", []Second{{Index: 1, Publish: e, EndToEnd: hdr.Encoded{HDR: "x"}, ScheduleDelay: e}}, "second 1: workers' reports do not merge: not an encoded plimsoll histogram"},
	} {
		if _, err := MergeSeconds(tc.ss); !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrMerge saying %q", tc.name, err, tc.want)
		}
	}
	l := func(name string, lo, hi int) GroupLedger { return GroupLedger{Name: name, Producers: Range{lo, hi}} }
	for _, tc := range []struct {
		name string
		ls   []GroupLedger
		want string
	}{
		{"nothing", nil, "no ledgers"},
		{"overlap", []GroupLedger{l("g0", 0, 4), l("g0", 3, 6)}, "group g0: two ledgers hold producers 3..3"},
		{"a gap", []GroupLedger{l("g0", 0, 2), l("g0", 4, 6)}, "group g0: no ledger holds producers 2..3"},
		{"a missing worker at the end", []GroupLedger{l("g0", 0, 2), l("g0", 2, 4)}, "no ledger holds producers 4..5"},
		{"beyond the run", []GroupLedger{l("g0", 0, 3), l("g0", 3, 7)}, "a ledger over producers [3, 7) in a run of 6 producers"},
		{"empty", []GroupLedger{l("g0", 0, 0), l("g0", 0, 6)}, "a ledger over producers [0, 0)"},
		{"two groups", []GroupLedger{l("g0", 0, 3), l("g1", 3, 6)}, "ledgers of groups g0 and g1"},
	} {
		if _, err := UniteLedgers(tc.ls, 6); !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrMerge saying %q", tc.name, err, tc.want)
		}
	}
}
