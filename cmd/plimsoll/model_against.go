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
	Dir                string            `json:"dir"`
	Brokers            int               `json:"brokers"`
	ReplicationFactor  int               `json:"replication_factor"`
	ConsumerGroups     int               `json:"consumer_groups"`
	ProduceBytesPerSec float64           `json:"produce_bytes_per_sec"`
	PerBroker          []model.Agreement `json:"per_broker"`
	MaxError           float64           `json:"max_error"`
	MaxCorrectedError  float64           `json:"max_corrected_error"`
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
	ag, t, err := model.Against(c, measured)
	if err != nil {
		return usageErr(err)
	}
	rep := againstReport{Dir: dir, Brokers: c.Brokers, ReplicationFactor: c.ReplicationFactor, ConsumerGroups: c.ConsumerGroups,
		ProduceBytesPerSec: t, PerBroker: ag, LinkOverhead: res.LinkOverhead}
	rep.MaxError, rep.MaxCorrectedError = model.MaxErrors(ag)
	w := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return report.Against(w, dir, c, t, ag)
}
