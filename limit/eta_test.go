package limit

import (
	"testing"
	"time"
)

// The estimate is the trials left in the plan times the mean wall time of the trials timed, a
// running trial's remainder added; reused trials count for nothing.
func TestETA(t *testing.T) {
	now := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	e := &ETA{Now: func() time.Time { return now }}
	s := time.Second
	steps := []struct {
		p       Progress
		observe bool          // a report of the search; otherwise the live line asking again
		advance time.Duration // the clock moves this much after the step
		left    time.Duration
		ok      bool
	}{
		{Progress{Trial: 1, About: 9, Done: true, Reused: true}, true, 0, 0, false}, // resumed: nothing timed
		{Progress{Trial: 2, About: 9}, true, 30 * s, 0, false},                      // running, none timed yet
		{Progress{Trial: 2, About: 9, Done: true}, true, 0, 7 * 30 * s, true},       // 7 left at 30 s
		{Progress{Trial: 3, About: 10}, true, 10 * s, (7 + 1) * 30 * s, true},       // the plan grew by one; trial 3 to run
		{Progress{Trial: 3, About: 10}, false, 40 * s, 7*30*s + 20*s, true},         // 10 s into it
		{Progress{Trial: 3, About: 10}, false, 0, 7 * 30 * s, true},                 // 50 s into it: longer than the mean
		{Progress{Trial: 3, About: 10, Done: true}, true, 0, 7 * 40 * s, true},      // (30 s + 50 s) / 2
		{Progress{Trial: 10, About: 10, Done: true, Reused: true}, true, 0, 0, true},
	}
	for i, st := range steps {
		if st.observe {
			e.Observe(st.p)
		}
		left, ok := e.Left(st.p)
		if left != st.left || ok != st.ok {
			t.Errorf("step %d (trial %d of %d, done %v): left %v, %v; want %v, %v", i, st.p.Trial, st.p.About, st.p.Done, left, ok, st.left, st.ok)
		}
		now = now.Add(st.advance)
	}
}
