package target

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// ErrAuth means the cluster refused the SASL credentials (or the mechanism).
var ErrAuth = errors.New("authentication failed")

// ErrCertificate means the client did not trust the brokers' TLS certificate, or the brokers
// did not accept the client's.
var ErrCertificate = errors.New("TLS certificate not trusted")

// Explain classifies an error from a first connection to the target: authentication failures
// wrap ErrAuth and certificate failures ErrCertificate, each with a message naming the setting
// involved. Other errors are returned unchanged.
func (t Target) Explain(err error) error {
	if err == nil {
		return nil
	}
	at := strings.Join(t.Bootstrap, ",")
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		user, mech := "", ""
		if t.SASL != nil {
			user, mech = t.SASL.User, strings.ToUpper(t.SASL.Mechanism)
		}
		return fmt.Errorf("%w: the cluster at %s refused SASL user %q with mechanism %s (wrong user or password?): %w", ErrAuth, at, user, mech, err)
	case errors.Is(err, kerr.UnsupportedSaslMechanism), errors.Is(err, kerr.IllegalSaslState):
		mech := ""
		if t.SASL != nil {
			mech = strings.ToUpper(t.SASL.Mechanism)
		}
		return fmt.Errorf("%w: the cluster at %s does not accept SASL mechanism %s: %w", ErrAuth, at, mech, err)
	}
	// The broker refused the handshake for want of a client certificate it trusts (TLS 1.3
	// certificate_required, TLS 1.2 bad_certificate). crypto/tls reports an alert received
	// from the peer as a net.OpError "remote error" around an unexported type.
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" && op.Err != nil &&
		(strings.Contains(op.Err.Error(), "certificate required") || strings.Contains(op.Err.Error(), "bad certificate")) {
		return fmt.Errorf("%w: the broker at %s requires a client certificate signed by its CA (--tls-cert, --tls-key): %w", ErrCertificate, at, err)
	}
	var verr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &host):
		return fmt.Errorf("%w: the certificate of the broker at %s is not valid for that address (%v); connect by a name or IP the certificate lists: %w", ErrCertificate, at, host.Certificate.DNSNames, err)
	case errors.As(err, &unknown):
		ca := "the system's root CAs"
		if t.TLS != nil && t.TLS.CAFile != "" {
			ca = t.TLS.CAFile
		}
		return fmt.Errorf("%w: the brokers' certificate at %s is not signed by %s: %w", ErrCertificate, at, ca, err)
	case errors.As(err, &invalid), errors.As(err, &verr):
		return fmt.Errorf("%w: the brokers' certificate at %s: %w", ErrCertificate, at, err)
	}
	return err
}
