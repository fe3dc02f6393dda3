package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/spf13/cobra"
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
	// metrics is compare's Prometheus endpoint (--metrics-listen), fed by every repetition; nil
	// when it is off.
	metrics *promexport.Exporter
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

// deniedErr explains a run the cluster refused for want of an ACL (exit 2: the cluster's
// settings are the input to fix), naming the ACL that lets plimsoll's topics be written.
func (t *targetFlags) deniedErr(err error, prefix string) error {
	var de *loadgen.DeniedError
	if !errors.As(err, &de) {
		return err
	}
	principal := "User:" + t.saslUser
	if t.saslUser == "" {
		principal = "PRINCIPAL (the principal plimsoll connects as: its client certificate's subject, or User:ANONYMOUS on PLAINTEXT)"
	}
	return &cliError{code: ExitUsage, err: fmt.Errorf("%w; nothing of the run is left on the cluster", err), hint: fmt.Sprintf(
		"allow %s %s on plimsoll's topics, e.g. kafka-acls.sh --bootstrap-server %s --command-config ADMIN.properties --add --allow-principal %s --operation %s --topic %s --resource-pattern-type prefixed; a run needs Create, Describe, Write, Read and Delete on those topics, and Read on groups with that prefix",
		principal, de.Op, cmp.Or(t.bootstrap, "BOOTSTRAP"), principal, de.Op, cmp.Or(prefix, "plimsoll-"))}
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
	msFlag(fs, &c.PublishP99SLOMs, "slo-p99", "overloaded when p99 publish latency exceeds this, e.g. 1s or 250ms (0 = off)")
	fs.Float64Var(&c.MinHandlerIdle, "min-handler-idle", c.MinHandlerIdle, "overloaded when a broker's request handlers are idle less than this share (0 = off)")
	fs.Float64Var(&c.MaxISRShare, "max-isr-share", c.MaxISRShare, "overloaded when ISR changes or under-replication occur in more than this share of seconds (0 = off)")
	fs.BoolVar(&c.ProduceErrors, "fail-on-produce-errors", c.ProduceErrors, "overloaded on any failed produce")
	secFlag(fs, &c.SilentSeconds, "silent-broker", "invalid when a broker answers no metrics scrape for this long in a row during the window: paused, hung or cut off (0 = off)")
	secFlag(fs, &c.MaxRecoverySeconds, "fault-max-recovery", "with --fault: overloaded when the run's partitions take longer than this after a fault ends to have their full ISR again (0 = only never within 2 minutes)")
	msFlag(fs, &c.ScheduleP99Ms, "client-max-schedule-delay", "invalid (client-bound) when the generator's p99 schedule delay exceeds this while its buffers had room (0 = off)")
	fs.Float64Var(&c.ClientMaxCPU, "client-max-cpu", c.ClientMaxCPU, "invalid (client-bound) when plimsoll uses more than this share of its usable cores, or, short of its target, wanted it (CPU plus run-queue wait) and needed it for the target rate (0 = off)")
	msFlag(fs, &c.ClientMaxLateMs, "client-max-late", "invalid (client-bound) when the p99 schedule delay exceeds this with buffers free, whatever the run-queue wait (0 = off)")
	fs.Float64Var(&c.ClientStarvedWait, "client-starved-wait", c.ClientStarvedWait, "a smaller lateness is client-bound only if plimsoll's threads waited for a CPU at least this many seconds per CPU second")
	fs.Float64Var(&c.ClientMinWaitS, "client-min-wait", c.ClientMinWaitS, "... and at least this many seconds per second")
	msFlag(fs, &c.ClientSchedP99Ms, "client-sched-p99", "invalid (client-bound) when plimsoll's goroutines wait longer than this for a Go scheduler thread (p99 over the window; 0 = off)")
	fs.Float64Var(&c.MaxBufferFullShare, "max-buffer-full-share", c.MaxBufferFullShare, "a late generator that waited for buffer space more than this share of the window was held back by the cluster, not short of CPU")
	fs.Float64Var(&c.HostBusy, "host-busy", c.HostBusy, "a co-located host busier than this share is saturated: by the brokers (overloaded) or by other processes (invalid); 0 = off")
	fs.Float64Var(&c.HostOursShare, "host-ours-share", c.HostOursShare, "a saturated host is busy with other processes when the brokers and plimsoll use less than this share of its busy cores")
	fs.Float64Var(&c.HostSqueezeShare, "host-squeeze-share", c.HostSqueezeShare, "a co-located generator behind its schedule, its threads starved for a CPU while it used at most this share of the CPU it and the brokers used, was squeezed by the brokers (overloaded, host-cpu), not client-bound; 0 = off")
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
		{"--host-busy", c.HostBusy}, {"--host-ours-share", c.HostOursShare}, {"--host-squeeze-share", c.HostSqueezeShare}, {"--min-bottleneck-utilisation", c.MinBottleneckUtil},
		{"--client-window-share", c.ClientWindowShare}, {"--client-full-batch-share", c.ClientFullBatchShare}} {
		if f.v < 0 || f.v > 1 {
			return usageErrf("%s %v: give a share between 0 and 1 (0 switches the criterion off)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"--client-starved-wait", c.ClientStarvedWait}, {"--client-min-wait", c.ClientMinWaitS},
		{"--link-drops-per-sec", c.LinkDropsPerSec}, {"--link-retrans-per-sec", c.LinkRetransPerSec}} {
		if f.v < 0 {
			return usageErrf("%s %v: give a positive number, or 0", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		ms   float64
	}{{"--slo-p99", c.PublishP99SLOMs}, {"--client-max-schedule-delay", c.ScheduleP99Ms}, {"--client-max-late", c.ClientMaxLateMs}, {"--client-sched-p99", c.ClientSchedP99Ms}} {
		if f.ms < 0 { // only through a former name: the durations refuse it as they are parsed
			return usageErrf("%s %s: give a positive duration, e.g. 250ms, or 0 to switch it off", f.name, msString(f.ms))
		}
	}
	return nil
}

// msDuration is a latency criterion given as a duration (1s, 250ms) and kept in milliseconds,
// the unit the criteria record (verdict.Criteria's *_ms fields).
type msDuration struct{ ms *float64 }

func msString(ms float64) string { return time.Duration(ms * float64(time.Millisecond)).String() }

func (d msDuration) String() string { return msString(*d.ms) }
func (d msDuration) Type() string   { return "duration" }
func (d msDuration) Set(s string) error {
	v, err := parseCriterionDuration(s)
	if err == nil {
		*d.ms = float64(v) / float64(time.Millisecond)
	}
	return err
}

// parseCriterionDuration parses a criterion's duration: a unit is required, 0 switches it off.
func parseCriterionDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "missing unit"):
		return 0, fmt.Errorf("a duration needs a unit: %sms or %ss, say (0 switches it off)", s, s)
	case err != nil:
		return 0, fmt.Errorf("give a duration such as 1s or 250ms (0 switches it off)")
	case v < 0:
		return 0, fmt.Errorf("give a positive duration such as 250ms, or 0 to switch it off")
	}
	return v, nil
}

// secDuration is a criterion given as a duration (60s, 2m) and kept in seconds, the unit the
// criteria record it in (verdict.Criteria's *_s fields).
type secDuration struct{ s *float64 }

func (d secDuration) String() string {
	return time.Duration(*d.s * float64(time.Second)).String()
}
func (d secDuration) Type() string { return "duration" }
func (d secDuration) Set(s string) error {
	v, err := parseCriterionDuration(s)
	if err == nil {
		*d.s = v.Seconds()
	}
	return err
}

// secFlag registers a criterion kept in seconds as the duration flag name.
func secFlag(fs *pflag.FlagSet, s *float64, name, usage string) { fs.Var(secDuration{s}, name, usage) }

// msFlag registers a latency criterion as the duration flag name and, hidden, under its former
// name name-ms, which took a number of milliseconds and still does (with a note on stderr).
func msFlag(fs *pflag.FlagSet, ms *float64, name, usage string) {
	fs.Var(msDuration{ms}, name, usage)
	old := name + "-ms"
	fs.Float64Var(ms, old, *ms, "the former name of --"+name+", in milliseconds")
	formerName(fs, old, fmt.Sprintf("--%s is the former name of --%s, which takes a duration: --%s 250 is --%s 250ms", old, name, old, name))
}

// formerKey is the pflag annotation of a flag kept under its former name: the note to print
// when it is given.
const formerKey = "plimsoll_former"

// formerName hides the flag old, kept so that scripts still work, and notes it on stderr when
// given (noteFormerNames).
func formerName(fs *pflag.FlagSet, old, note string) {
	_ = fs.MarkHidden(old)
	_ = fs.SetAnnotation(old, formerKey, []string{note})
}

// noteFormerNames makes every runnable command under c print, before it runs, a note on stderr
// for each former flag name given: on stderr, so that it never lands in --json output.
func noteFormerNames(c *cobra.Command) {
	if c.Runnable() {
		prev := c.PreRun
		c.PreRun = func(cmd *cobra.Command, args []string) {
			if prev != nil {
				prev(cmd, args) // --quiet's streams first: the note is one it lets through
			}
			cmd.Flags().Visit(func(f *pflag.Flag) {
				if note := f.Annotations[formerKey]; len(note) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", note[0])
				}
			})
		}
	}
	for _, sub := range c.Commands() {
		noteFormerNames(sub)
	}
}
