package fleet

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/probe"
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
