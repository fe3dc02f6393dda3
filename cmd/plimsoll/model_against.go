package main

import (
	"encoding/json"
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/units"
	"github.com/spf13/cobra"
)

// againstReport is `plimsoll model --against DIR --json`.
type againstReport struct {
	Dir                string            `json:"dir"`
	Brokers            int               `json:"brokers"`
	ReplicationFactor  int               `json:"replication_factor"`
	ConsumerGroups     int               `json:"consumer_groups"`
	ProduceBytesPerSec float64           `json:"produce_bytes_per_sec"`
	PerBroker          []model.Agreement `json:"per_broker"`
	MaxError           float64           `json:"max_error"`
	MaxCorrectedError  float64           `json:"max_corrected_error"`
}

func runAgainst(cmd *cobra.Command, dir string, asJSON bool) error {
	res, err := trial.LoadDir(dir)
	if err != nil {
		return usageErr(err)
	}
	measured := res.BrokerTraffic()
	if len(measured) == 0 {
		return usageErrf("--against %s: the run has no broker metrics (probe.json without Kafka's BrokerTopicMetrics); run with a metrics endpoint per broker", dir)
	}
	c := res.ModelCluster()
	c.Brokers = len(measured)
	ag, t, err := model.Against(c, measured)
	if err != nil {
		return usageErr(err)
	}
	rep := againstReport{Dir: dir, Brokers: c.Brokers, ReplicationFactor: c.ReplicationFactor, ConsumerGroups: c.ConsumerGroups,
		ProduceBytesPerSec: t, PerBroker: ag}
	for _, a := range ag {
		rep.MaxError = math.Max(rep.MaxError, math.Max(math.Abs(a.InError), math.Abs(a.OutError)))
		rep.MaxCorrectedError = math.Max(rep.MaxCorrectedError, math.Max(math.Abs(a.CorrectedInError), math.Abs(a.CorrectedOutError)))
	}
	w := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "model vs measured for %s: %d brokers, replication factor %d, %d consumer groups, %s produced (Kafka's BytesIn, summed)\n\n",
		dir, c.Brokers, c.ReplicationFactor, c.ConsumerGroups, units.FormatRate(t))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "broker\tin measured\tin model\terror\tout measured\tout model\terror\terrors with its real leader share\t")
	for _, a := range ag {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%+.1f%%\t%s\t%s\t%+.1f%%\t%+.1f%% / %+.1f%%\t\n", a.Broker,
			units.FormatRate(a.MeasuredIn), units.FormatRate(a.PredictedIn), 100*a.InError,
			units.FormatRate(a.MeasuredOut), units.FormatRate(a.PredictedOut), 100*a.OutError,
			100*a.CorrectedInError, 100*a.CorrectedOutError)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nlargest error %.1f%% with the balanced assignment the model assumes, %.1f%% with each broker's measured leader share\n",
		100*rep.MaxError, 100*rep.MaxCorrectedError)
	return nil
}
