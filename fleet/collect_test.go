package fleet

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
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
