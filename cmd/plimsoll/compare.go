package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newCompareCmd) }

// compareLong is compare's help: reading results, and the A/B driver.
const compareLong = `compare reads results plimsoll already wrote and says whether B is faster, slower or not
significantly different from A. A and B are each a run's directory (plimsoll run --out) or a
limit search's directory or results.jsonl, or an OpenMessaging Benchmark result file (.json);
a comma-separated list of them is that side's repetitions. Runs compare their rates, latency percentiles (from the merged HDR histograms),
CPU and bytes per message and USE utilisation; searches compare the safe rates of each message
size. An OMB file compares with runs (cut into OMB's 10-second windows) or OMB files on the
figures both have: publish and consume rates, publish and end-to-end latency p50, p99 and p99.9,
OMB's aggregates, tested over repetitions or the 10-second windows (an OMB file has no
histogram, USE table, CPU or traffic). Each figure gets B/A - 1 with a confidence interval, a Mann-Whitney U p-value and a
verdict; the USE tables say which resources came closer to their limits. docs/compare.md has
the rules.

With --a and --b it is an A/B driver: it runs the command after -- (plimsoll run or limit
flags) --repeat times per arm, each repetition on a fresh local cluster made for its arm,
interleaving the arms (A B, B A, ...) so drift of the machine cancels, keeps every repetition's
results in --out (a-1, b-1, b-2, a-2, ..., manifest.json), then compares the two sides as above
and writes compare.json and the experiment's page, index.html (plimsoll report renders it again). An arm is comma-separated key=value entries:

  kafka=VERSION             Kafka release (Maven must resolve it)
  jdk=PATH                  the JDK (its home) running the brokers
  listener=plaintext|ssl    the client listener; ssl adds TLS
  sasl=MECHANISM            SASL for the clients: plain, scram-sha-256, scram-sha-512
  heap=SIZE                 each broker's JVM heap
  nic=RATE                  each broker's emulated NIC (root, iproute2)
  message-size=BYTES        the workload's message size
  broker:PROP=V             a server.properties entry on every broker
  producer:PROP=V           a producer property; consumer:PROP=V a consumer property

Arms that differ in nothing are an A/A noise check: the output says so and gives the noise
floor per figure. With --bootstrap in the command, only producer:, consumer: and message-size=
arms are possible. Every arm value is checked before any cluster starts (exit 2 otherwise).

Exit code 5 when B is significantly (p < --alpha) and practically (at least --threshold) slower
in a rate or a limit, or in a latency percentile tested over repetitions; 0 otherwise.`

func newCompareCmd() *cobra.Command {
	o := compare.DefaultOptions
	var om *outputMode
	af := &abFlags{}
	var mf *metricsFlags
	cmd := &cobra.Command{
		Use:   "compare A B | compare --a ARM --b ARM [--repeat N] -- run|limit FLAGS",
		Short: "Is B slower than A? Compare runs or limit searches, with statistics",
		Long:  compareLong,
		Example: `  plimsoll compare base new
  plimsoll compare base1,base2,base3,base4 new1,new2,new3,new4
  plimsoll compare --json --threshold 0.02 limit-3.9 limit-4.1
  plimsoll compare --a kafka=3.9.1 --b kafka=4.1.0 --repeat 4 --out ab -- run --rate 5000 --duration 60s
  plimsoll compare --a '' --b '' --repeat 4 -- run --rate 5000          # A/A: the noise floor
  plimsoll compare --a producer:compression.type=none --b producer:compression.type=lz4 \
      -- run --bootstrap b1:9092 --rate 20000`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if af.active(cmd) {
				dash := cmd.ArgsLenAtDash()
				if dash != 0 {
					return usageErrf("with --a/--b, give the command after --, e.g. compare --a kafka=3.9.1 --b kafka=4.1.0 -- run --rate 5000 (result directories are not read then)")
				}
				return runAB(cmd, af, mf, args, o, om.json)
			}
			if mf.addr != "" || mf.linger != 0 {
				return usageErrf("--metrics-listen serves the runs of an A/B experiment (--a/--b); comparing results already written runs nothing to watch")
			}
			if len(args) != 2 {
				return usageErrf("give two result locations A and B (accepts 2 arg(s), received %d), or --a/--b and a command after -- to run an A/B experiment", len(args))
			}
			a, err := locations("A", args[0])
			if err != nil {
				return err
			}
			b, err := locations("B", args[1])
			if err != nil {
				return err
			}
			return compareSides(cmd, a, b, o, om.json)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.Threshold, "threshold", o.Threshold, "the smallest change, as a fraction of A, that counts as a difference (0.05 = 5%)")
	f.Float64Var(&o.Alpha, "alpha", o.Alpha, "significance level of the tests; intervals are at 1 - alpha")
	f.BoolVar(&o.Force, "force", false, "compare results of different workloads, listing the differences")
	om = addOutputFlags(cmd, "the comparison (docs/compare.md); with --a/--b the same, also written to --out's compare.json")
	f.StringVar(&af.a, "a", "", "A/B driver: arm A, key=value,... (kafka=, jdk=, listener=, sasl=, brokers=, heap=, nic=, message-size=, broker:P=, producer:P=, consumer:P=); '' = defaults")
	f.StringVar(&af.b, "b", "", "A/B driver: arm B, as --a")
	f.IntVar(&af.repeat, "repeat", 1, "A/B driver: repetitions per arm, each on a fresh cluster (4 or more for tests over repetitions)")
	f.DurationVar(&af.warm, "warm-jit", trial.DefaultWarmJIT, "A/B driver: drive a moderate load this long on each fresh cluster before its repetition, so its brokers' JVMs compile first (0: none; docs/warmup.md)")
	f.StringVar(&af.out, "out", "plimsoll-ab", "A/B driver: directory for each repetition's results (a-1, b-1, ...), manifest.json, compare.json and index.html")
	mf = addMetricsFlags(f)
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
	hint := "give directories written by plimsoll run --out, or by plimsoll limit --out (or their results.jsonl), or OMB result files (.json)"
	if errors.Is(err, compare.ErrMixed) {
		hint = "a side's repetitions must all be runs, all limit searches or all OMB result files"
	}
	return &cliError{code: ExitUsage, err: fmt.Errorf("%s: %w", side, err), hint: hint}
}
