package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newExportCmd) }

// exportFormats are the formats export writes.
var exportFormats = []string{"omb"}

func newExportCmd() *cobra.Command {
	var format, out string
	var names omb.Names
	cmd := &cobra.Command{
		Use:   "export --format omb DIR",
		Short: "Write a run's or a limit search's results in OpenMessaging Benchmark's result format",
		Long: `export --format omb writes OpenMessaging Benchmark's result JSON (the file OMB's benchmark
writes, with its field names and types), so that OMB's bin/create_charts.py and other scripts
that read OMB results take plimsoll's results as they are.

DIR is a run's directory (plimsoll run --out: result.json and histograms.hlog), exported to
DIR/omb-result.json, or a limit search's (plimsoll limit --out: results.jsonl), exported to one
file per trial, every trial of the search, in DIR/omb/ (trial-SEQ-SIZEb-RATEmsgs.json, the rate rounded); --out
puts them elsewhere.

OMB's series are of 10-second windows: the measured window is cut into whole 10-second windows
(a remainder under 10 s is in the aggregates only; the output says so), each window's
percentiles computed from its merged one-second histograms. Latency is in milliseconds, publish
delay (plimsoll's schedule delay) in microseconds, as OMB writes them. docs/omb.md maps every
field to its plimsoll source.`,
		Example: "  plimsoll export --format omb base\n  plimsoll export --format omb --out results/omb lim1",
		Args:    argsNamed(1, "DIR", "the directory a run or a limit search wrote (plimsoll run --out DIR, plimsoll limit --out DIR)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "omb" {
				return usageErrf("--format %q is not a format export writes: give --format omb", format)
			}
			return exportOMB(cmd, args[0], out, names)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", fmt.Sprintf("the format to write: %v (required)", exportFormats))
	f.StringVar(&out, "out", "", "the `PATH` to write: a file for a run, a directory for a limit search; default DIR/omb-result.json or DIR/omb/")
	f.StringVar(&names.Workload, "workload-name", "", "the workload name the files carry (OMB's charts group by it); default the workload's name, else its shape")
	f.StringVar(&names.Driver, "driver-name", "", `the driver name the files carry (OMB's charts label lines with it); default "plimsoll kafka VERSION"`)
	return cmd
}

// exportOMB exports dir: every file is built before any is written, and each is written to a
// temporary file renamed into place, so a failure leaves no half-written file.
func exportOMB(cmd *cobra.Command, dir, out string, names omb.Names) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrf("%s is not a directory: give the directory a run or a limit search wrote (plimsoll run --out DIR, plimsoll limit --out DIR)", dir)
	}
	files, err := omb.ExportDir(dir, names)
	if errors.Is(err, omb.ErrNoResults) {
		return usageErrf("%v: give the directory plimsoll run --out or plimsoll limit --out wrote", err)
	}
	if err != nil {
		return usageErr(err)
	}
	base, written := dir, 0
	if out != "" {
		base = out
		if len(files) == 1 && files[0].Name == omb.RunFile {
			base = filepath.Dir(out)
			files[0].Name = filepath.Base(out)
		} else {
			for i := range files {
				files[i].Name = filepath.Base(files[i].Name)
			}
		}
	}
	for _, f := range files {
		if f.Skipped == nil {
			written++
		}
	}
	if written == 0 {
		report.OMBExported(cmd.ErrOrStderr(), base, files)
		return usageErrf("nothing exported from %s (the reason is above)", dir)
	}
	for _, f := range files {
		if f.Skipped != nil {
			continue
		}
		if err := writeOMB(filepath.Join(base, f.Name), f.Result); err != nil {
			return err
		}
	}
	return report.OMBExported(cmd.OutOrStdout(), base, files)
}

func writeOMB(path string, r *omb.Result) error {
	b, err := omb.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return results.WriteFileAtomic(path, b)
}
