package target

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestExplain(t *testing.T) {
	tgt := Target{Bootstrap: []string{"b1:9093"}, TLS: &TLS{CAFile: "/x/ca.pem"}, SASL: &SASL{Mechanism: "scram-sha-512", User: "bench"}}
	// franz-go wraps the broker's error code with its message, and the TLS handshake's error in a dial error.
	authErr := fmt.Errorf("%w: %s", kerr.SaslAuthenticationFailed, "invalid credentials")
	certErr := fmt.Errorf("unable to dial: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}})
	hostErr := fmt.Errorf("unable to dial: %w", &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: &x509.Certificate{DNSNames: []string{"localhost"}}, Host: "b1"}})
	other := errors.New("dial tcp: connection refused")
	cases := []struct {
		name string
		err  error
		is   error
		want []string
	}{
		{"auth", authErr, ErrAuth, []string{"authentication failed", `"bench"`, "SCRAM-SHA-512", "b1:9093", "invalid credentials"}},
		{"mechanism", fmt.Errorf("x: %w", kerr.UnsupportedSaslMechanism), ErrAuth, []string{"does not accept SASL mechanism SCRAM-SHA-512"}},
		{"unknown ca", certErr, ErrCertificate, []string{"not signed by /x/ca.pem", "certificate"}},
		{"hostname", hostErr, ErrCertificate, []string{"not valid for that address", "localhost"}},
		{"client cert", fmt.Errorf("unable to dial: %w", &net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")}), ErrCertificate, []string{"requires a client certificate", "--tls-cert"}},
		{"other", other, nil, []string{"connection refused"}},
	}
	for _, c := range cases {
		got := tgt.Explain(c.err)
		if c.is != nil && !errors.Is(got, c.is) {
			t.Errorf("%s: %v is not %v", c.name, got, c.is)
		}
		if c.is == nil && got != c.err {
			t.Errorf("%s: changed to %v", c.name, got)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%s: the cause is lost: %v", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
	if Explain := (Target{}).Explain(nil); Explain != nil {
		t.Errorf("Explain(nil) = %v", Explain)
	}
}
