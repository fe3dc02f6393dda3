package verdict

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/units"
)

// silence is one broker's longest stretch of unanswered metrics scrapes in the window.
type silence struct {
	broker int32
	length time.Duration
	from   time.Duration // into the window, where the stretch began
	err    string        // the last scrape error of the stretch
}

// windowSilences lists the brokers whose metrics scrapes went unanswered for at least
// c.SilentSeconds in a row in the window (paused, hung or cut off mid-run), by broker id. A
// broker's first reading, which has no rates yet, is not a silence.
func windowSilences(s *probe.Series, c Criteria) []silence {
	if s == nil || c.SilentSeconds <= 0 || s.Len() == 0 {
		return nil
	}
	interval := time.Duration(s.Interval * float64(time.Second))
	if interval <= 0 {
		interval = time.Second
	}
	var start time.Time
	first := true
	longest, open := map[int32]silence{}, map[int32]silence{}
	for x := range s.All() {
		if first {
			start, first = x.Start, false
		}
		for id, b := range x.Brokers {
			if b == nil || b.Err == "" || b.Err == probe.ErrFirstReading {
				delete(open, id)
				continue
			}
			run, ok := open[id]
			if !ok {
				run = silence{broker: id, from: x.Start.Sub(start)}
			}
			run.length += interval
			run.err = b.Err
			open[id] = run
			if run.length > longest[id].length {
				longest[id] = run
			}
		}
	}
	var out []silence
	for _, run := range longest {
		if run.length.Seconds() >= c.SilentSeconds {
			out = append(out, run)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].broker < out[j].broker })
	return out
}

// windowSilentReason: a broker silent for SilentSeconds in a row during the window left the run
// measuring a cluster missing it, whatever else its figures say (e.g. a host that looks busy
// with none of the work being the brokers').
func windowSilentReason(s *probe.Series, c Criteria) *Reason {
	runs := windowSilences(s, c)
	if len(runs) == 0 {
		return nil
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = fmt.Sprintf("broker %d answered no metrics scrape for %s in a row from %s into the window (last: %s)",
			r.broker, units.Duration(r.length), units.Duration(r.from), r.err)
	}
	return &Reason{Criterion: CritSilent, Broker: runs[0].broker, Text: strings.Join(parts, "; ") +
		": paused, hung or cut off while the run measured, so the run measured a cluster missing it; bring it back and run again"}
}

// addSilence weighs a broker silent in the window (SilentSeconds in a row) against the verdict
// drawn without it. An overloaded verdict stays overloaded, the silence one more reason: a broker
// the load stalled is the cluster giving out (a paused follower's ISR shrinks, Dropbox's rule).
// A verdict of ok or client-bound becomes invalid, led by the silence: the run measured a
// cluster missing a broker, and the generator was not what set the rate.
func addSilence(v *Verdict, silent *Reason) {
	if silent == nil {
		return
	}
	if v.State == Overloaded {
		v.Reasons = append(v.Reasons, *silent)
		return
	}
	v.State = Invalid
	v.Reasons = append([]Reason{*silent}, v.Reasons...)
	v.Bottleneck = silent.Text
}
