package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plimsoll/plimsoll/internal/smallfile"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/model/input"
	"github.com/plimsoll/plimsoll/report"
)

// modelSchema names the JSON layout of `plimsoll model --json` (docs/model.md).
const modelSchema = "plimsoll.model/v1"

func init() { subcommands = append(subcommands, newModelCmd) }

func newModelCmd() *cobra.Command {
	var file, against, calibration string
	var explain bool
	var om *outputMode
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Size a Kafka cluster: per-broker load, bottleneck, produce ceiling, partitions, headroom",
		Long: `model computes, without touching a cluster, what a Kafka cluster of a given shape carries for a
given traffic: each broker's produce, replication and consumer traffic, network and disk load,
the resource that gives out first and the produce ceiling it sets, the wire bytes a message
costs in each record format, how many partitions the traffic needs, and the safe rate left by
a measured per-broker limit when brokers are down. Without --brokers, a target load (--produce)
and a capacity (--nic, --disk-write, --disk-read) ask how many brokers it needs: the fewest per
resource and overall, with all up and with --brokers-down down. Rates are bytes per second: MB = 10^6 B,
MiB = 2^20 B, Mbit = 10^6 bits. The model and its assumptions are in docs/model.md.`,
		Example: `  plimsoll model --brokers 3 --partitions 3 --replication-factor 2 --produce 300MB/s
  plimsoll model --brokers 6 --replication-factor 3 --consumer-groups 2 --produce 200MB/s --nic 1Gbit/s --explain
  plimsoll model --brokers 3 --replication-factor 3 --messages-per-sec 1.5M --message-size 100 --record-format v1 --json
  plimsoll model --replication-factor 3 --produce 300MB/s --nic 1Gbit/s --brokers-down 1   # how many brokers?
  plimsoll model --brokers 5 --brokers-down 20% --broker-limit 60MB/s
  plimsoll model --messages-per-sec 1M --consumer-latency 10ms
  plimsoll model --file cluster.yaml --produce 500MB/s     # flags override the file
  plimsoll model --against results/run1                    # model vs what a plimsoll run measured
  plimsoll model --calibration lim1 --message-size 4096    # where p99 passes the SLO, from a limit search`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if against != "" {
				return runAgainst(cmd, against, om.json)
			}
			if calibration != "" {
				return runCalibration(cmd, calibration, om.json)
			}
			return runModel(cmd, file, om.json, explain)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVarP(&file, "file", "f", "", "read inputs from a YAML `FILE` whose keys are these flag names; flags override it")
	om = addOutputFlags(cmd, "schema "+modelSchema+", "+sizingSchema+" without --brokers, or --against's or --calibration's document (docs/model.md)")
	f.BoolVar(&explain, "explain", false, "show the formula behind each figure")
	f.StringVar(&against, "against", "", "compare the model with a run's measured per-broker traffic: a `DIR` written by plimsoll run --out")
	f.StringVar(&calibration, "calibration", "", "predict where p99 publish latency reaches the SLO on the cluster of a limit search, `DIR` written by plimsoll limit --out (with --message-size: at that size)")
	for _, k := range input.Keys {
		f.Var(&inputFlag{key: k.Name, arg: k.Arg, value: k.Default}, k.Name, k.Usage)
	}
	return cmd
}

// inputFlag is a model input given on the command line. Its value is checked as it is parsed
// (so a bad one is a flag error, exit 2) and applied after the --file, which it overrides.
type inputFlag struct{ key, arg, value string }

func (f *inputFlag) String() string { return f.value }
func (f *inputFlag) Type() string   { return f.arg }
func (f *inputFlag) Set(v string) error {
	if err := input.Check(f.key, v); err != nil {
		return err
	}
	f.value = v
	return nil
}

func runModel(cmd *cobra.Command, file string, asJSON, explain bool) error {
	if asJSON && explain {
		return usageErrf("--explain annotates the table; --json has a fixed schema: give one of them")
	}
	in := input.New()
	if file != "" {
		data, err := smallfile.Read(file, 1<<20)
		if errors.Is(err, smallfile.ErrTooLarge) {
			return usageErrf("--file: %s: %w; a model input is a short YAML mapping", file, err)
		}
		if err != nil {
			return usageErrf("--file: %w", err)
		}
		if err := in.LoadYAML(file, data); err != nil {
			return usageErr(err)
		}
	}
	var setErr error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if _, ok := input.Lookup(fl.Name); ok && setErr == nil {
			setErr = in.Set(fl.Name, fl.Value.String(), "--"+fl.Name)
		}
	})
	if setErr != nil {
		return usageErr(setErr)
	}
	c, t, s, err := in.Model()
	if err != nil {
		return usageErr(err)
	}
	if in.SizingMode() {
		return runSizing(cmd, in, c, t, asJSON, explain)
	}
	res, err := model.Evaluate(c, t, s)
	if err != nil {
		return modelErr(in, err)
	}
	var out bytes.Buffer // nothing reaches stdout unless all of it is ready
	if asJSON {
		if err := writeJSON(&out, modelOutput{Schema: modelSchema, Inputs: in.Given(), Result: res}); err != nil {
			return err
		}
	} else {
		report.Model(&out, c, t, s, res, explain)
	}
	_, err = cmd.OutOrStdout().Write(out.Bytes())
	return err
}

// runSizing answers "how many brokers": a target load and a capacity, no --brokers.
func runSizing(cmd *cobra.Command, in *input.Input, c model.Cluster, t model.Traffic, asJSON, explain bool) error {
	if explain {
		return usageErrf("--explain annotates the table of a given cluster; without --brokers (sizing) give --brokers N with the count found to see each figure's formula")
	}
	f, err := model.MinBrokers(c, t)
	if err != nil {
		return modelErr(in, err)
	}
	var out bytes.Buffer
	if asJSON {
		if err := writeJSON(&out, sizingOutput{Schema: sizingSchema, Inputs: in.Given(), Fleet: f}); err != nil {
			return err
		}
	} else {
		report.ModelSizing(&out, c, t, f)
	}
	_, err = cmd.OutOrStdout().Write(out.Bytes())
	return err
}

// modelErr turns the model's errors into usage errors naming where the input was given.
func modelErr(in *input.Input, err error) error {
	var ie *model.InputError
	switch {
	case errors.As(err, &ie):
		return usageErr(fmt.Errorf("%s: %s", in.Where(ie.Field), ie.Msg))
	case errors.Is(err, model.ErrNoCapacity): // a ceiling is asked for only with a capacity
		return usageErrf("%s: the only capacity given is disk read, and nothing reads from disk: add --lagging-consumer-groups, or give --nic or --disk-write", in.Where("disk-read"))
	}
	return err
}

func writeJSON(w *bytes.Buffer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// sizingSchema names the JSON layout of `plimsoll model --json` in sizing mode (docs/model.md).
const sizingSchema = "plimsoll.model-sizing/v1"

// sizingOutput is sizing mode's JSON document: the schema name, the inputs as given, the counts.
type sizingOutput struct {
	Schema string            `json:"schema"`
	Inputs map[string]string `json:"inputs"`
	model.Fleet
}

// modelOutput is the JSON document: the schema name, the inputs as given, then the result.
type modelOutput struct {
	Schema string            `json:"schema"`
	Inputs map[string]string `json:"inputs"`
	model.Result
}
