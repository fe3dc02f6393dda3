package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

// SLOPrediction is the model's ceiling at one message size and the SLO limit a latency
// calibration predicts there, msgs/s.
type SLOPrediction struct {
	Size    int     `json:"size"`
	Ceiling float64 `json:"ceiling_msgs_per_sec"`
	SLO     float64 `json:"slo_msgs_per_sec"`
}

// Calibration writes `plimsoll model --calibration`'s answer: where each searched size crossed the
// SLO, and the SLO limit predicted at the sizes asked for.
func Calibration(w io.Writer, dir string, cal model.LatencyCalibration, preds []SLOPrediction) error {
	var b strings.Builder
	fmt.Fprintf(&b, "latency calibration from %s: p99 publish latency reaches %s ms at %s of the model's ceiling\n",
		dir, units.Trim(cal.SLOMs), units.Pct(cal.Load))
	fmt.Fprintf(&b, "(the geometric mean over %s measured)\n\n", units.Plural(len(cal.Crossings), "size"))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tmet the SLO at\tmissed it at\tcrossing\t")
	for _, c := range cal.Crossings {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", units.Size(c.Size), units.Pct(c.Below), units.Pct(c.Above), units.Pct(c.Load))
	}
	tw.Flush()
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tmodel ceiling msgs/s\tpredicted SLO limit msgs/s\tMB/s\t")
	for _, p := range preds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", units.Size(p.Size), units.Count(p.Ceiling), units.Count(p.SLO), units.MBps(p.SLO*float64(p.Size)))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}
