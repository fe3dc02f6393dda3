package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

// Against writes `plimsoll model --against`'s table: each broker's measured network in and out
// against the model's, for the traffic the brokers took (produced, bytes/s).
func Against(w io.Writer, dir string, c model.Cluster, produced float64, ag []model.Agreement) error {
	maxErr, maxCorr := model.MaxErrors(ag)
	fmt.Fprintf(w, "model vs measured for %s: %d brokers, replication factor %d, %d consumer groups, %s produced (Kafka's BytesIn, summed)\n\n",
		dir, c.Brokers, c.ReplicationFactor, c.ConsumerGroups, units.FormatRate(produced))
	againstTable(w, ag)
	fmt.Fprintf(w, "\nlargest error %.1f%% with the balanced assignment the model assumes, %.1f%% with each broker's measured leader share\n",
		100*maxErr, 100*maxCorr)
	if c.LinkOverhead > 0 {
		fmt.Fprintf(w, "the emulated links carried %s more than these record bytes (headers, acknowledgements, requests): plimsoll model --link-overhead %s\n",
			units.Percent(c.LinkOverhead), units.Sig(c.LinkOverhead, 3))
	}
	return nil
}

// againstTable is the per-broker table of model --against and watch: measured network in and
// out beside the model's, with the errors.
func againstTable(w io.Writer, ag []model.Agreement) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "broker\tin measured\tin model\terror\tout measured\tout model\terror\terrors with its real leader share\t")
	for _, a := range ag {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%+.1f%%\t%s\t%s\t%+.1f%%\t%+.1f%% / %+.1f%%\t\n", a.Broker,
			units.FormatRate(a.MeasuredIn), units.FormatRate(a.PredictedIn), 100*a.InError,
			units.FormatRate(a.MeasuredOut), units.FormatRate(a.PredictedOut), 100*a.OutError,
			100*a.CorrectedInError, 100*a.CorrectedOutError)
	}
	tw.Flush()
}
