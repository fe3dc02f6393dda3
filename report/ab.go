package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/units"
)

// ABExperiment is what the A/B driver (compare --a/--b) says about the experiment above the
// comparison: the arms, how they ran and where the results are.
type ABExperiment struct {
	A, B string // the arms, as specs ("defaults" for an empty one)
	// NoiseCheck: the arms differ in nothing, so the comparison measures the noise floor.
	NoiseCheck bool
	// Remote: the arms ran against the user's cluster (--bootstrap), client-side only.
	Remote bool
	Mode   string   // run or limit
	Order  []string // the repetitions' directories in the order they ran
	Out    string
}

// ABHeader writes the experiment's header.
func ABHeader(w io.Writer, e ABExperiment) {
	fmt.Fprintf(w, "A/B experiment (%s), results in %s\n  arm A: %s\n  arm B: %s\n", e.Mode, e.Out, e.A, e.B)
	where := "a fresh local cluster per arm and repetition"
	if e.Remote {
		where = "the cluster given by --bootstrap (client-side arms only)"
	}
	fmt.Fprintf(w, "  ran on %s, in this order: %s\n", where, strings.Join(e.Order, " "))
	if e.NoiseCheck {
		fmt.Fprintln(w, "  the arms differ in nothing: this is an A/A noise check; any change below is this machine's noise")
	}
	fmt.Fprintln(w)
}

// NoiseFloor writes, after an A/A comparison, the noise floor per figure: the largest of the
// change and the ends of its interval, the smallest change a real A/B difference must exceed
// to stand out from the noise on this machine; and the repetitions the tests need.
func NoiseFloor(w io.Writer, c *compare.Comparison) error {
	fmt.Fprintln(w, "\nA/A noise floor (|change|, or the farther end of its interval; a real difference must exceed it):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	need := 0
	for _, f := range c.Figures {
		need = max(need, f.Needed)
		if f.Change == nil {
			continue
		}
		n := math.Abs(*f.Change)
		if f.CI != nil {
			n = max(n, math.Abs(f.CI.Lo), math.Abs(f.CI.Hi))
		}
		fmt.Fprintf(tw, "  %s\t±%s\n", figureLabel(f), units.Percent(n))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if need > 0 {
		fmt.Fprintf(w, "tests over repetitions need --repeat %d or more (at alpha %s)\n", need, units.Short(c.Alpha))
	}
	return nil
}
