package report

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
)

func TestRunFlags(t *testing.T) {
	got := strings.Join(runFlags(localkafka.ListenerStatus{Name: "SASL_SSL", Bootstrap: "h:1,h:2", CAFile: "/d/ca.pem",
		SASLUser: "bench", SASLMechanisms: localkafka.SASLMechanisms}), " ")
	if want := "--bootstrap h:1,h:2 --tls-ca /d/ca.pem --sasl-mechanism scram-sha-512 --sasl-user bench"; got != want {
		t.Errorf("runFlags = %q, want %q", got, want)
	}
	got = strings.Join(runFlags(localkafka.ListenerStatus{Name: "SSL", Bootstrap: "h:1", CAFile: "/d/ca.pem", ClientCert: "/d/c.pem", ClientKey: "/d/k.pem"}), " ")
	if want := "--bootstrap h:1 --tls-ca /d/ca.pem --tls-cert /d/c.pem --tls-key /d/k.pem"; got != want {
		t.Errorf("runFlags = %q, want %q", got, want)
	}
}
