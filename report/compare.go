package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// CompareDoc is `plimsoll compare --json`: the comparison as compare found it, with the verdict
// and the cause in the words the text uses.
type CompareDoc struct {
	*compare.Comparison
	Summary    string   `json:"summary"`
	CauseLines []string `json:"cause_lines"`
}

// NewCompareDoc words c.
func NewCompareDoc(c *compare.Comparison) CompareDoc {
	return CompareDoc{Comparison: c, Summary: compareSummary(c), CauseLines: causeLines(c)}
}

// CompareJSON writes `plimsoll compare --json`.
func CompareJSON(w io.Writer, c *compare.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(NewCompareDoc(c))
}

// Compare writes `plimsoll compare`: the sides, any workload differences let through, the
// table of figures, the verdict and the cause.
func Compare(w io.Writer, c *compare.Comparison) error {
	fmt.Fprintf(w, "A: %s: %s\nB: %s: %s\nalpha %s, practical threshold %s of A\n",
		sideName(c.Kind, c.A), strings.Join(c.A, ", "), sideName(c.Kind, c.B), strings.Join(c.B, ", "),
		units.Short(c.Alpha), units.Percent(c.Threshold))
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", noteLine(n))
	}
	if len(c.Differences) > 0 {
		fmt.Fprintln(w, "\nworkload differences, compared anyway (--force):")
		for _, d := range c.Differences {
			fmt.Fprintf(w, "  %s: %s: %s vs %s\n", d.Where, d.Setting, orUnset(d.A), orUnset(d.B))
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tA\tB\tchange [%s CI]\tp (basis)\tverdict\n", units.Percent(1-c.Alpha))
	for _, f := range c.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", figureLabel(f), figureValue(f, f.A), figureValue(f, f.B),
			changeCell(f), pCell(f), f.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if slices.ContainsFunc(c.Figures, func(f compare.Figure) bool { return f.ClientBound }) {
		fmt.Fprintln(w, "* client-bound in a search: the load generator was the limit, so the safe rate is only a lower bound; left out of the verdict")
	}
	fmt.Fprintf(w, "\n%s\n", compareSummary(c))
	lines := causeLines(c)
	if len(lines) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ncause:")
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return nil
}

// noteLine words a note on one repetition.
func noteLine(n compare.Note) string {
	switch n.What {
	case compare.NoteInterrupted:
		return n.Location + ": the run was interrupted; its figures cover less than its window"
	case compare.NoteInvalid:
		return n.Location + ": the run's verdict was invalid (" + n.Detail + "): its figures may measure the load generator, not the cluster"
	case compare.NoteTornTail:
		return n.Location + ": " + n.Detail
	case compare.NoteHostShared:
		return n.Location + ": other processes used " + n.Detail + ": its CPU figures, CPU per message above all, include their competition; run again on a quiet host"
	case compare.NoteOMB:
		return n.Location + ": an OMB result file: it has no USE table, no CPU or bytes per message and no histograms, " +
			"so its latency percentiles are OMB's aggregates (a side's median of them) and are tested over the 10-second windows' percentiles, never over records"
	case compare.NoteExported:
		return n.Location + ": a plimsoll run cut into OMB's 10-second windows (" + n.Detail + ") to compare like with like; " +
			"its latencies count from each message's intended send time, OMB's from the send call, so they read higher by up to its publish delay"
	}
	return n.Location + ": " + n.What + " " + n.Detail
}

func sideName(k compare.Kind, locs []string) string {
	if k == compare.KindOMB {
		return units.Plural(len(locs), "result")
	}
	if k == compare.KindSearch {
		return searches(len(locs)) // "searches": units.Plural would add a bare "s"
	}
	return units.Plural(len(locs), "run")
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// figureLabel names a figure: its name and what it is of, starred when client-bound.
func figureLabel(f compare.Figure) string {
	switch {
	case f.Size > 0 && f.ClientBound:
		return f.Name + " " + units.Size(f.Size) + " *"
	case f.Size > 0:
		return f.Name + " " + units.Size(f.Size)
	case f.Subject != "":
		return f.Name + ", " + f.Subject
	}
	return f.Name
}

// figureValue formats one value of f in its unit.
func figureValue(f compare.Figure, v float64) string {
	switch f.Unit {
	case compare.UnitMsgsPerSec:
		return units.Count(v) + " msg/s"
	case compare.UnitMs:
		return units.Ms(v) + " ms"
	case compare.UnitCPUPerMsg:
		return units.Short(v*1e6) + " µs"
	case compare.UnitBytesPerMsg:
		return units.Count(v) + " B"
	case compare.UnitPct:
		return units.Short(v) + "%"
	}
	return units.Short(v) + " " + string(f.Unit)
}

func changeCell(f compare.Figure) string {
	if f.Change == nil {
		return "-"
	}
	s := units.Change(*f.Change)
	if f.CI != nil {
		s += " [" + units.Change(f.CI.Lo) + ", " + units.Change(f.CI.Hi) + "]"
	}
	return s
}

func pCell(f compare.Figure) string {
	s := "-"
	if f.P != nil {
		s = units.P(*f.P)
	}
	note := string(f.Basis)
	if f.Basis == compare.BasisNone {
		note = "no test"
	}
	if f.Needed > 0 {
		note += fmt.Sprintf("; needs %d a side", f.Needed)
	}
	return s + " (" + note + ")"
}

// compareSummary states the overall verdict and its rule, the other figures that moved, and
// the caveats of the samples: too few to test, or one run's seconds standing in for
// repetitions.
func compareSummary(c *compare.Comparison) string {
	var decided, others []string
	needed, seconds, windows := 0, false, false
	for _, f := range c.Figures {
		if f.Throughput && f.Needed > 0 {
			needed = f.Needed
		}
		seconds = seconds || f.Basis == compare.BasisSeconds
		windows = windows || f.Basis == compare.BasisWindows
		if f.Verdict == compare.Same {
			continue
		}
		s := fmt.Sprintf("%s %s", figureLabel(f), units.Change(*f.Change))
		if f.Decides() && f.Verdict == c.Verdict {
			decided = append(decided, s)
		} else {
			others = append(others, s+" ("+string(f.Verdict)+")")
		}
	}
	rule := fmt.Sprintf("p < %s and a change of at least %s", units.Short(c.Alpha), units.Percent(c.Threshold))
	var b strings.Builder
	if c.Verdict == compare.Same {
		decides := "no rate or limit"
		if c.Kind == compare.KindRun || c.Kind == compare.KindOMB {
			decides = "no rate, nor latency tested over repetitions,"
		}
		fmt.Fprintf(&b, "verdict: no significant difference in speed (%s with %s)", decides, rule)
	} else {
		fmt.Fprintf(&b, "verdict: B is %s than A: %s (%s)", c.Verdict, strings.Join(decided, ", "), rule)
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "\nother figures that differ: %s", strings.Join(others, "; "))
	}
	if needed > 0 {
		fmt.Fprintf(&b, "\ntoo few samples to tell: with %s the U test cannot reach p < %s; give at least %d repetitions a side",
			howMany(c), units.Short(c.Alpha), needed)
	}
	if seconds {
		fmt.Fprintf(&b, "\n(seconds): tested over the seconds of a single run a side, which are not independent, so those p-values overstate the evidence; %d repetitions a side test soundly",
			compare.Needed(c.Alpha))
	}
	if windows {
		fmt.Fprintf(&b, "\n(10-second windows): tested over the 10-second windows of a single result a side, which are not independent, so those p-values overstate the evidence; %d results a side test soundly",
			compare.Needed(c.Alpha))
	}
	return b.String()
}

// causeLines are the evidence of what moved: the USE resources that came closer to their
// limits, the most of their headroom used first, then the costs per message that changed by the
// threshold or significantly.
func causeLines(c *compare.Comparison) []string {
	var out []string
	for _, m := range c.Cause.Moves {
		out = append(out, moveLine(m))
	}
	for _, b := range c.Cause.Bottlenecks {
		name := "ceiling"
		if b.Limit == results.LimitSLO {
			name = "SLO limit"
		}
		out = append(out, fmt.Sprintf("%s %s: bottleneck %s → %s", units.Size(b.Size), name,
			orUnset(strings.Join(b.A, ", ")), orUnset(strings.Join(b.B, ", "))))
	}
	for _, f := range c.Cause.Evidence {
		delta := ""
		if f.Unit == compare.UnitBytesPerMsg {
			delta = signed(f.B-f.A) + " B, "
		}
		out = append(out, fmt.Sprintf("%s: %s → %s (%s%s)", figureLabel(f), figureValue(f, f.A), figureValue(f, f.B),
			delta, units.Change(*f.Change)))
	}
	return out
}

// moveLine says how much closer B came to one resource's limit, e.g. "broker 2 network in:
// 95% → 97% (101% at A's rate; +6 points, 120% of its headroom; wire bytes in ÷ NIC)".
func moveLine(m compare.Move) string {
	at := ""
	if m.BAtARate != nil {
		at = units.Short(*m.BAtARate) + "% at A's rate; "
	}
	return fmt.Sprintf("%s %s: %s%% → %s%% (%s+%s points, %s of its headroom; %s)", m.Entity, m.Resource,
		units.Short(m.A), units.Short(m.B), at, units.Short(m.Points), units.Percent(m.Headroom), m.Metric)
}

// howMany says how many repetitions each side had: "1 limit search a side", "2 runs and 3 runs".
func howMany(c *compare.Comparison) string {
	if len(c.A) == len(c.B) {
		return sideName(c.Kind, c.A) + " a side"
	}
	return sideName(c.Kind, c.A) + " and " + sideName(c.Kind, c.B)
}

func signed(v float64) string {
	if v > 0 {
		return "+" + units.Short(v)
	}
	return units.Short(v)
}
