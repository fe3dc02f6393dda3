package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/units"
)

// ClusterStatus writes `plimsoll cluster status` for people: the cluster, each broker, and the
// run flags that reach each secure listener.
func ClusterStatus(w io.Writer, s localkafka.Status) {
	state := "running"
	if s.Stopped {
		state = "stopped (data kept; `plimsoll cluster up` starts it again)"
	}
	fmt.Fprintf(w, "Kafka %s cluster in %s: %s\nbootstrap: %s\n", s.KafkaVersion, s.Dir, state, s.Bootstrap)
	if z := s.ZooKeeper; z != nil {
		fmt.Fprintf(w, "metadata: ZooKeeper at %s (pid %d, %s; log %s)\n", z.Address, z.PID, z.State, z.Log)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BROKER\tPID\tSTATE\tADDRESS\tMETRICS\tROLE\tNIC")
	for _, b := range s.Brokers {
		role := "broker"
		if b.Controller {
			role = "broker+controller"
		}
		nic := "loopback"
		if b.NICBytesPerSec > 0 {
			nic = units.FormatBits(b.NICBytesPerSec) + " (" + b.Netns + ")"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", b.ID, b.PID, b.State, b.Address, b.MetricsURL, role, nic)
	}
	tw.Flush()
	if len(s.SecureListeners) > 0 {
		fmt.Fprintln(w, "\nsecure client listeners (plimsoll run flags):")
		for _, l := range s.SecureListeners {
			fmt.Fprintf(w, "  %-15s %s\n", l.Name, strings.Join(runFlags(l), " "))
		}
	}
}

// runFlags are the `plimsoll run` flags that reach a secure listener (the SASL password comes
// from $PLIMSOLL_SASL_PASSWORD, as for the cluster).
func runFlags(l localkafka.ListenerStatus) []string {
	f := []string{"--bootstrap", l.Bootstrap}
	if l.CAFile != "" {
		f = append(f, "--tls-ca", l.CAFile)
	}
	if l.ClientCert != "" {
		f = append(f, "--tls-cert", l.ClientCert, "--tls-key", l.ClientKey)
	}
	if l.SASLUser != "" {
		f = append(f, "--sasl-mechanism", "scram-sha-512", "--sasl-user", l.SASLUser)
	}
	return f
}
