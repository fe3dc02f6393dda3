package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/spf13/cobra"
)

// runCalibration is `plimsoll model --calibration DIR [--message-size N]`: where the search's
// trials crossed the latency SLO, and the SLO limit it predicts at each size searched and at
// --message-size.
func runCalibration(cmd *cobra.Command, dir string, asJSON bool) error {
	sf, err := results.LoadSearch(filepath.Join(dir, limit.StoreName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return usageErrf("--calibration %s: no %s there; give a directory written by plimsoll limit --out", dir, limit.StoreName)
		}
		return usageErr(err)
	}
	cfg := sf.Header.Config
	if cfg == nil || cfg.NICBytesPerSec <= 0 || cfg.Criteria.PublishP99SLOMs <= 0 {
		return usageErrf("--calibration %s: the search needs a NIC rate (the model's ceiling) and a latency SLO to calibrate on", dir)
	}
	cal, err := model.Calibrate(limit.Observations(*cfg, sf.Trials, sf.Header.Sizes), cfg.Criteria.PublishP99SLOMs)
	if err != nil {
		return usageErr(err)
	}
	sizes := append([]int(nil), sf.Header.Sizes...)
	if fl := cmd.Flags().Lookup("message-size"); fl != nil && fl.Changed {
		n, err := strconv.Atoi(fl.Value.String())
		if err != nil || n < 1 {
			return usageErrf("--message-size %q: give a whole number of bytes", fl.Value.String())
		}
		sizes = []int{n}
	}
	var preds []report.SLOPrediction
	for _, s := range sizes {
		if p := limit.Predict(*cfg, s); p != nil {
			preds = append(preds, report.SLOPrediction{Size: s, Ceiling: p.MsgsPerSec, SLO: cal.SLORate(p.MsgsPerSec)})
		}
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Calibration model.LatencyCalibration `json:"calibration"`
			Predictions []report.SLOPrediction   `json:"predictions"`
		}{cal, preds})
	}
	return report.Calibration(cmd.OutOrStdout(), dir, cal, preds)
}
