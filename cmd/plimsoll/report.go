package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var text bool
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Render a limit search's results as a self-contained HTML report (and PNG chart)",
		Long: `report reads DIR/results.jsonl, written by plimsoll limit, and writes DIR/index.html (charts of
the boundary in msgs/s and MB/s against message size with the model's prediction, every trial
with its verdict, the USE table at each boundary point, latency percentiles), DIR/boundary.png
The HTML needs no network to view.`,
		Example: "  plimsoll report plimsoll-limit\n  plimsoll report --text lim1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			store := filepath.Join(dir, "results.jsonl")
			if _, err := os.Stat(store); errors.Is(err, os.ErrNotExist) {
				return usageErrf("%s not found: give a directory written by plimsoll limit --out", store)
			}
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
			if text {
				return report.Text(cmd.OutOrStdout(), sf)
			}
			if err := report.WriteDir(dir, sf); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", filepath.Join(dir, "index.html"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&text, "text", false, "print the report as text instead")
	return cmd
}
