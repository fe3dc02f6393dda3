package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/spf13/pflag"
)

// workloadFlags are the workload settings shared by run and limit: a file, and one flag per
// workload field (workload.Fields), applied on top of the file in the order given.
type workloadFlags struct {
	fs       *pflag.FlagSet
	file     string
	driver   string
	repeated map[string]*[]string
}

func addWorkloadFlags(fs *pflag.FlagSet, skip ...string) *workloadFlags {
	defer inGroup(fs, "workload")()
	w := &workloadFlags{fs: fs, repeated: map[string]*[]string{}}
	fs.StringVar(&w.file, "workload", "", "workload file: plimsoll YAML, or an OpenMessaging Benchmark workload YAML (run unchanged)")
	fs.StringVar(&w.driver, "driver", "", "OpenMessaging Benchmark Kafka driver YAML (replicationFactor, topicConfig, producerConfig, ...)")
outer:
	for _, f := range workload.Fields() {
		for _, s := range skip {
			if f.Flag == s {
				continue outer
			}
		}
		if f.Repeatable {
			w.repeated[f.Flag] = fs.StringArray(f.Flag, nil, f.Usage+" (repeatable)")
		} else {
			fs.String(f.Flag, f.Default, f.Usage)
		}
	}
	return w
}

// spec builds the workload: defaults, then the file, then every flag the user gave.
func (w *workloadFlags) spec() (workload.Spec, error) {
	s := workload.Default()
	var err error
	switch {
	case w.driver != "" && w.file == "":
		return s, usageErrf("--driver needs --workload (an OpenMessaging Benchmark workload file)")
	case w.driver != "":
		s, err = workload.LoadOMB(w.file, w.driver)
	case w.file != "":
		s, err = workload.Load(w.file)
	}
	if err != nil {
		return s, usageErr(err)
	}
	var setErr error
	w.fs.Visit(func(f *pflag.Flag) {
		if setErr != nil {
			return
		}
		if vals, ok := w.repeated[f.Name]; ok {
			for _, v := range *vals {
				if err := s.Set(f.Name, v); err != nil {
					setErr = err
					return
				}
			}
			return
		}
		if isWorkloadField(f.Name) {
			setErr = s.Set(f.Name, f.Value.String())
		}
	})
	if setErr != nil {
		return s, usageErr(setErr)
	}
	if err := s.Validate(); err != nil {
		return s, usageErr(err)
	}
	return s, nil
}

func isWorkloadField(name string) bool {
	for _, f := range workload.Fields() {
		if f.Flag == name {
			return true
		}
	}
	return false
}

// targetFlags say where the load goes: --bootstrap (a user's cluster) or the local cluster.
type targetFlags struct {
	bootstrap, tlsCA, tlsCert, tlsKey, saslMech, saslUser, saslPassEnv string
	tls                                                                bool
	metricsURLs                                                        []string
	clusterDir                                                         string
	nic, diskWrite                                                     string
	// observeOnly: never start a local cluster (watch observes one that runs).
	observeOnly bool
	// ab is set when the A/B driver runs the command in-process (nil otherwise).
	ab *abHook
}

// abHook lets the A/B driver (compare --a/--b) steer a run or limit it runs in-process.
type abHook struct {
	// checkOnly: validate the flags and the workload, then return before touching a cluster.
	checkOnly bool
	// adjust changes the resolved local cluster, e.g. to reach it through a secure listener.
	adjust func(*trial.Where) error
}

// checkOnly reports whether the driver only wants the flags checked.
func (t *targetFlags) checkOnly() bool { return t.ab != nil && t.ab.checkOnly }

func addTargetFlags(fs *pflag.FlagSet) *targetFlags {
	defer func() {
		for _, n := range []string{"tls", "tls-ca", "tls-cert", "tls-key", "sasl-mechanism", "sasl-user", "sasl-password-env"} {
			_ = fs.SetAnnotation(n, flagGroupKey, []string{"security"})
		}
	}()
	defer inGroup(fs, "target")()
	t := &targetFlags{}
	fs.StringVar(&t.bootstrap, "bootstrap", "", "bootstrap servers host:port,... of your cluster; without it, the local cluster of plimsoll cluster (started if none is up)")
	fs.BoolVar(&t.tls, "tls", false, "connect with TLS (security.protocol SSL/SASL_SSL)")
	fs.StringVar(&t.tlsCA, "tls-ca", "", "PEM file of the CA that signed the brokers' certificates (implies --tls)")
	fs.StringVar(&t.tlsCert, "tls-cert", "", "PEM client certificate for mutual TLS (with --tls-key)")
	fs.StringVar(&t.tlsKey, "tls-key", "", "PEM client key for mutual TLS")
	fs.StringVar(&t.saslMech, "sasl-mechanism", "", "SASL mechanism: plain, scram-sha-256 or scram-sha-512")
	fs.StringVar(&t.saslUser, "sasl-user", "", "SASL user name")
	fs.StringVar(&t.saslPassEnv, "sasl-password-env", "PLIMSOLL_SASL_PASSWORD", "environment variable holding the SASL password (never a flag: it would show in ps)")
	fs.StringArrayVar(&t.metricsURLs, "metrics-url", nil, "a broker's Prometheus endpoint as ID=URL, e.g. 1=http://broker1:7071/metrics (repeatable; local clusters are automatic)")
	fs.StringVar(&t.clusterDir, "cluster-dir", localkafka.DefaultDir(), "directory of the local cluster used without --bootstrap")
	fs.StringVar(&t.nic, "nic", "", "each broker's network capacity per direction, e.g. 10Gbit/s, for the USE table (automatic for emulated NICs)")
	fs.StringVar(&t.diskWrite, "disk-write", "", "each broker's disk write capacity, e.g. 500MB/s, for the USE table")
	return t
}

// resolve validates the target flags and, without --bootstrap, opens (or starts) the local
// cluster. Call release when done: it stops a cluster this command started.
func (t *targetFlags) resolve(ctx context.Context, log io.Writer) (*trial.Where, error) {
	var nic, disk float64
	for _, c := range []struct {
		flag, val string
		dst       *float64
	}{{"--nic", t.nic, &nic}, {"--disk-write", t.diskWrite, &disk}} {
		if c.val == "" {
			continue
		}
		v, err := units.ParseRate(c.val)
		if err != nil {
			return nil, usageErrf("%s: %v", c.flag, err)
		}
		if v <= 0 {
			return nil, usageErrf("%s %q: give a positive rate, e.g. 1Gbit/s or 500MB/s", c.flag, c.val)
		}
		*c.dst = v
	}
	w, err := t.where(ctx, log)
	if err != nil {
		return nil, err
	}
	if t.ab != nil && t.ab.adjust != nil {
		if err := t.ab.adjust(w); err != nil {
			return nil, err
		}
	}
	if nic > 0 {
		w.NIC = nic
	}
	w.DiskWrite = disk
	if w.Local == nil && len(w.Target.MetricsURLs) == 0 {
		fmt.Fprintln(log, "warning: no --metrics-url: the USE table will have no broker rows, and the verdict can judge the brokers (request handlers, replication, ISR metrics) and name a broker bottleneck only from what it sees without them; give each broker's Prometheus endpoint as --metrics-url ID=URL")
	}
	return w, nil
}

func (t *targetFlags) where(ctx context.Context, log io.Writer) (*trial.Where, error) {
	if t.bootstrap == "" {
		if t.tls || t.tlsCA != "" || t.saslMech != "" || len(t.metricsURLs) > 0 {
			return nil, usageErrf("--tls, --sasl-* and --metrics-url need --bootstrap (without it the local cluster is used over PLAINTEXT, its metrics automatic; for the TLS/SASL listeners of `plimsoll cluster up --tls/--sasl-user`, give the --bootstrap that `plimsoll cluster status` prints)")
		}
		open := func() (*trial.Where, error) { return trial.OpenLocal(ctx, t.clusterDir, log) }
		if t.observeOnly {
			open = func() (*trial.Where, error) { return trial.OpenRunning(t.clusterDir, log) }
		}
		w, err := open()
		if errors.Is(err, localkafka.ErrNoCluster) {
			return nil, usageErrf("no local cluster in %s, and watch starts none (it observes traffic, it makes none): start one with `plimsoll cluster up --cluster-dir %s`, or give --bootstrap and --metrics-url for yours", t.clusterDir, t.clusterDir)
		}
		if errors.Is(err, trial.ErrStopped) {
			return nil, usageErrf("the local cluster in %s is stopped: start it with `plimsoll cluster up --cluster-dir %s`", t.clusterDir, t.clusterDir)
		}
		if err != nil {
			return nil, clusterErr(err)
		}
		return w, nil
	}
	tg, err := t.target()
	if err != nil {
		return nil, err
	}
	w, err := trial.Remote(ctx, tg)
	if err != nil {
		return nil, t.reachErr(err)
	}
	return w, nil
}

// target is the user's cluster as the flags describe it.
func (t *targetFlags) target() (target.Target, error) {
	var tg target.Target
	bs, err := target.ParseBootstrap(t.bootstrap)
	if err != nil {
		return tg, usageErr(fmt.Errorf("--bootstrap: %w", err))
	}
	tg.Bootstrap = bs
	if t.tls || t.tlsCA != "" || t.tlsCert != "" {
		tg.TLS = &target.TLS{CAFile: t.tlsCA, CertFile: t.tlsCert, KeyFile: t.tlsKey}
	}
	if t.saslMech != "" {
		tg.SASL = &target.SASL{Mechanism: t.saslMech, User: t.saslUser, Password: os.Getenv(t.saslPassEnv)}
		if tg.SASL.Password == "" {
			return tg, usageErrf("--sasl-mechanism: the password environment variable %s is empty; set it or name another with --sasl-password-env", t.saslPassEnv)
		}
	}
	for _, m := range t.metricsURLs {
		id, url, ok := strings.Cut(m, "=")
		n, err := strconv.ParseInt(id, 10, 32)
		if !ok || err != nil || !strings.HasPrefix(url, "http") {
			return tg, usageErrf("--metrics-url %q: give BROKER_ID=URL, e.g. 1=http://broker1:7071/metrics", m)
		}
		if tg.MetricsURLs == nil {
			tg.MetricsURLs = map[int32]string{}
		}
		tg.MetricsURLs[int32(n)] = url
	}
	return tg, nil
}

// reachErr explains a first contact that failed: refused credentials and untrusted certificates
// are bad input (exit 2) with a hint naming the flags, and the password variable, that fix them.
func (t *targetFlags) reachErr(err error) error {
	switch {
	case errors.Is(err, target.ErrAuth):
		return &cliError{code: ExitUsage, err: err,
			hint: fmt.Sprintf("check --sasl-user, --sasl-mechanism (plain, scram-sha-256, scram-sha-512) and the password in $%s (or name another variable with --sasl-password-env)", t.saslPassEnv)}
	case errors.Is(err, target.ErrCertificate):
		return &cliError{code: ExitUsage, err: err,
			hint: "give the CA that signed the brokers' certificates with --tls-ca, and a client certificate with --tls-cert/--tls-key where the brokers require one (a local cluster started with --tls keeps them in DIR/tls; `plimsoll cluster status` shows the flags)"}
	case errors.Is(err, target.ErrNotKafka):
		return &cliError{code: ExitUsage, err: err,
			hint: "--bootstrap must name Kafka brokers' client listeners, host:port (the port of a PLAINTEXT, SSL or SASL listener in the brokers' `listeners`, often 9092), not another service's port"}
	case errors.Is(err, target.ErrUnreachable):
		return withHint(err, "check --bootstrap, the network, and --tls/--sasl-* settings (an authentication failure shows here too)")
	}
	return usageErr(err)
}

// release stops the local cluster if this command started it.
func release(w *trial.Where, log io.Writer) {
	if err := w.Release(); err != nil {
		fmt.Fprintf(log, "warning: stopping the local cluster: %v\n", err)
	}
}

// addCriteriaFlags registers the verdict's criteria with their documented defaults.
func addCriteriaFlags(fs *pflag.FlagSet) *verdict.Criteria {
	defer inGroup(fs, "criteria")()
	c := verdict.DefaultCriteria()
	fs.Float64Var(&c.MinAchieved, "min-achieved", c.MinAchieved, "overloaded when produced msgs/s fall below this share of the target (0 = off)")
	fs.Float64Var(&c.MaxLagGrowth, "max-lag-growth", c.MaxLagGrowth, "overloaded when consumer backlog grows faster than this share of the rate per second (0 = off)")
	fs.Float64Var(&c.MinReplicated, "min-replicated", c.MinReplicated, "overloaded when the followers fetch less than this share of what the leaders appended (replication falls behind; 0 = off)")
	fs.Float64Var(&c.PublishP99SLOMs, "slo-p99-ms", c.PublishP99SLOMs, "overloaded when p99 publish latency exceeds this many ms (0 = off)")
	fs.Float64Var(&c.MinHandlerIdle, "min-handler-idle", c.MinHandlerIdle, "overloaded when a broker's request handlers are idle less than this share (0 = off)")
	fs.Float64Var(&c.MaxISRShare, "max-isr-share", c.MaxISRShare, "overloaded when ISR changes or under-replication occur in more than this share of seconds (0 = off)")
	fs.BoolVar(&c.ProduceErrors, "fail-on-produce-errors", c.ProduceErrors, "overloaded on any failed produce")
	fs.Float64Var(&c.ScheduleP99Ms, "client-max-schedule-delay-ms", c.ScheduleP99Ms, "invalid (client-bound) when the generator's p99 schedule delay exceeds this many ms while its buffers had room (0 = off)")
	fs.Float64Var(&c.ClientMaxCPU, "client-max-cpu", c.ClientMaxCPU, "invalid (client-bound) when plimsoll uses more than this share of its usable cores (0 = off)")
	fs.Float64Var(&c.ClientMaxLateMs, "client-max-late-ms", c.ClientMaxLateMs, "invalid (client-bound) when the p99 schedule delay exceeds this many ms with buffers free, whatever the run-queue wait (0 = off)")
	fs.Float64Var(&c.ClientStarvedWait, "client-starved-wait", c.ClientStarvedWait, "a smaller lateness is client-bound only if plimsoll's threads waited for a CPU at least this many seconds per CPU second")
	fs.Float64Var(&c.ClientMinWaitS, "client-min-wait", c.ClientMinWaitS, "... and at least this many seconds per second")
	fs.Float64Var(&c.ClientSchedP99Ms, "client-sched-p99-ms", c.ClientSchedP99Ms, "invalid (client-bound) when plimsoll's goroutines wait longer than this for a Go scheduler thread (p99 over the window, ms; 0 = off)")
	fs.Float64Var(&c.MaxBufferFullShare, "max-buffer-full-share", c.MaxBufferFullShare, "a late generator that waited for buffer space more than this share of the window was held back by the cluster, not short of CPU")
	fs.Float64Var(&c.HostBusy, "host-busy", c.HostBusy, "a co-located host busier than this share is saturated: by the brokers (overloaded) or by other processes (invalid); 0 = off")
	fs.Float64Var(&c.HostOursShare, "host-ours-share", c.HostOursShare, "a saturated host is busy with other processes when the brokers and plimsoll use less than this share of its busy cores")
	fs.Float64Var(&c.MinBottleneckUtil, "min-bottleneck-utilisation", c.MinBottleneckUtil, "never name a resource below this share of its capacity the bottleneck (the bottleneck is then unknown)")
	fs.Float64Var(&c.LinkDropsPerSec, "link-drops-per-sec", c.LinkDropsPerSec, "in an overloaded trial, an emulated link whose shaper drops at least this many packets/s is the bottleneck (0 = off)")
	fs.Float64Var(&c.LinkRetransPerSec, "link-retrans-per-sec", c.LinkRetransPerSec, "... or out of whose broker TCP retransmits at least this many segments/s (0 = off)")
	fs.Float64Var(&c.ClientWindowShare, "client-window-share", c.ClientWindowShare, "invalid (client-bound) when a run fell short while a producer's produce-request window to a broker was full at least this share of the time and no broker resource reached --min-bottleneck-utilisation (0 = off)")
	fs.Float64Var(&c.ClientFullBatchShare, "client-full-batch-share", c.ClientFullBatchShare, "... and at least this share of its batches had no room for another record")
	return &c
}

func checkCriteria(c *verdict.Criteria) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--min-achieved", c.MinAchieved}, {"--max-lag-growth", c.MaxLagGrowth}, {"--min-replicated", c.MinReplicated}, {"--min-handler-idle", c.MinHandlerIdle},
		{"--max-isr-share", c.MaxISRShare}, {"--client-max-cpu", c.ClientMaxCPU}, {"--max-buffer-full-share", c.MaxBufferFullShare},
		{"--host-busy", c.HostBusy}, {"--host-ours-share", c.HostOursShare}, {"--min-bottleneck-utilisation", c.MinBottleneckUtil},
		{"--client-window-share", c.ClientWindowShare}, {"--client-full-batch-share", c.ClientFullBatchShare}} {
		if f.v < 0 || f.v > 1 {
			return usageErrf("%s %v: give a share between 0 and 1 (0 switches the criterion off)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"--client-max-schedule-delay-ms", c.ScheduleP99Ms}, {"--client-max-late-ms", c.ClientMaxLateMs}, {"--client-sched-p99-ms", c.ClientSchedP99Ms},
		{"--client-starved-wait", c.ClientStarvedWait}, {"--client-min-wait", c.ClientMinWaitS},
		{"--link-drops-per-sec", c.LinkDropsPerSec}, {"--link-retrans-per-sec", c.LinkRetransPerSec}} {
		if f.v < 0 {
			return usageErrf("%s %v: give a positive number, or 0", f.name, f.v)
		}
	}
	if c.PublishP99SLOMs < 0 {
		return usageErrf("--slo-p99-ms %v: give a positive number of milliseconds, or 0 for no SLO", c.PublishP99SLOMs)
	}
	return nil
}
