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

	"github.com/plimsoll/plimsoll/report"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/units"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() { subcommands = append(subcommands, newClusterCmd) }

func newClusterCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run a real Apache Kafka cluster on this machine (start, stop, break it)",
		Long: `cluster starts real Apache Kafka brokers (KRaft, one JVM each; or, for Kafka 3.x with
--metadata zookeeper, brokers beside one ZooKeeper server) on free loopback ports, with
the Prometheus JMX exporter on each broker. Jars come from Maven Central through Maven and are
cached per version in ~/.cache/plimsoll/kafka/VERSION. The cluster keeps running after the
command returns; its state lives in --cluster-dir.`,
		Example: `  plimsoll cluster up                          # 3 brokers, Kafka 4.1.0
  plimsoll cluster up --brokers 5 --kafka-version 3.9.1 --heap 512m
  plimsoll cluster up --nic 16Mbit/s                 # each broker behind its own shaped link
  PLIMSOLL_SASL_PASSWORD=secret plimsoll cluster up --tls --sasl-user bench   # + SSL, SASL listeners
  plimsoll cluster shape 2 8Mbit/s                   # make broker 2 slow
  plimsoll cluster status --json
  plimsoll cluster pause 2 && sleep 30 && plimsoll cluster resume 2
  plimsoll cluster down`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&dir, "cluster-dir", localkafka.DefaultDir(), "`DIR` holding the cluster's state, configs, logs and data ($PLIMSOLL_CLUSTER_DIR); run and limit take the same flag")
	pf.StringVar(&dir, "dir", localkafka.DefaultDir(), "the former name of --cluster-dir")
	formerName(pf, "dir", "--dir is the former name of --cluster-dir, as run and limit call it")
	cmd.AddCommand(newClusterUpCmd(&dir), newClusterStatusCmd(&dir), newClusterDownCmd(&dir), newClusterShapeCmd(&dir))
	for _, f := range []struct{ use, short, example string }{
		{"kill", "Kill one broker with SIGKILL (a crash); restart brings it back", "  plimsoll cluster kill 2"},
		{"pause", "Freeze one broker with SIGSTOP (a hung JVM); resume continues it", "  plimsoll cluster pause 3"},
		{"resume", "Continue a paused broker with SIGCONT", "  plimsoll cluster resume 3"},
		{"restart", "Stop one broker (gracefully, then by force) and start it again on the same data", "  plimsoll cluster restart 1"},
		{"cut", "Take one broker's emulated data link down (a pulled cable; needs cluster up --nic); reconnect brings it back", "  plimsoll cluster cut 2"},
		{"reconnect", "Bring a cut broker's emulated data link up again", "  plimsoll cluster reconnect 2"},
	} {
		cmd.AddCommand(newClusterFaultCmd(&dir, f.use, f.short, f.example))
	}
	return cmd
}

func newClusterUpCmd(dir *string) *cobra.Command {
	uf := &clusterUpFlags{}
	var om *outputMode
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a local Kafka cluster and wait until every broker is registered",
		Long: `up starts the cluster and waits until every broker is registered. Each broker has a PLAINTEXT
client listener (also used for replication); --tls and --sasl-user add secure client listeners
beside it:

  --tls                SSL: a throwaway CA and broker certificate (IP SANs) in DIR/tls;
                       clients trust DIR/tls/ca.pem (plimsoll run --tls-ca)
  --tls-client-auth    the SSL listener requires a client certificate (DIR/tls/client.pem,
                       client-key.pem)
  --sasl-user USER     SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for USER, the
                       password read from $PLIMSOLL_SASL_PASSWORD (--sasl-password-env)
  both                 also SASL_SSL
  --authorizer         Kafka's StandardAuthorizer: clients of the secure listeners may do only
                       what ACLs allow; the PLAINTEXT listener's anonymous clients (loopback)
                       are the super user, to add ACLs with

` + "`plimsoll cluster status`" + ` prints each secure listener's bootstrap and the run flags that reach it.`,
		Example: `  plimsoll cluster up
  plimsoll cluster up --brokers 3 --kafka-version 3.9.1 --heap 768m --cluster-dir /tmp/kafka-a
  plimsoll cluster up --kafka-version 3.9.1 --metadata zookeeper --cluster-dir /tmp/kafka-zk
  PLIMSOLL_SASL_PASSWORD=secret plimsoll cluster up --tls --sasl-user bench`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return uf.run(cmd, *dir, om.json) },
	}
	om = addOutputFlags(cmd, "the cluster as cluster status --json prints it (README)")
	uf.register(cmd.Flags())
	return cmd
}

// register declares cluster up's flags on f.
func (uf *clusterUpFlags) register(f *pflag.FlagSet) {
	o := &uf.o
	f.IntVar(&o.Brokers, "brokers", 3, "number of brokers (the first 3 also form the KRaft controller quorum)")
	f.StringVar(&o.KafkaVersion, "kafka-version", localkafka.DefaultKafkaVersion, "Apache Kafka release to run (3.3 or later; e.g. 4.1.0, 3.9.1)")
	f.StringVar(&o.Java, "java", "java", "java binary the brokers run on, e.g. /usr/lib/jvm/temurin-25-jdk-amd64/bin/java (default: the one on PATH)")
	f.StringVar(&o.Metadata, "metadata", localkafka.MetadataKRaft, "metadata `MODE`: kraft, or zookeeper (Kafka 3.x only: brokers beside one ZooKeeper server from Kafka's own jars)")
	f.StringVar(&o.Heap, "heap", "1g", "JVM heap of each broker (-Xms/-Xmx), e.g. 512m, 1g")
	f.DurationVar(&uf.timeout, "timeout", 3*time.Minute, "how long to wait for every broker to register")
	f.DurationVar(&uf.warm, "warm-jit", trial.DefaultWarmJIT, "drive a moderate load this long once the brokers are up, so their JVMs compile before anything is measured (0: none; docs/warmup.md)")
	f.StringVar(&uf.nic, "nic", "", "emulate a NIC of this rate per direction for each broker, e.g. 16Mbit/s (network namespaces; needs root, ip, tc)")
	f.StringArrayVar(&uf.extra, "broker-config", nil, "set a server.properties entry on every broker, key=value (repeatable)")
	f.StringVar(&o.Subnet, "subnet", localkafka.DefaultSubnet, "IPv4 /24 for the emulated NICs (the next /24 carries metrics, unshaped)")
	f.BoolVar(&o.Security.TLS, "tls", false, "add an SSL client listener on each broker (certificates from a throwaway CA in DIR/tls; SASL_SSL too with --sasl-user)")
	f.BoolVar(&o.Security.ClientAuth, "tls-client-auth", false, "the SSL listener requires a client certificate (mutual TLS; DIR/tls/client.pem and client-key.pem)")
	f.StringVar(&o.Security.SASLUser, "sasl-user", "", "add a SASL_PLAINTEXT client listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) for this user")
	f.BoolVar(&o.Security.Authorizer, "authorizer", false, "turn on Kafka's StandardAuthorizer: secure listeners' clients may do only what ACLs allow (PLAINTEXT's anonymous clients are the super user)")
	f.StringVar(&uf.saslPassEnv, "sasl-password-env", "PLIMSOLL_SASL_PASSWORD", "environment variable holding the --sasl-user password (never a flag: it would show in ps)")
}

// run starts the cluster the flags describe in dir, warms its JVMs and prints its status.
func (uf *clusterUpFlags) run(cmd *cobra.Command, dir string, asJSON bool) error {
	o, err := uf.options(dir)
	if err != nil {
		return err
	}
	o.Log = cmd.ErrOrStderr()
	ctx, cancel := interruptible()
	defer cancel()
	c, err := localkafka.Up(ctx, o)
	if err != nil {
		return clusterErr(err)
	}
	if err := warmUp(ctx, c, o.Security, uf.warm, cmd.ErrOrStderr()); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v; the cluster is up, but its first trials will measure brokers that are still compiling\n", err)
	}
	return printStatus(cmd, c.Status(), asJSON)
}

// warmUp warms a new cluster's JVMs for d through PLAINTEXT or, when the cluster has secure
// listeners, half of d through PLAINTEXT and half through secureWarm's listener: a broker warmed
// over PLAINTEXT alone compiles its TLS and SASL code inside the first secure trial's window.
func warmUp(ctx context.Context, c *localkafka.State, sec localkafka.Security, d time.Duration, log io.Writer) error {
	plain := trial.LocalWhere(c)
	secure, note := secureWarm(c, sec)
	if note != "" && d > 0 {
		fmt.Fprintf(log, "note: %s\n", note)
	}
	if secure == nil {
		return trial.WarmLocal(ctx, plain, d, log)
	}
	if err := trial.WarmLocal(ctx, plain, d/2, log); err != nil {
		return err
	}
	return trial.WarmLocal(ctx, secure, d-d/2, log)
}

// secureWarm is the secure listener whose load compiles the most of a secure trial's code
// (SASL_SSL: TLS and SASL; else SSL; else SASL_PLAINTEXT), with what reaching it takes; nil, and
// a note saying why, when the cluster's authorizer would refuse the load (no ACLs yet).
func secureWarm(c *localkafka.State, sec localkafka.Security) (*trial.Where, string) {
	ls := map[string]localkafka.ListenerStatus{}
	for _, l := range c.SecureListeners() {
		ls[l.Name] = l
	}
	if len(ls) == 0 {
		return nil, ""
	}
	if sec.Authorizer {
		return nil, "the warm-up went through PLAINTEXT only: the authorizer refuses the secure listeners' clients until ACLs allow them, so a first trial through one measures its TLS and SASL code compiling"
	}
	for _, name := range []string{localkafka.ListenerSASLSSL, localkafka.ListenerSSL, localkafka.ListenerSASLPlain} {
		l, ok := ls[name]
		if !ok {
			continue
		}
		mech := ""
		if l.SASLUser != "" {
			mech = "scram-sha-512"
		}
		w := trial.LocalWhere(c)
		if err := secureListener(c, name, mech, sec.SASLPassword)(w); err != nil {
			return nil, err.Error()
		}
		return w, ""
	}
	return nil, ""
}

// clusterUpFlags are `plimsoll cluster up`'s flags beyond the options they fill directly.
type clusterUpFlags struct {
	o           localkafka.Options
	timeout     time.Duration
	warm        time.Duration
	nic         string
	extra       []string
	saslPassEnv string
}

// options checks the flags and completes the cluster's options for dir.
func (uf *clusterUpFlags) options(dir string) (localkafka.Options, error) {
	o := uf.o
	o.Dir, o.StartTimeout = dir, uf.timeout
	if o.Security.SASLUser != "" {
		o.Security.SASLPassword = os.Getenv(uf.saslPassEnv)
		if o.Security.SASLPassword == "" {
			return o, usageErrf("--sasl-user %s: the password environment variable %s is empty; set it or name another with --sasl-password-env", o.Security.SASLUser, uf.saslPassEnv)
		}
	}
	if uf.nic != "" {
		r, err := units.ParseRate(uf.nic)
		if err != nil {
			return o, usageErrf("--nic: %v", err)
		}
		if r <= 0 {
			return o, usageErrf("--nic %q: give a positive rate per direction, e.g. 16Mbit/s or 1Gbit/s", uf.nic)
		}
		o.NIC = r
	}
	for _, kv := range uf.extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return o, usageErrf("--broker-config %q: give key=value, e.g. replica.lag.time.max.ms=10000", kv)
		}
		if o.ExtraConfig == nil {
			o.ExtraConfig = map[string]string{}
		}
		o.ExtraConfig[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := o.Validate(); err != nil {
		return o, usageErr(err)
	}
	return o, nil
}

// freeSubnetHint names a /24 free for emulated NICs now, or says how to find one.
func freeSubnetHint() string {
	s, err := localkafka.FreeSubnet()
	if err != nil {
		return "see `ip -o addr show`"
	}
	return s
}

// clusterErr adds the fix for the errors a user can act on.
func clusterErr(err error) error {
	switch {
	case errors.Is(err, localkafka.ErrRunning):
		return &cliError{code: ExitOK, err: err, hint: "use `plimsoll cluster status` to see it, or `plimsoll cluster down` first"}
	case errors.Is(err, localkafka.ErrNoNIC):
		return &cliError{code: ExitError, err: err, hint: "run as root with iproute2 installed, or leave out --nic to use loopback"}
	case errors.Is(err, localkafka.ErrSubnetUsed):
		return &cliError{code: ExitError, err: err, hint: "pick another --subnet (a free one: " + freeSubnetHint() + "), or stop the cluster that holds it"}
	case errors.Is(err, localkafka.ErrNoSuchKafka):
		return usageErr(err)
	case errors.Is(err, localkafka.ErrNoCluster), errors.Is(err, localkafka.ErrNoBroker):
		return usageErr(err)
	}
	return err
}

func newClusterStatusCmd(dir *string) *cobra.Command {
	var om *outputMode
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "Show the local cluster's brokers, addresses, metrics URLs and liveness",
		Example: "  plimsoll cluster status\n  plimsoll cluster status --json | jq -r .bootstrap",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := localkafka.Open(*dir)
			if err != nil {
				return clusterErr(err)
			}
			return printStatus(cmd, c.Status(), om.json)
		},
	}
	om = addOutputFlags(cmd, "the brokers, addresses, metrics URLs, liveness and secure listeners (schema in the README)")
	return cmd
}

// printStatus prints the cluster's status as a table or, asJSON, as JSON.
func printStatus(cmd *cobra.Command, s localkafka.Status, asJSON bool) error {
	if asJSON {
		return printJSON(cmd.OutOrStdout(), s)
	}
	report.ClusterStatus(cmd.OutOrStdout(), s)
	return nil
}

func newClusterDownCmd(dir *string) *cobra.Command {
	var keep bool
	var timeout time.Duration
	var om *outputMode
	cmd := &cobra.Command{
		Use:     "down",
		Short:   "Stop every broker (SIGTERM, then SIGKILL after --timeout) and remove the data",
		Example: "  plimsoll cluster down\n  plimsoll cluster down --keep-data   # `cluster up` resumes it later",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := localkafka.Down(*dir, keep, timeout)
			if errors.Is(err, localkafka.ErrNoCluster) {
				return usageErrf("no cluster in %s: nothing to stop, nothing was changed (give the cluster's --cluster-dir, or see `plimsoll cluster status`)", *dir)
			}
			if err != nil {
				return clusterErr(err)
			}
			if om.json {
				return printJSON(cmd.OutOrStdout(), clusterDown{Dir: c.Dir, Brokers: len(c.Brokers), KeptData: keep})
			}
			what := "removed its data"
			if keep {
				what = "kept its data"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stopped %s in %s and %s\n", units.Plural(len(c.Brokers), "broker"), c.Dir, what)
			return nil
		},
	}
	om = addOutputFlags(cmd, `{"dir", "brokers": how many were stopped, "kept_data"}`)
	cmd.Flags().BoolVar(&keep, "keep-data", false, "keep configs and data so that cluster up starts the same cluster again")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "grace period for a controlled shutdown before SIGKILL")
	return cmd
}

// clusterDown is `plimsoll cluster down --json`.
type clusterDown struct {
	Dir      string `json:"dir"`
	Brokers  int    `json:"brokers"`
	KeptData bool   `json:"kept_data"`
}

// brokerAction is the --json of a command acting on one broker (kill, pause, resume, restart,
// shape): the broker, the action and, for shape, the NIC rate set.
type brokerAction struct {
	Broker         int32   `json:"broker"`
	Action         string  `json:"action"`
	NICBytesPerSec float64 `json:"nic_bytes_per_sec,omitempty"`
}

func newClusterFaultCmd(dir *string, use, short, example string) *cobra.Command {
	var om *outputMode
	cmd := &cobra.Command{
		Use:     use + " BROKER_ID",
		Short:   short,
		Example: example,
		Args:    argsNamed(1, "BROKER_ID", "a broker id as shown by plimsoll cluster status"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 32)
			if err != nil {
				return usageErrf("BROKER_ID %q: give a broker id number as shown by `plimsoll cluster status`", args[0])
			}
			c, err := localkafka.Open(*dir)
			if err != nil {
				return clusterErr(err)
			}
			switch use {
			case "kill":
				err = c.Kill(int32(id))
			case "pause":
				err = c.Pause(int32(id))
			case "resume":
				err = c.Resume(int32(id))
			case "cut":
				err = c.Cut(int32(id))
			case "reconnect":
				err = c.Reconnect(int32(id))
			case "restart":
				ctx, cancel := interruptible()
				defer cancel()
				err = c.Restart(ctx, int32(id), 30*time.Second)
			}
			if err != nil {
				return clusterErr(err)
			}
			if om.json {
				return printJSON(cmd.OutOrStdout(), brokerAction{Broker: int32(id), Action: use})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "broker %d: %s done\n", id, use)
			return nil
		},
	}
	om = addOutputFlags(cmd, `{"broker", "action"}`)
	return cmd
}

func newClusterShapeCmd(dir *string) *cobra.Command {
	var om *outputMode
	cmd := &cobra.Command{
		Use:     "shape BROKER_ID RATE",
		Short:   "Change one broker's emulated NIC rate at run time (a slow broker)",
		Example: "  plimsoll cluster shape 2 8Mbit/s",
		Args:    argsNamed(2, "BROKER_ID RATE", "a broker id as shown by plimsoll cluster status and its new NIC rate per direction"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 32)
			if err != nil {
				return usageErrf("BROKER_ID %q: give a broker id number as shown by `plimsoll cluster status`", args[0])
			}
			rate, err := units.ParseRate(args[1])
			if err != nil {
				return usageErrf("RATE: %v", err)
			}
			if rate <= 0 {
				return usageErrf("RATE %q: give a positive rate per direction, e.g. 8Mbit/s", args[1])
			}
			c, err := localkafka.Open(*dir)
			if err != nil {
				return clusterErr(err)
			}
			if err := c.Shape(int32(id), rate); err != nil {
				return usageErr(err)
			}
			if om.json {
				return printJSON(cmd.OutOrStdout(), brokerAction{Broker: int32(id), Action: "shape", NICBytesPerSec: rate})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "broker %d: NIC now %s per direction\n", id, units.FormatBits(rate))
			return nil
		},
	}
	om = addOutputFlags(cmd, `{"broker", "action": "shape", "nic_bytes_per_sec"}`)
	return cmd
}
