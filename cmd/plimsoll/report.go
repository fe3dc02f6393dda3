package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var text bool
	var om *outputMode
	cmd := &cobra.Command{
		Use:   "report DIR | report FILE.json",
		Short: "Render a limit search's, an A/B experiment's, a scenario's or an OMB result file's results as a self-contained HTML report",
		Long: `report reads DIR/results.jsonl, written by plimsoll limit, and writes DIR/index.html (charts of
the boundary in msgs/s and MB/s against message size with the model's prediction, every trial
with its verdict, the USE table at each boundary point, latency percentiles), DIR/boundary.png

For an A/B experiment's directory (plimsoll compare --a/--b --out DIR: manifest.json and
compare.json) it writes DIR/index.html with the experiment, the statistics table, the cause and
paired charts: A vs B per-second produced rates and latency distributions for runs, boundary
curves for limit searches.

For a scenario's directory (plimsoll scenario run --out DIR) it writes DIR/index.html: the
findings beside the model's and the article's, a chart per figure of the experiment with the
article's series beside ours, the sources with their hardware, the configuration, the commands
it ran and what failed; --text prints the same for a terminal, --json the record.

For an OpenMessaging Benchmark result file (FILE.json, as OMB's benchmark writes it, or as
plimsoll export --format omb does) it writes FILE.html beside it: the file's workload and driver,
marked as imported from OMB, its rates and latency aggregates, and charts of its 10-second
series and latency quantiles. An OMB file has no USE table, no verdict and no histograms.
The HTML needs no network to view.`,
		Example: "  plimsoll report plimsoll-limit\n  plimsoll report --text lim1\n  plimsoll report plimsoll-ab\n  plimsoll report kafka-omb-result.json",
		Args:    argsNamed(1, "DIR", "the directory a limit search, an A/B experiment or a scenario wrote (plimsoll limit --out DIR, plimsoll compare --a/--b --out DIR, plimsoll scenario run --out DIR), or an OMB result file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if text && om.json {
				return usageErrf("--text and --json are two renderings of the report: give one of them")
			}
			return reportPath(cmd, args[0], text || om.json, om.json)
		},
	}
	cmd.Flags().BoolVar(&text, "text", false, "print the report as text instead")
	om = addOutputFlags(cmd, "instead of writing the page: a search's as limit --json prints it (schema "+report.SearchSchema+"), an A/B experiment's comparison as compare --json")
	return cmd
}

// reportPath renders what path holds: an OMB result file, a scenario's directory, an A/B
// experiment's or a limit search's; text for a terminal, asJSON the record.
func reportPath(cmd *cobra.Command, path string, text, asJSON bool) error {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return reportFile(cmd.OutOrStdout(), path, text)
	}
	if report.ScenarioDir(path) {
		return reportScenario(cmd.OutOrStdout(), path, text, asJSON)
	}
	store := filepath.Join(path, "results.jsonl")
	if _, err := os.Stat(store); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(path, arms.ManifestFile)); err == nil {
			return reportAB(cmd.OutOrStdout(), path, text, asJSON)
		}
		return usageErrf("%s not found, nor %s: give a directory written by plimsoll limit --out or by plimsoll compare --a/--b --out",
			store, filepath.Join(path, arms.ManifestFile))
	}
	return reportSearch(cmd, path, store, text, asJSON)
}

// reportSearch renders the limit search whose results file is store, in dir.
func reportSearch(cmd *cobra.Command, dir, store string, text, asJSON bool) error {
	sf, err := results.LoadSearch(store)
	if errors.Is(err, results.ErrSchema) || errors.Is(err, results.ErrNoSearch) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	for _, w := range sf.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", w)
	}
	switch {
	case asJSON:
		return report.SearchJSON(cmd.OutOrStdout(), sf, "")
	case text:
		return report.Text(cmd.OutOrStdout(), sf)
	}
	if err := report.WriteDir(dir, sf); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", filepath.Join(dir, "index.html"))
	return nil
}

// reportAB renders the A/B experiment in dir: its page, or with text the driver's output, or
// with asJSON its comparison. Results that cannot be read are bad input (exit 2).
func reportAB(w io.Writer, dir string, text, asJSON bool) error {
	r, err := report.LoadAB(dir)
	if err != nil {
		return usageErr(err)
	}
	if asJSON {
		return report.CompareJSON(w, r.Comparison)
	}
	if text {
		return report.ABText(w, r)
	}
	if err := report.WriteABDir(r); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", filepath.Join(dir, "index.html"))
	return nil
}

// reportScenario renders the scenario's record in dir: its page, or its text, or its JSON.
func reportScenario(w io.Writer, dir string, text, asJSON bool) error {
	s, err := results.LoadScenario(dir)
	if err != nil {
		return usageErr(err)
	}
	switch {
	case asJSON:
		return report.ScenarioJSON(w, &s)
	case text:
		return report.ScenarioText(w, &s)
	}
	if err := report.WriteScenarioDir(dir, &s); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", filepath.Join(dir, "index.html"))
	return nil
}

// reportFile renders a file: an OMB result file's page beside it (FILE.html), or with text its
// text. Any other file is bad input (exit 2) naming what report reads.
func reportFile(w io.Writer, path string, text bool) error {
	r, err := omb.ReadFile(path)
	if err != nil {
		return usageErrf("%v: report reads an OMB result file, or the directory a limit search or an A/B experiment wrote; "+
			"a plimsoll run's directory is read by plimsoll compare, and plimsoll export --format omb turns it into an OMB file", err)
	}
	if text {
		return report.OMBText(w, path, r)
	}
	html := strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
	if err := report.WriteOMBFile(html, path, r); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", html)
	return nil
}
