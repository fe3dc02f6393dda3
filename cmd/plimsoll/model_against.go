package main

import (
	"encoding/json"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/spf13/cobra"
)

// againstReport is `plimsoll model --against DIR --json`.
type againstReport struct {
	Dir string `json:"dir"`
	model.Comparison
	// LinkOverhead is what the emulated links carried beyond the record bytes, per record byte.
	LinkOverhead *float64 `json:"link_overhead,omitempty"`
}

func runAgainst(cmd *cobra.Command, dir string, asJSON bool) error {
	res, err := results.LoadTrialDir(dir)
	if err != nil {
		return usageErr(err)
	}
	measured := res.Traffic
	if len(measured) == 0 {
		return usageErrf("--against %s: the run has no broker metrics (probe.json without Kafka's BrokerTopicMetrics); run with a metrics endpoint per broker", dir)
	}
	c := trial.ModelCluster(res)
	c.Brokers = len(measured)
	if res.LinkOverhead != nil {
		c.LinkOverhead = *res.LinkOverhead
	}
	cmp, err := model.Compare(c, measured)
	if err != nil {
		return usageErr(err)
	}
	rep := againstReport{Dir: dir, Comparison: cmp, LinkOverhead: res.LinkOverhead}
	w := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return report.Against(w, dir, c, cmp.ProduceBytesPerSec, cmp.PerBroker)
}
