package fleet

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCollectEnds: seconds are handed on once every worker reported them or ended before
// them (its final report read after its last second: drains end at each worker's own pace), and
// a second a worker skipped is an error naming both.
func TestCollectEnds(t *testing.T) {
	e, err := hdr.New().Encode()
	if err != nil {
		t.Fatal(err)
	}
	sec := func(w, i int) Message {
		return Message{Worker: w, Kind: KindSecond, Second: &Second{Index: i, Phase: "drain", Tally: Tally{Sent: 1, Backlog: []int64{}}, Publish: e, EndToEnd: e, ScheduleDelay: e}}
	}
	fin := func(w int) Message { return Message{Worker: w, Kind: KindFinal, Final: &Final{}} }
	for _, tc := range []struct {
		name string
		msgs []Message
		want string // the seconds handed on, index:workers
		err  string
	}{
		{"in step", []Message{sec(0, 1), sec(1, 1), sec(0, 2), sec(1, 2), fin(0), fin(1)}, "1:2 2:2", ""},
		{"one ends first", []Message{sec(0, 1), sec(1, 1), sec(1, 2), sec(1, 3), fin(1), sec(0, 2), sec(0, 3), sec(0, 4), fin(0)}, "1:2 2:2 3:2 4:1", ""},
		{"the first to end reports last", []Message{sec(1, 1), sec(1, 2), sec(1, 3), sec(0, 1), fin(0), fin(1)}, "1:2 2:1 3:1", ""},
		{"a second skipped", []Message{sec(0, 1), sec(1, 1), sec(0, 3)}, "1:2", "worker 0 skipped second 2"},
		{"still waiting", []Message{sec(0, 1), sec(1, 1), sec(1, 2)}, "1:2", ""},
	} {
		col := &collector{n: 2, next: 1, pending: map[int]map[int]Second{}, last: map[int]int{}, heard: map[int]time.Time{}, finals: map[int]Final{}}
		var got []string
		var err error
		for _, m := range tc.msgs {
			if err = col.add(m, time.Time{}, func(s MergedSecond) { got = append(got, fmt.Sprintf("%d:%d", s.Index, s.Workers)) }); err != nil {
				break
			}
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: handed on %q, want %q", tc.name, s, tc.want)
		}
		if (tc.err == "") != (err == nil) || (err != nil && (!errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), tc.err))) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestCollectLeaving: a worker that leaves the run early is lost from there on (ErrLeft, which
// Lost counts with ErrSilent) naming it and why, the seconds merged before it standing: its
// leave record, a second of a phase ahead of the plan's, a final report before the window's
// end. A drain that ends at its own pace is no leaving; a phase behind the plan's (a stalled
// loop's late seconds) is a merge error, not a leaving.
func TestCollectLeaving(t *testing.T) {
	e, err := hdr.New().Encode()
	if err != nil {
		t.Fatal(err)
	}
	sec := func(w, i int, phase string) Message {
		return Message{Worker: w, Kind: KindSecond, Second: &Second{Index: i, Phase: phase, Tally: Tally{Backlog: []int64{}}, Publish: e, EndToEnd: e, ScheduleDelay: e}}
	}
	fin := func(w int) Message { return Message{Worker: w, Kind: KindFinal, Final: &Final{}} }
	leave := func(w int) Message { return Message{Worker: w, Kind: KindLeave, Reason: "interrupted by SIGINT"} }
	// Second 1 is the warm-up's, 2 and 3 the window's, 4 on the drain's.
	p := Plan{Workers: 2}
	p.Spec.Warmup, p.Spec.Duration = time.Second, 2*time.Second
	for _, tc := range []struct {
		name string
		msgs []Message
		want string // the seconds handed on, index:workers
		is   error
		err  string
	}{
		{"to the end", []Message{sec(0, 1, "warmup"), sec(1, 1, "warmup"), sec(0, 2, "measure"), sec(1, 2, "measure"), sec(0, 3, "measure"), sec(1, 3, "measure"),
			sec(0, 4, "drain"), fin(0), sec(1, 4, "drain"), sec(1, 5, "drain"), fin(1)}, "1:2 2:2 3:2 4:2 5:1", nil, ""},
		{"a leave record", []Message{sec(0, 1, "warmup"), sec(1, 1, "warmup"), sec(0, 2, "measure"), leave(1)}, "1:2", ErrLeft,
			"worker 1 left the run after its second 1: interrupted by SIGINT; the trial is invalid"},
		{"a leave before any second", []Message{leave(0)}, "", ErrLeft, "worker 0 left the run before its first second: interrupted"},
		{"drain in the window", []Message{sec(0, 1, "warmup"), sec(1, 1, "warmup"), sec(0, 2, "measure"), sec(1, 2, "drain")}, "1:2", ErrLeft,
			"worker 1 reported its second 2 as drain, where the plan's second 2 is measure"},
		{"the window in the warm-up", []Message{sec(0, 1, "measure")}, "", ErrLeft, "worker 0 reported its second 1 as measure, where the plan's second 1 is warmup"},
		{"a final in the window", []Message{sec(0, 1, "warmup"), sec(1, 1, "warmup"), sec(0, 2, "measure"), fin(0)}, "1:2", ErrLeft,
			"worker 0 sent its final report after its second 2, before the window's end at second 3"},
		{"a final before any second", []Message{fin(1)}, "", ErrLeft, "worker 1 sent its final report before its first second"},
		{"a phase behind the plan's", []Message{sec(0, 1, "warmup"), sec(1, 1, "warmup"), sec(0, 2, "warmup"), sec(1, 2, "measure")}, "1:2", ErrMerge, "second 2 (measure) merged with second 2 (warmup)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			col := newCollector(p, time.Time{})
			var got []string
			var err error
			for _, m := range tc.msgs {
				if err = col.add(m, time.Time{}, func(s MergedSecond) { got = append(got, fmt.Sprintf("%d:%d", s.Index, s.Workers)) }); err != nil {
					break
				}
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("handed on %q, want %q", s, tc.want)
			}
			if tc.is == nil && err != nil || tc.is != nil && (!errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err = %v, want %v saying %q", err, tc.is, tc.err)
			}
			if Lost(err) != (tc.is == ErrLeft) {
				t.Errorf("Lost(%v) = %v", err, Lost(err))
			}
		})
	}
}

// TestPhaseOf: the plan's phase of each second, a boundary inside a second counted for the
// later phase, one at its end for the earlier.
func TestPhaseOf(t *testing.T) {
	p := Plan{}
	p.Spec.Warmup, p.Spec.Duration = 1500*time.Millisecond, 2500*time.Millisecond
	want := []string{"warmup", "measure", "measure", "measure", "drain", "drain"}
	for i, w := range want {
		if got := p.PhaseOf(i + 1); got != w {
			t.Errorf("second %d: %s, want %s", i+1, got, w)
		}
	}
	if p.windowEnd() != 4 {
		t.Errorf("the window's end at second %d, want 4", p.windowEnd())
	}
}

// TestJoinLeave: a worker that leaves before every worker has joined ends the wait for the
// joins with an error naming it and its reason.
func TestJoinLeave(t *testing.T) {
	p := Plan{RunID: "20261127t050000-cc03", Workers: 2}
	c := &Coordinator{plan: p, hosts: map[int]Host{}}
	b, err := EncodeMessage(Message{RunID: p.RunID, Worker: 1, Kind: KindLeave, Reason: "interrupted by SIGTERM"})
	if err != nil {
		t.Fatal(err)
	}
	err = c.join(&kgo.Record{Value: b})
	if err == nil || err.Error() != "worker 1 left run 20261127t050000-cc03 before every worker joined: interrupted by SIGTERM" {
		t.Errorf("err = %v", err)
	}
}

// TestCollectKeepsProcesses: each merged second keeps the reporting workers' Process figures by
// worker index, never summed; a worker whose report carried none, or that had ended, is absent.
func TestCollectKeepsProcesses(t *testing.T) {
	e, err := hdr.New().Encode()
	if err != nil {
		t.Fatal(err)
	}
	sec := func(w, i int, p *Process) Message {
		return Message{Worker: w, Kind: KindSecond, Second: &Second{Index: i, Phase: "measured", Tally: Tally{Backlog: []int64{}}, Publish: e, EndToEnd: e, ScheduleDelay: e, Process: p}}
	}
	busy := &Process{CPU: 3.5, RunQueueWait: 0.2, GOMAXPROCS: 4, NumCPU: 4}
	idle := &Process{CPU: 0.5, RunQueueWait: probe.Missing, GOMAXPROCS: 8, NumCPU: 8}
	msgs := []Message{sec(0, 1, busy), sec(1, 1, idle), sec(0, 2, nil), sec(1, 2, idle), {Worker: 1, Kind: KindFinal, Final: &Final{}}, sec(0, 3, busy)}
	col := &collector{n: 2, next: 1, pending: map[int]map[int]Second{}, last: map[int]int{}, heard: map[int]time.Time{}, finals: map[int]Final{}}
	var got []map[int]Process
	for _, m := range msgs {
		if err := col.add(m, time.Time{}, func(s MergedSecond) { got = append(got, s.Processes) }); err != nil {
			t.Fatal(err)
		}
	}
	want := []map[int]Process{{0: *busy, 1: *idle}, {1: *idle}, {0: *busy}}
	if len(got) != len(want) {
		t.Fatalf("%d seconds handed on, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("second %d: processes %v, want %v", i+1, got[i], want[i])
		}
	}
}
