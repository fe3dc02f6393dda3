package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
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
}

func addTargetFlags(fs *pflag.FlagSet) *targetFlags {
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

// resolved is a target ready for a run, and how to let go of it afterwards.
type resolved struct {
	target  target.Target
	local   *localkafka.State // nil for --bootstrap
	started bool              // this command started the local cluster
	nic     float64
	disk    float64
}

// resolve validates the target flags and, without --bootstrap, opens (or starts) the local
// cluster. Call release when done: it stops a cluster this command started.
func (t *targetFlags) resolve(ctx context.Context, log io.Writer) (*resolved, error) {
	r := &resolved{}
	for _, c := range []struct {
		flag, val string
		dst       *float64
	}{{"--nic", t.nic, &r.nic}, {"--disk-write", t.diskWrite, &r.disk}} {
		if c.val == "" {
			continue
		}
		v, err := units.ParseRate(c.val)
		if err != nil || v <= 0 {
			return nil, usageErrf("%s %q: give a positive rate, e.g. 1Gbit/s or 500MB/s", c.flag, c.val)
		}
		*c.dst = v
	}
	if t.bootstrap == "" {
		if t.tls || t.tlsCA != "" || t.saslMech != "" || len(t.metricsURLs) > 0 {
			return nil, usageErrf("--tls, --sasl-* and --metrics-url need --bootstrap (without it the local cluster is used over PLAINTEXT, its metrics automatic; for the TLS/SASL listeners of `plimsoll cluster up --tls/--sasl-user`, give the --bootstrap that `plimsoll cluster status` prints)")
		}
		c, err := localkafka.Open(t.clusterDir)
		if errors.Is(err, localkafka.ErrNoCluster) {
			fmt.Fprintf(log, "no local cluster in %s: starting one (it is stopped again afterwards)\n", t.clusterDir)
			c, err = localkafka.Up(ctx, localkafka.Options{Dir: t.clusterDir, Log: log})
			r.started = err == nil
		}
		if err != nil {
			return nil, clusterErr(err)
		}
		if c.Stopped {
			return nil, usageErrf("the local cluster in %s is stopped: start it with `plimsoll cluster up --dir %s`", t.clusterDir, t.clusterDir)
		}
		for _, b := range c.Status().Brokers {
			if !b.Alive {
				fmt.Fprintf(log, "warning: broker %d of the local cluster is %s\n", b.ID, b.State)
			}
		}
		r.local, r.target = c, c.Target()
		if c.NIC > 0 && r.nic == 0 {
			r.nic = c.NIC
		}
		return r, nil
	}
	bs, err := target.ParseBootstrap(t.bootstrap)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--bootstrap: %w", err))
	}
	r.target.Bootstrap = bs
	if t.tls || t.tlsCA != "" || t.tlsCert != "" {
		r.target.TLS = &target.TLS{CAFile: t.tlsCA, CertFile: t.tlsCert, KeyFile: t.tlsKey}
	}
	if t.saslMech != "" {
		r.target.SASL = &target.SASL{Mechanism: t.saslMech, User: t.saslUser, Password: os.Getenv(t.saslPassEnv)}
		if r.target.SASL.Password == "" {
			return nil, usageErrf("--sasl-mechanism: the password environment variable %s is empty; set it or name another with --sasl-password-env", t.saslPassEnv)
		}
	}
	for _, m := range t.metricsURLs {
		id, url, ok := strings.Cut(m, "=")
		n, err := strconv.ParseInt(id, 10, 32)
		if !ok || err != nil || !strings.HasPrefix(url, "http") {
			return nil, usageErrf("--metrics-url %q: give BROKER_ID=URL, e.g. 1=http://broker1:7071/metrics", m)
		}
		if r.target.MetricsURLs == nil {
			r.target.MetricsURLs = map[int32]string{}
		}
		r.target.MetricsURLs[int32(n)] = url
	}
	if err := r.target.Validate(); err != nil {
		return nil, usageErr(err)
	}
	if err := reachable(ctx, r.target, t.saslPassEnv); err != nil {
		return nil, err
	}
	return r, nil
}

// reachable fails within a bounded time when the cluster cannot be reached or authentication
// fails, before anything is created. Refused credentials and untrusted certificates are bad
// input (exit 2) with a hint naming the flags, and passEnv, that fix them.
func reachable(ctx context.Context, t target.Target, passEnv string) error {
	opts, err := t.ClientOpts()
	if err != nil {
		return usageErr(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return usageErr(err)
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).BrokerMetadata(mctx); err != nil {
		switch err := t.Explain(err); {
		case errors.Is(err, target.ErrAuth):
			return &cliError{code: ExitUsage, err: err,
				hint: fmt.Sprintf("check --sasl-user, --sasl-mechanism (plain, scram-sha-256, scram-sha-512) and the password in $%s (or name another variable with --sasl-password-env)", passEnv)}
		case errors.Is(err, target.ErrCertificate):
			return &cliError{code: ExitUsage, err: err,
				hint: "give the CA that signed the brokers' certificates with --tls-ca, and a client certificate with --tls-cert/--tls-key where the brokers require one (a local cluster started with --tls keeps them in DIR/tls; `plimsoll cluster status` shows the flags)"}
		}
		return withHint(fmt.Errorf("cannot reach the cluster at %s within 15s: %w", strings.Join(t.Bootstrap, ","), err),
			"check --bootstrap, the network, and --tls/--sasl-* settings (an authentication failure shows here too)")
	}
	return nil
}

// release stops the local cluster if this command started it.
func (r *resolved) release(log io.Writer) {
	if r != nil && r.started && r.local != nil {
		if _, err := localkafka.Down(r.local.Dir, false, 30*time.Second); err != nil {
			fmt.Fprintf(log, "warning: stopping the local cluster: %v\n", err)
		}
	}
}

// brokerPIDs lists the local cluster's JVMs for the probe.
func (r *resolved) brokerPIDs() map[int32]int {
	if r.local == nil {
		return nil
	}
	m := map[int32]int{}
	for _, b := range r.local.Brokers {
		if b.PID > 0 {
			m[b.ID] = b.PID
		}
	}
	return m
}

// handlerPools says, per local broker, how many request-handler pools mark its idle meter:
// 2 on plimsoll's combined broker+controller nodes, 1 on broker-only nodes.
func (r *resolved) handlerPools() map[int32]int {
	if r.local == nil {
		return nil
	}
	m := map[int32]int{}
	for _, b := range r.local.Brokers {
		m[b.ID] = 1
		if b.Controller {
			m[b.ID] = 2
		}
	}
	return m
}

// probeConfig is the probe's configuration for this target.
func (r *resolved) probeConfig() probe.Config {
	c := probe.Config{BrokerPIDs: r.brokerPIDs(), HandlerPoolsByBroker: r.handlerPools(), NICBytesPerSec: r.nic, DiskWriteBytesPerSec: r.disk}
	if r.local != nil && r.local.NIC > 0 {
		// Emulated NICs shape the brokers' links only; plimsoll's side (the bridge) is not
		// shaped, so the client host's capacity is its interfaces' own speed.
		c.NICBytesPerSec = 0
		c.NICByBroker = map[int32]float64{}
		for _, b := range r.local.Brokers {
			c.NICByBroker[b.ID] = b.NIC
		}
	}
	return c
}

// kafkaVersion is the local cluster's release, or "" to ask the cluster.
func (r *resolved) kafkaVersion() string {
	if r.local != nil {
		return r.local.KafkaVersion
	}
	return ""
}

// addCriteriaFlags registers the verdict's criteria with their documented defaults.
func addCriteriaFlags(fs *pflag.FlagSet) *verdict.Criteria {
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
	return &c
}

func checkCriteria(c *verdict.Criteria) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--min-achieved", c.MinAchieved}, {"--max-lag-growth", c.MaxLagGrowth}, {"--min-replicated", c.MinReplicated}, {"--min-handler-idle", c.MinHandlerIdle}, {"--max-isr-share", c.MaxISRShare}, {"--client-max-cpu", c.ClientMaxCPU}} {
		if f.v < 0 || f.v > 1 {
			return usageErrf("%s %v: give a share between 0 and 1 (0 switches the criterion off)", f.name, f.v)
		}
	}
	if c.ScheduleP99Ms < 0 {
		return usageErrf("--client-max-schedule-delay-ms %v: give a positive number of milliseconds, or 0", c.ScheduleP99Ms)
	}
	if c.PublishP99SLOMs < 0 {
		return usageErrf("--slo-p99-ms %v: give a positive number of milliseconds, or 0 for no SLO", c.PublishP99SLOMs)
	}
	return nil
}
