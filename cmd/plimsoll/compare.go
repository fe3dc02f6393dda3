package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/report"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newCompareCmd) }

func newCompareCmd() *cobra.Command {
	o := compare.DefaultOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Is B slower than A? Compare runs or limit searches, with statistics",
		Long: `compare reads results plimsoll already wrote and says whether B is faster, slower or not
significantly different from A. A and B are each a run's directory (plimsoll run --out) or a
limit search's directory or results.jsonl; a comma-separated list of them is that side's
repetitions. Runs compare their rates, latency percentiles (from the merged HDR histograms),
CPU and bytes per message and USE utilisation; searches compare the safe rates of each message
size. Each figure gets B/A - 1 with a confidence interval, a Mann-Whitney U p-value and a
verdict; the USE tables say what moved. docs/compare.md has the rules.

Exit code 5 when B is significantly (p < --alpha) and practically (at least --threshold) slower
in a rate or a limit; 0 otherwise.`,
		Example: `  plimsoll compare base new
  plimsoll compare base1,base2,base3,base4 new1,new2,new3,new4
  plimsoll compare --json --threshold 0.02 limit-3.9 limit-4.1`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := locations("A", args[0])
			if err != nil {
				return err
			}
			b, err := locations("B", args[1])
			if err != nil {
				return err
			}
			return compareSides(cmd, a, b, o, asJSON)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.Threshold, "threshold", o.Threshold, "the smallest change, as a fraction of A, that counts as a difference (0.05 = 5%)")
	f.Float64Var(&o.Alpha, "alpha", o.Alpha, "significance level of the tests; intervals are at 1 - alpha")
	f.BoolVar(&o.Force, "force", false, "compare results of different workloads, listing the differences")
	f.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

// locations splits a side's comma-separated list of result locations.
func locations(side, arg string) ([]string, error) {
	var out []string
	for i, p := range strings.Split(arg, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, usageErrf("%s %q: location %d is empty; give directories separated by single commas, e.g. run1,run2", side, arg, i+1)
		}
		out = append(out, p)
	}
	return out, nil
}

// compareSides loads both sides, compares them, prints the result and maps the verdict to the
// exit code. Every problem with the input is a usage error: nothing is written either way.
func compareSides(cmd *cobra.Command, a, b []string, o compare.Options, asJSON bool) error {
	if err := o.Check(); err != nil {
		return usageErr(err)
	}
	sa, err := compare.Load(a)
	if err != nil {
		return loadErr("A", err)
	}
	sb, err := compare.Load(b)
	if err != nil {
		return loadErr("B", err)
	}
	c, err := compare.Compare(sa, sb, o)
	var we *compare.WorkloadError
	switch {
	case errors.As(err, &we):
		return &cliError{code: ExitUsage, err: err, hint: "compare repetitions of one workload; --force compares them anyway"}
	case err != nil:
		return usageErr(err)
	}
	w := cmd.OutOrStdout()
	if asJSON {
		err = report.CompareJSON(w, c)
	} else {
		err = report.Compare(w, c)
	}
	if err != nil {
		return err
	}
	if c.Verdict == compare.Slower {
		return &cliError{code: ExitSlower, err: errors.New("side B is slower"), silent: true}
	}
	return nil
}

// loadErr words a side's load failure as bad input, with what to give instead.
func loadErr(side string, err error) error {
	hint := "give directories written by plimsoll run --out, or by plimsoll limit --out (or their results.jsonl)"
	if errors.Is(err, compare.ErrMixed) {
		hint = "a side's repetitions must all be runs or all limit searches"
	}
	return &cliError{code: ExitUsage, err: fmt.Errorf("%s: %w", side, err), hint: hint}
}
