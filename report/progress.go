package report

import (
	"fmt"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/units"
)

// SearchProgress is the line a limit search prints when a trial finishes.
func SearchProgress(p limit.Progress) string {
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
	return fmt.Sprintf("trial %d of ~%d  %6d B  %10s msgs/s  achieved %10s  %s%s%s   [ok %d, overloaded %d, invalid %d]",
		p.Trial, p.About, p.Size, units.Sig(p.Rate, 3), units.Sig(achieved, 3), state, reused, why, p.OK, p.Overloaded, p.Invalid)
}

// TrialProgress is the live line of a limit search's running trial, for one second of it.
func TrialProgress(p limit.Progress, s loadgen.Second, total float64) string {
	return fmt.Sprintf("trial %d of ~%d, %d B at %s msgs/s: %s", p.Trial, p.About, p.Size, units.Sig(p.Rate, 3), ProgressLine(s, total))
}
