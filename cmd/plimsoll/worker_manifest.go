package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plimsoll/plimsoll/fleet/launch"
	"github.com/spf13/cobra"
)

const workerManifestLong = `manifest prints what starts a run's N workers (docs/workers.md, "Launching workers"): a
Kubernetes Indexed Job (--format yaml, the default: kubectl apply -f -) or one shell line per
worker (--format shell, for ssh or systemd). Both run the same worker command line. Nothing
secret is written: with TLS files or SASL the Job reads them from the Kubernetes Secret
--secret names, and a shell line names the password's variable, never the password.`

// manifestFormats are manifest's --format values.
var manifestFormats = []string{"yaml", "shell"}

func newWorkerManifestCmd() *cobra.Command {
	mf := &manifestFlags{}
	cmd := &cobra.Command{
		Use:   "manifest",
		Short: "Print the Kubernetes Job, or the shell lines, that start a run's workers",
		Long:  workerManifestLong,
		Example: `  plimsoll worker manifest --workers 3 --run-id 20261127t040000-cd34 --image plimsoll:v1.0.0 --duration 90s --bootstrap kafka:9092 | kubectl apply -f -
  plimsoll worker manifest --format shell --workers 3 --run-id 20261127t040000-cd34 --bootstrap kafka:9092
  plimsoll worker manifest --workers 20 --search l1a2b3c-081500 --image plimsoll:v1.0.0 --duration 2h --bootstrap kafka:9092`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return mf.print(cmd.OutOrStdout()) },
	}
	fs := cmd.Flags()
	fs.StringVar(&mf.format, "format", "yaml", "what to print: yaml (a Kubernetes Indexed Job) or shell (one line per worker)")
	fs.IntVar(&mf.spec.Workers, "workers", 0, "N, the number of workers (required)")
	fs.StringVar(&mf.spec.RunID, "run-id", "", "the run the workers join: the id the coordinator printed (this or --search)")
	fs.StringVar(&mf.search, "search", "", "instead of --run-id, the limit search the workers follow through all its trials: the `SEARCH_ID` limit --workers printed")
	fs.StringVar(&mf.spec.Image, "image", "", "the Job's container image, holding plimsoll of the coordinator's version (required for yaml)")
	fs.StringVar(&mf.spec.Name, "name", "", "the Job's name (default plimsoll-RUN_ID)")
	fs.StringVar(&mf.spec.Namespace, "namespace", "", "the Job's namespace (default: none written, kubectl's current one)")
	fs.StringVar(&mf.spec.Secret, "secret", "", "the Kubernetes Secret holding the target's TLS files and SASL password (keys ca.crt, tls.crt, tls.key, sasl-password)")
	fs.StringVar(&mf.spec.Requests.CPU, "cpu-request", "", "each worker's CPU request, e.g. 2 or 500m")
	fs.StringVar(&mf.spec.Requests.Memory, "memory-request", "", "each worker's memory request, e.g. 2Gi")
	fs.StringVar(&mf.spec.Limits.CPU, "cpu-limit", "", "each worker's CPU limit (a limit below what a worker uses shows as schedule delay)")
	fs.StringVar(&mf.spec.Limits.Memory, "memory-limit", "", "each worker's memory limit")
	fs.DurationVar(&mf.spec.Duration, "duration", 0, "the run's expected duration, coordinator start to end (a limit search's whole search); required for yaml")
	fs.DurationVar(&mf.spec.Margin, "margin", 0, fmt.Sprintf("added to --duration for the Job's deadline (0: %s)", launch.DefaultMargin))
	fs.DurationVar(&mf.spec.TTL, "ttl", 0, fmt.Sprintf("how long Kubernetes keeps the finished Job and its pods' logs (0: %s)", launch.DefaultTTL))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(manifestFormats, cobra.ShellCompDirectiveNoFileComp))
	mf.target = addWorkerTargetFlags(fs)
	return cmd
}

// manifestFlags are manifest's command line: a launch.Spec and the format.
type manifestFlags struct {
	format string
	search string // --search: the spec's RunID is a search's
	spec   launch.Spec
	target *targetFlags
}

// launchSpec is the spec the flags give, the target's flags copied in.
func (mf *manifestFlags) launchSpec() launch.Spec {
	s := mf.spec
	t := mf.target
	s.Target = launch.Target{Bootstrap: t.bootstrap, TLS: t.tls, CAFile: t.tlsCA, CertFile: t.tlsCert, KeyFile: t.tlsKey,
		SASLMechanism: t.saslMech, SASLUser: t.saslUser}
	if t.saslMech != "" {
		s.Target.SASLPasswordEnv = t.saslPassEnv
	}
	return s
}

// print writes the Job or the shell lines; bad flags are usage errors naming the fix.
func (mf *manifestFlags) print(out io.Writer) error {
	switch {
	case mf.search != "" && mf.spec.RunID != "":
		return usageErrf("--run-id and --search together: give --run-id for one run's workers, --search for a limit search's")
	case mf.search != "":
		mf.spec.RunID, mf.spec.Search = mf.search, true
	}
	s := mf.launchSpec()
	var b []byte
	var err error
	switch mf.format {
	case "yaml":
		b, err = launch.Manifest(s)
	case "shell":
		var lines []string
		lines, err = launch.Lines(s)
		b = []byte(strings.Join(lines, "\n") + "\n")
	default:
		return usageErrf("--format %q: give one of %s", mf.format, strings.Join(manifestFormats, ", "))
	}
	if errors.Is(err, launch.ErrSpec) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}
