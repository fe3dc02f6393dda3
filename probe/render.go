package probe

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
)

// String renders the table in fixed-width columns, each cell as "mean / max unit"; a blank
// cell is "-", or its note in brackets when it has one. Metrics and sources are in the JSON
// form and in docs/use.md.
func (t Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "USE over %.0f s (%d samples), each cell mean / max\n", t.Seconds, t.Samples)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ENTITY\tRESOURCE\tAMOUNT\tUTILISATION\tSATURATION\tERRORS")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Entity, r.Resource,
			r.Amount.text(), r.Utilisation.text(), r.Saturation.text(), r.Errors.text())
	}
	w.Flush()
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

func (c Cell) text() string {
	if c.Blank() {
		if c.Note != "" && c.Note != "no data" {
			return "(" + c.Note + ")"
		}
		return "-"
	}
	mean, mx := float64(c.Mean), float64(c.Max)
	switch c.Unit {
	case unitPct:
		return fmt.Sprintf("%s / %s %%", num(mean), num(mx))
	case unitBps, unitBytes:
		scale, prefix := siPrefix(mx)
		return fmt.Sprintf("%s / %s %s%s", num(mean/scale), num(mx/scale), prefix, c.Unit)
	case unitCount:
		return fmt.Sprintf("%s / %s", num(mean), num(mx))
	default:
		return fmt.Sprintf("%s / %s %s", num(mean), num(mx), c.Unit)
	}
}

// num prints three significant digits at most, without exponent for everyday magnitudes.
func num(v float64) string {
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

func siPrefix(v float64) (float64, string) {
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
