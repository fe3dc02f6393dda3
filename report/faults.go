package report

import (
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// runFaults writes a fault run's windows: when each fault began and ended (seconds since the
// producers started, the timeline's t), when the ISR was full again, and the figures of the
// seconds during it and its recovery against those outside every fault.
func runFaults(b *strings.Builder, t *results.Trial) {
	if len(t.Faults) == 0 {
		return
	}
	b.WriteString("\nfaults (t: seconds since the producers started, as in timeline.csv; during: from a fault's start until the ISR was full again):\n")
	for _, w := range t.Faults {
		fmt.Fprintf(b, "  %s: %s\n", w.Spec, faultWhen(w))
		if w.Began.IsZero() {
			continue
		}
		for _, row := range []struct {
			name string
			f    fault.Figures
		}{{"during", w.During}, {"outside", w.Outside}} {
			fmt.Fprintf(b, "    %-8s %s: produced %s msgs/s, %s failed, %s, publish p99 %s ms, max %s ms\n",
				row.name, units.Plural(row.f.Seconds, "second"), units.Count(row.f.ProducedMsgsPerSec),
				units.Plural(int(row.f.ProduceFailed), "produce"), units.Plural(int(row.f.Errors), "client error"),
				units.Ms(row.f.Publish.P99), units.Ms(row.f.Publish.Max))
		}
	}
}

// faultWhen says when a fault began and ended and when the ISR was full again.
func faultWhen(w fault.Window) string {
	if w.Began.IsZero() {
		return "not executed: " + w.Error
	}
	s := fmt.Sprintf("began t=%s s, ended t=%s s, ", units.Short(w.BeganT), units.Short(w.EndedT))
	if w.RecoverySeconds != nil {
		s += fmt.Sprintf("ISR full again %s s after it ended", units.Short(*w.RecoverySeconds))
		if w.ISRWholeAtEnd {
			s += " (the fault never took the broker out of the ISR)"
		}
	} else {
		s += fmt.Sprintf("ISR not full again within the %s s watched", units.Short(w.WatchedSeconds))
	}
	if w.Error != "" {
		s += "; " + w.Error
	}
	return s
}
