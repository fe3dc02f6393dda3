package report

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/use"
)

// USEText renders a USE table in fixed-width columns, each cell as "mean / max unit" (see
// CellText), then the table's notes. Metrics and sources are in the JSON form and in
// docs/use.md.
func USEText(t use.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "USE over %.0f s (%d samples), each cell mean / max\n", t.Seconds, t.Samples)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ENTITY\tRESOURCE\tAMOUNT\tUTILISATION\tSATURATION\tERRORS")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Entity, r.Resource,
			CellText(r.Amount), CellText(r.Utilisation), CellText(r.Saturation), CellText(r.Errors))
	}
	w.Flush()
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// missingText words why a cell is blank, naming the setting that would fill it. The empty
// string means "-".
var missingText = map[use.Reason]string{
	use.NoData:                "",
	use.NoMetricsEndpoint:     "no metrics endpoint",
	use.NoNICCapacity:         "capacity unknown (--nic)",
	use.NoDiskCapacity:        "capacity unknown (--disk-write)",
	use.NotObservableRemotely: "not observable remotely",
	use.LoopbackNoCapacity:    "loopback has no capacity",
	use.NoInterface:           "no interface",
	use.NoDisk:                "no disk",
	"no data":                 "", // as tables written before the reason codes say it
}

// CellText renders one USE cell as the table shows it: "mean / max unit" with three significant
// digits and an SI prefix for bytes, "-" when blank, or why it is blank in brackets, e.g.
// "(capacity unknown (--nic))". A reason it does not know (a sentence stored by an older
// plimsoll) is shown as it is. A backlog with a drain rate adds the wait it means, "59.4 / 113
// KB, 119 / 227 ms at the link's rate"; a sum adds its parts' means, "4.37 / 10.0 /s (4.00 +
// 0.38)".
func CellText(c use.Cell) string {
	s := figuresText(c)
	if c.Blank() {
		return s
	}
	if c.Drain > 0 {
		s += fmt.Sprintf(", %s / %s ms at the link's rate", useNum(float64(c.Mean)/c.Drain*1000), useNum(float64(c.Max)/c.Drain*1000))
	}
	if len(c.Parts) > 0 {
		parts := make([]string, len(c.Parts))
		for i, p := range c.Parts {
			parts[i] = "-"
			if !p.Blank() {
				parts[i] = useNum(float64(p.Mean))
			}
		}
		s += " (" + strings.Join(parts, " + ") + ")"
	}
	return s
}

// figuresText is a cell's mean and maximum in its unit, or why it is blank.
func figuresText(c use.Cell) string {
	if c.Blank() {
		text, known := missingText[c.Missing]
		if !known {
			text = string(c.Missing)
		}
		if text == "" {
			return "-"
		}
		return "(" + text + ")"
	}
	mean, mx := float64(c.Mean), float64(c.Max)
	switch c.Unit {
	case use.UnitPct:
		return fmt.Sprintf("%s / %s %%", useNum(mean), useNum(mx))
	case use.UnitBps, use.UnitBytes:
		scale, prefix := useSIPrefix(mx)
		return fmt.Sprintf("%s / %s %s%s", useNum(mean/scale), useNum(mx/scale), prefix, c.Unit)
	case use.UnitCount:
		return fmt.Sprintf("%s / %s", useNum(mean), useNum(mx))
	default:
		return fmt.Sprintf("%s / %s %s", useNum(mean), useNum(mx), c.Unit)
	}
}

// useNum prints three significant digits at most, without exponent for everyday magnitudes.
func useNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 0.01:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1g", v)
	}
}

func useSIPrefix(v float64) (float64, string) {
	switch a := math.Abs(v); {
	case a >= 1e12:
		return 1e12, "T"
	case a >= 1e9:
		return 1e9, "G"
	case a >= 1e6:
		return 1e6, "M"
	case a >= 1e3:
		return 1e3, "K"
	}
	return 1, ""
}
