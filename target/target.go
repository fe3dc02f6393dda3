package target

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid target")

// Target is a Kafka cluster to drive.
type Target struct {
	// Bootstrap lists host:port seeds, like Kafka's bootstrap.servers.
	Bootstrap []string `json:"bootstrap"`
	// TLS, when non-nil, encrypts every connection (security.protocol SSL or SASL_SSL).
	TLS *TLS `json:"tls,omitempty"`
	// SASL, when non-nil, authenticates every connection.
	SASL *SASL `json:"sasl,omitempty"`
	// MetricsURLs are the brokers' Prometheus endpoints (the JMX exporter agent), by broker
	// id when known. Empty means metrics are not available; Kafka metadata still is.
	MetricsURLs map[int32]string `json:"metrics_urls,omitempty"`
	// Local is true for a cluster started by plimsoll on this host (co-located runs).
	Local bool `json:"local"`
}

// TLS holds the files for an encrypted connection. Empty CAFile means the system roots.
type TLS struct {
	CAFile     string `json:"ca_file,omitempty"`
	CertFile   string `json:"cert_file,omitempty"`
	KeyFile    string `json:"key_file,omitempty"`
	ServerName string `json:"server_name,omitempty"`
}

// SASL holds credentials. Mechanism is one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512.
type SASL struct {
	Mechanism string `json:"mechanism"`
	User      string `json:"user"`
	Password  string `json:"-"` // never written to results
}

// Mechanisms lists the accepted SASL mechanisms, as Kafka's sasl.mechanism spells them.
var Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// ParseBootstrap splits a comma-separated host:port list, as Kafka's bootstrap.servers.
func ParseBootstrap(s string) ([]string, error) {
	var out []string
	for _, hp := range strings.Split(s, ",") {
		hp = strings.TrimSpace(hp)
		if hp == "" {
			continue
		}
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("%w: bootstrap server %q is not host:port (e.g. broker1:9092)", ErrInvalid, hp)
		}
		out = append(out, hp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no bootstrap servers given (e.g. --bootstrap broker1:9092,broker2:9092)", ErrInvalid)
	}
	return out, nil
}

// Protocol is the security.protocol the target's connections use: PLAINTEXT, SSL,
// SASL_PLAINTEXT or SASL_SSL.
func (t Target) Protocol() string {
	switch {
	case t.TLS != nil && t.SASL != nil:
		return "SASL_SSL"
	case t.TLS != nil:
		return "SSL"
	case t.SASL != nil:
		return "SASL_PLAINTEXT"
	}
	return "PLAINTEXT"
}

// Validate checks the target without contacting it.
func (t Target) Validate() error {
	if len(t.Bootstrap) == 0 {
		return fmt.Errorf("%w: no bootstrap servers", ErrInvalid)
	}
	if t.TLS != nil {
		if (t.TLS.CertFile == "") != (t.TLS.KeyFile == "") {
			return fmt.Errorf("%w: --tls-cert and --tls-key must be given together", ErrInvalid)
		}
		for _, f := range []struct{ flag, path string }{{"--tls-ca", t.TLS.CAFile}, {"--tls-cert", t.TLS.CertFile}, {"--tls-key", t.TLS.KeyFile}} {
			if f.path == "" {
				continue
			}
			if _, err := os.Stat(f.path); err != nil {
				return fmt.Errorf("%w: %s %s: %v", ErrInvalid, f.flag, f.path, err)
			}
		}
	}
	if t.SASL != nil {
		ok := false
		for _, m := range Mechanisms {
			if strings.EqualFold(t.SASL.Mechanism, m) {
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("%w: --sasl-mechanism %q is not one of plain, scram-sha-256, scram-sha-512", ErrInvalid, t.SASL.Mechanism)
		}
		if t.SASL.User == "" {
			return fmt.Errorf("%w: --sasl-user is required with --sasl-mechanism", ErrInvalid)
		}
	}
	return nil
}

// ClientOpts returns the franz-go options that connect to the target.
func (t Target) ClientOpts() ([]kgo.Opt, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(t.Bootstrap...)}
	if t.TLS != nil {
		cfg, err := t.TLS.config()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if t.SASL != nil {
		switch strings.ToUpper(t.SASL.Mechanism) {
		case "PLAIN":
			opts = append(opts, kgo.SASL(plain.Auth{User: t.SASL.User, Pass: t.SASL.Password}.AsMechanism()))
		case "SCRAM-SHA-256":
			opts = append(opts, kgo.SASL(scram.Auth{User: t.SASL.User, Pass: t.SASL.Password}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			opts = append(opts, kgo.SASL(scram.Auth{User: t.SASL.User, Pass: t.SASL.Password}.AsSha512Mechanism()))
		}
	}
	// Fail fast on an unreachable cluster rather than Kafka's minute-long defaults.
	opts = append(opts, kgo.DialTimeout(5*time.Second))
	return opts, nil
}

func (t *TLS) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%w: --tls-ca: %v", ErrInvalid, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: --tls-ca %s holds no PEM certificate", ErrInvalid, t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: --tls-cert/--tls-key: %v", ErrInvalid, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
