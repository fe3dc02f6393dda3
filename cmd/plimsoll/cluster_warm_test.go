package main

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
)

// TestSecureWarm: a cluster with secure listeners is warmed through the one whose load compiles
// the most of a secure trial's code (SASL_SSL, else SSL, else SASL_PLAINTEXT), with the CA, the
// client certificate SSL requires and the SASL password; PLAINTEXT alone without secure
// listeners, or with the authorizer on, which says why.
func TestSecureWarm(t *testing.T) {
	ports := map[string]int{localkafka.ListenerSSL: 9094, localkafka.ListenerSASLPlain: 9095, localkafka.ListenerSASLSSL: 9096}
	state := func(sec *localkafka.Security) *localkafka.State {
		return &localkafka.State{Dir: "/tmp/c", Security: sec, Brokers: []*localkafka.Broker{
			{ID: 1, Host: "127.0.0.1", Port: 9092, SecurePorts: ports}, {ID: 2, Host: "127.0.0.2", Port: 9092, SecurePorts: ports}}}
	}
	for _, c := range []struct {
		name      string
		sec       *localkafka.Security
		protocol  string // "": no secure warm-up
		bootstrap string
		note      string
	}{
		{"plaintext only", nil, "", "", ""},
		{"tls and sasl", &localkafka.Security{TLS: true, SASLUser: "bench", SASLPassword: "pw"}, "SASL_SSL", "127.0.0.1:9096,127.0.0.2:9096", ""},
		{"tls", &localkafka.Security{TLS: true, ClientAuth: true}, "SSL", "127.0.0.1:9094,127.0.0.2:9094", ""},
		{"sasl", &localkafka.Security{SASLUser: "bench", SASLPassword: "pw"}, "SASL_PLAINTEXT", "127.0.0.1:9095,127.0.0.2:9095", ""},
		{"authorizer", &localkafka.Security{TLS: true, SASLUser: "bench", SASLPassword: "pw", Authorizer: true}, "", "", "the authorizer refuses"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sec localkafka.Security
			if c.sec != nil {
				sec = *c.sec
			}
			w, note := secureWarm(state(c.sec), sec)
			if !strings.Contains(note, c.note) || (c.note == "") != (note == "") {
				t.Errorf("note %q, want one saying %q", note, c.note)
			}
			if c.protocol == "" {
				if w != nil {
					t.Errorf("warmed through %s, want PLAINTEXT only", w.Target.Protocol())
				}
				return
			}
			if w == nil {
				t.Fatalf("no secure warm-up, want %s", c.protocol)
			}
			tg := w.Target
			if tg.Protocol() != c.protocol || strings.Join(tg.Bootstrap, ",") != c.bootstrap {
				t.Errorf("warmed through %s at %v, want %s at %s", tg.Protocol(), tg.Bootstrap, c.protocol, c.bootstrap)
			}
			if tg.TLS != nil && (tg.TLS.CAFile == "" || (c.sec.ClientAuth && tg.TLS.CertFile == "")) {
				t.Errorf("TLS %+v: want the cluster's CA, and its client certificate where SSL requires one", *tg.TLS)
			}
			if tg.SASL != nil && (tg.SASL.User != "bench" || tg.SASL.Password != "pw" || tg.SASL.Mechanism != "SCRAM-SHA-512") {
				t.Errorf("SASL %+v: want bench's SCRAM-SHA-512 credentials", *tg.SASL)
			}
			if len(tg.MetricsURLs) != 2 || w.Local == nil {
				t.Errorf("metrics %v, local cluster %v: want the brokers' endpoints and processes kept", tg.MetricsURLs, w.Local)
			}
		})
	}
}
