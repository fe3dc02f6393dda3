package report

import (
	"fmt"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/units"
)

// SearchProgress is the line a limit search prints when a trial finishes, ending with the time
// the search has left when known (left > 0; limit.ETA).
func SearchProgress(p limit.Progress, left time.Duration) string {
	state, reused, why := "", "", ""
	achieved := 0.0
	if t := p.Result; t != nil {
		state, achieved = string(t.Verdict.State), t.ProducedMsgsPerSec
		if t.ClientBound() {
			state = "invalid (client-bound)"
		}
		if len(t.Verdict.Reasons) > 0 {
			r := t.Verdict.Reasons[0]
			why = ": " + r.Criterion + ": " + r.Text
		}
	}
	if p.Reused {
		reused = " (from the earlier run)"
	}
	return fmt.Sprintf("trial %d of ~%d  %8s  %10s msgs/s  achieved %10s  %s%s%s   [ok %d, overloaded %d, invalid %d]%s",
		p.Trial, p.About, units.Size(p.Size), units.Sig(p.Rate, 3), units.Sig(achieved, 3), state, reused, why, p.OK, p.Overloaded, p.Invalid, searchLeft(left))
}

// searchLeft is the search's estimated time left, as the progress lines end with it.
func searchLeft(left time.Duration) string {
	if left <= 0 {
		return ""
	}
	return "  search ~" + units.Duration(left) + " left"
}

// TrialProgress is the live line of a limit search's running trial, for one second of it, and
// the time the search has left when known (left > 0).
func TrialProgress(p limit.Progress, s loadgen.Second, total float64, left time.Duration) string {
	ahead := ""
	if left > 0 {
		ahead = " (search ~" + units.Duration(left) + " left)"
	}
	return fmt.Sprintf("trial %d of ~%d, %s at %s msgs/s%s: %s", p.Trial, p.About, units.Size(p.Size), units.Sig(p.Rate, 3), ahead, ProgressLine(s, total))
}
