package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd() *cobra.Command {
	var (
		out, prefix  string
		keep, asJSON bool
		drain        time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload against a cluster and report rates, latency, loss, the USE table and a verdict",
		Long: `run drives a Kafka cluster with real producers and consumers for a window and reports what
happened: achieved rates, publish and end-to-end latency measured from each message's intended
send time (no coordinated omission), the scheduling delay, a ledger of lost, duplicated and
out-of-order messages, a USE table of every broker and the client host, and a verdict:
ok, overloaded (exit 3) or invalid, e.g. client-bound (exit 4).

Without --bootstrap it uses the local cluster (plimsoll cluster), starting one if none is up.
Topics are named with --topic-prefix, created by the run and deleted after it.`,
		Example: `  plimsoll run --rate 5000 --message-size 1000 --duration 60s
  plimsoll run --workload omb/1-topic-16-partitions-1kb.yaml --driver omb/kafka-throughput.yaml
  plimsoll run --bootstrap b1:9092 --tls --sasl-mechanism scram-sha-512 --sasl-user bench \
      --producer-prop acks=all --producer-prop linger.ms=10 --rate 100000 --out results/base`,
		Args: cobra.NoArgs,
	}
	wf := addWorkloadFlags(cmd.Flags())
	tf := addTargetFlags(cmd.Flags())
	crit := addCriteriaFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory for result.json, timeline.csv, histograms.hlog and probe.json")
	f.StringVar(&prefix, "topic-prefix", "", "prefix of the run's topics and groups (default plimsoll-<run id>-); plimsoll never touches other topics")
	f.BoolVar(&keep, "keep-topics", false, "keep the run's topics afterwards")
	f.DurationVar(&drain, "drain-timeout", loadgen.DefaultDrainTimeout, "how long consumers may take to catch up after the window before unseen messages count")
	f.BoolVar(&asJSON, "json", false, "print result.json to stdout instead of the summary")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := wf.spec()
		if err != nil {
			return err
		}
		if err := checkCriteria(crit); err != nil {
			return err
		}
		if prefix != "" && !validPrefix(prefix) {
			return usageErrf("--topic-prefix %q: use letters, digits, '.', '_' and '-' only, and end it with '-' or '.'", prefix)
		}
		stderr := cmd.ErrOrStderr()
		for _, w := range spec.Warnings() {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if _, err := loadgen.ResolveProps(spec); err != nil {
			return usageErr(err)
		}
		ctx, cancel := interruptible()
		defer cancel()
		tgt, err := tf.resolve(ctx, stderr)
		if err != nil {
			return err
		}
		defer tgt.release(stderr)

		tty := isTTY(stderr)
		total := (spec.Warmup + spec.Duration).Seconds()
		opts := loadgen.Options{TopicPrefix: prefix, KeepTopics: keep, DrainTimeout: drain}
		if tty {
			opts.Progress = func(s loadgen.Second) { fmt.Fprintf(stderr, "\r\033[K%s", trial.ProgressLine(s, total)) }
		}
		res, err := trial.Run(ctx, trial.Config{
			Spec: spec, Target: tgt.target, Load: opts, Criteria: *crit, KafkaVersion: tgt.kafkaVersion(),
			Probe: tgt.probeConfig(),
		})
		if tty {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			return runErr(err)
		}
		if out != "" {
			if err := res.WriteDir(out); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
		}
		if asJSON {
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				return err
			}
		} else if err := res.WriteSummary(cmd.OutOrStdout()); err != nil {
			return err
		}
		if out != "" && !asJSON {
			fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s/result.json, timeline.csv, histograms.hlog, probe.json\n", out)
		}
		return verdictExit(res.Verdict)
	}
	return cmd
}

// verdictExit maps a verdict to the documented exit codes, silently: the summary said it.
func verdictExit(v verdict.Verdict) error {
	switch v.State {
	case verdict.Overloaded:
		return &cliError{code: ExitOverloaded, err: errors.New("overloaded"), silent: true}
	case verdict.Invalid:
		return &cliError{code: ExitInvalid, err: errors.New("invalid"), silent: true}
	}
	return nil
}

// runErr gives the load generator's input errors exit code 2.
func runErr(err error) error {
	switch {
	case errors.Is(err, loadgen.ErrTopicsExist):
		return &cliError{code: ExitUsage, err: err, hint: "pick another --topic-prefix, or delete those topics if they are left from an earlier run"}
	case errors.Is(err, loadgen.ErrUnknownProperty), errors.Is(err, loadgen.ErrBadProperty), errors.Is(err, loadgen.ErrBadPrefix):
		return usageErr(err)
	}
	return err
}

func validPrefix(p string) bool {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	last := p[len(p)-1]
	return len(p) >= 2 && (last == '-' || last == '.')
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
