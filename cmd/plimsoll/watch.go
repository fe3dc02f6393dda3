package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/watch"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newWatchCmd) }

const watchLong = `watch observes a cluster under its own traffic and generates none: it creates no topic and no
group, and sends Kafka nothing but Metadata requests for the brokers. Every --interval it prints
the USE table of every broker (from each broker's Prometheus endpoint, and /proc for a local
cluster), each broker's traffic from Kafka's own BrokerTopicMetrics, how far each resource is
from its ceiling (the verdict's --host-busy and --min-handler-idle, the --nic and --disk-write
capacities), the capacity model's view of the same traffic (as model --against: which broker
carries more than its share, and whether leader skew explains it) and the busiest broker.

Without --bootstrap it watches the local cluster in --cluster-dir, which must be running (watch
starts none). With --bootstrap, give each broker's endpoint with --metrics-url.
It runs until --for has passed or it is interrupted (Ctrl-C, SIGTERM), then exits 0.`

func newWatchCmd() *cobra.Command {
	var (
		interval, forDur time.Duration
		asJSON           bool
	)
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Observe a cluster under its own traffic: USE, headroom, the busiest broker and the model's view, every interval",
		Long:  watchLong,
		Example: `  plimsoll watch
  plimsoll watch --interval 30s --for 1h --json > watch.jsonl
  plimsoll watch --bootstrap b1:9092 --metrics-url 1=http://b1:7071/metrics --metrics-url 2=http://b2:7071/metrics \
      --metrics-url 3=http://b3:7071/metrics --nic 10Gbit/s`,
		Args: cobra.NoArgs,
	}
	tf := addTargetFlags(cmd.Flags())
	tf.observeOnly = true
	cmd.Flags().Lookup("bootstrap").Usage = "bootstrap servers host:port,... of your cluster (with --metrics-url); without it, the running local cluster in --cluster-dir"
	crit := verdict.DefaultCriteria()
	f := cmd.Flags()
	func() {
		defer inGroup(f, "criteria")()
		f.Float64Var(&crit.MinHandlerIdle, "min-handler-idle", crit.MinHandlerIdle, "the request handlers' ceiling: busy at most 1 minus this share")
		f.Float64Var(&crit.HostBusy, "host-busy", crit.HostBusy, "a broker JVM's CPU ceiling, as a share of its machine's cores")
	}()
	f.DurationVar(&interval, "interval", 10*time.Second, fmt.Sprintf("how often to summarise (at least %v: the probe samples once a second)", watch.MinInterval))
	f.DurationVar(&forDur, "for", 0, "stop after this long (0: until interrupted)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per interval (fields in docs/use.md)")
	mf := addMetricsFlags(f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := watchConfig(tf, crit, interval, forDur)
		if err != nil {
			return err
		}
		exp, stopMetrics, err := mf.open(cmd.ErrOrStderr(), nil)
		if err != nil {
			return err
		}
		defer stopMetrics()
		ctx, cancel := interruptible()
		defer cancel()
		return runWatch(ctx, tf, cfg, watchOut{cmd.OutOrStdout(), cmd.ErrOrStderr(), asJSON, watchMetrics(exp)})
	}
	return cmd
}

// watchConfig checks watch's own flags before anything is contacted.
func watchConfig(tf *targetFlags, crit verdict.Criteria, interval, forDur time.Duration) (watch.Config, error) {
	switch {
	case interval < watch.MinInterval:
		return watch.Config{}, usageErrf("--interval %v: give at least %v (the probe samples once a second), e.g. --interval 10s", interval, watch.MinInterval)
	case forDur < 0:
		return watch.Config{}, usageErrf("--for %v: give a positive duration, or 0 to watch until interrupted", forDur)
	case tf.bootstrap != "" && len(tf.metricsURLs) == 0:
		return watch.Config{}, usageErrf("--bootstrap without --metrics-url: watch reads each broker's traffic and utilisation from its Prometheus endpoint; give --metrics-url ID=URL for every broker (docs/metrics.md)")
	}
	def := verdict.DefaultCriteria()
	for _, c := range []struct {
		flag   string
		v, def float64
	}{{"--min-handler-idle", crit.MinHandlerIdle, def.MinHandlerIdle}, {"--host-busy", crit.HostBusy, def.HostBusy}} {
		if c.v < 0 || c.v > 1 {
			return watch.Config{}, usageErrf("%s %v: give a share between 0 and 1 (0 switches the ceiling off), e.g. %s %v", c.flag, c.v, c.flag, c.def)
		}
	}
	ceil := watch.Ceilings{CPU: 100 * crit.HostBusy}
	if crit.MinHandlerIdle > 0 {
		ceil.HandlerBusy = 100 * (1 - crit.MinHandlerIdle)
	}
	return watch.Config{Interval: interval, For: forDur, Ceilings: ceil}, nil
}

// watchOut is where watch's intervals go: stdout as text or JSON lines, and the metrics
// endpoint when there is one.
type watchOut struct {
	stdout, stderr io.Writer
	asJSON         bool
	metrics        *promexport.Watch // nil without --metrics-listen
}

// watchMetrics registers watch's metrics on exp's endpoint (nil without one).
func watchMetrics(exp *promexport.Exporter) *promexport.Watch {
	if exp == nil {
		return nil
	}
	w := promexport.NewWatch()
	if err := exp.Register(w); err != nil {
		panic(err) // the same collector twice on a fresh registry: a programming error
	}
	return w
}

// runWatch starts the probe on the cluster and prints each interval until cfg.For or ctx ends.
func runWatch(ctx context.Context, tf *targetFlags, cfg watch.Config, o watchOut) error {
	stdout, stderr, asJSON := o.stdout, o.stderr, o.asJSON
	tgt, err := tf.resolve(ctx, stderr)
	if err != nil {
		return err
	}
	pc := tgt.ProbeConfig()
	pc.Target = tgt.Target
	p, err := probe.Start(ctx, pc)
	if err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting: nothing was watched, nothing failed
		}
		return withHint(probeErr(err), "watch reads every broker's Prometheus endpoint: check --metrics-url (a local cluster's are in `plimsoll cluster status`) and that the brokers run")
	}
	defer p.Stop()
	// On stderr with --json too: stdout holds nothing but the intervals.
	fmt.Fprintf(stderr, "watching %s every %v%s; Ctrl-C stops\n", watchTarget(tf), cfg.Interval, watchFor(cfg.For))
	emit := func(iv watch.Interval) error {
		if o.metrics != nil {
			o.metrics.Set(iv)
		}
		if asJSON {
			return report.WatchJSON(stdout, iv)
		}
		return report.WatchText(stdout, iv)
	}
	return watch.Run(ctx, p, cfg, emit)
}

func watchTarget(tf *targetFlags) string {
	if tf.bootstrap != "" {
		return tf.bootstrap
	}
	return "the local cluster in " + tf.clusterDir
}

func watchFor(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(" for %v", d)
}
