//go:build integration

package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
)

// TestSecureListeners starts a 1-broker cluster of its own with TLS (client certificates
// required on SSL) and SASL listeners, runs workloads through each with the right credentials,
// and checks that wrong ones fail fast with a clear error and leave nothing behind.
func TestSecureListeners(t *testing.T) {
	const password = "s3cret!pw"
	t.Setenv("PLIMSOLL_SASL_PASSWORD", password)
	dir := filepath.Join(t.TempDir(), "secure")
	stdout, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", dir, "--brokers", "1", "--heap", "512m", "--warm-jit", "0",
		"--tls", "--tls-client-auth", "--sasl-user", "bench")
	t.Cleanup(func() {
		if _, err := localkafka.Down(dir, false, 30*time.Second); err != nil {
			t.Errorf("stopping the secure cluster: %v", err)
		}
	})
	if code != 0 {
		t.Fatalf("cluster up: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "SASL_SSL") || !strings.Contains(stdout, "--tls-ca "+filepath.Join(dir, "tls", "ca.pem")) {
		t.Errorf("cluster up does not print the secure listeners' run flags:\n%s", stdout)
	}
	c, err := localkafka.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "cluster.json")); strings.Contains(string(data), password) {
		t.Error("cluster.json records the SASL password")
	}

	// status --json: one entry per secure listener with what run needs.
	stdout, stderr, code = plimsoll(t, "cluster", "status", "--json", "--cluster-dir", dir)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	var st localkafka.Status
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, stdout)
	}
	ls := map[string]localkafka.ListenerStatus{}
	for _, l := range st.SecureListeners {
		ls[l.Name] = l
	}
	ssl, saslPlain, saslSSL := ls["SSL"], ls["SASL_PLAINTEXT"], ls["SASL_SSL"]
	if len(ls) != 3 || ssl.CAFile == "" || ssl.ClientCert == "" || ssl.ClientKey == "" || saslPlain.SASLUser != "bench" ||
		saslSSL.CAFile == "" || saslSSL.SASLUser != "bench" || st.Bootstrap == ssl.Bootstrap {
		t.Fatalf("secure listeners in status --json: %+v", st.SecureListeners)
	}

	load := []string{"--rate", "300", "--message-size", "256", "--duration", "4s", "--warmup", "1s",
		"--replication-factor", "1", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true", "--slo-p99-ms", "0"}
	good := []struct {
		name string
		args []string
	}{
		{"mtls", []string{"--bootstrap", ssl.Bootstrap, "--tls-ca", ssl.CAFile, "--tls-cert", ssl.ClientCert, "--tls-key", ssl.ClientKey}},
		{"sasl-ssl-scram-512", []string{"--bootstrap", saslSSL.Bootstrap, "--tls-ca", saslSSL.CAFile, "--sasl-mechanism", "scram-sha-512", "--sasl-user", "bench"}},
		{"sasl-plain", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "plain", "--sasl-user", "bench"}},
		{"sasl-scram-256", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "scram-sha-256", "--sasl-user", "bench"}},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			prefix := "plimsoll-it-sec-" + tc.name + "-"
			args := append(append([]string{"run", "--topic-prefix", prefix, "--out", out}, tc.args...), load...)
			stdout, stderr, code := plimsoll(t, args...)
			if code != 0 && code != ExitOverloaded && code != ExitInvalid {
				t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			r := readResult(t, out)
			if r.Counts.Acked < 1000 || r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || r.Counts.Failed != 0 || r.Counts.Consumed < r.Counts.Acked {
				t.Errorf("counts %+v: want ~1500 acked, all consumed, none lost or duplicated", r.Counts)
			}
			if left := topicsWithPrefix(t, c, prefix); len(left) > 0 {
				t.Errorf("topics left after the run: %v", left)
			}
		})
	}

	bad := []struct {
		name     string
		args     []string
		password string
		want     []string
	}{
		{"wrong password plain", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "plain", "--sasl-user", "bench"}, "wrong",
			[]string{"authentication failed", `"bench"`, "PLIMSOLL_SASL_PASSWORD"}},
		{"wrong password scram", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "scram-sha-256", "--sasl-user", "bench"}, "wrong",
			[]string{"authentication failed", "SCRAM-SHA-256", "--sasl-password-env"}},
		{"unknown user over tls", []string{"--bootstrap", saslSSL.Bootstrap, "--tls-ca", saslSSL.CAFile, "--sasl-mechanism", "scram-sha-512", "--sasl-user", "nobody"}, password,
			[]string{"authentication failed", `"nobody"`, "--sasl-user"}},
		{"wrong ca", []string{"--bootstrap", ssl.Bootstrap, "--tls-ca", filepath.Join(writeOtherCA(t), "ca.pem"), "--tls-cert", ssl.ClientCert, "--tls-key", ssl.ClientKey}, password,
			[]string{"certificate", "unknown authority", "--tls-ca"}},
		{"no ca", []string{"--bootstrap", ssl.Bootstrap, "--tls", "--tls-cert", ssl.ClientCert, "--tls-key", ssl.ClientKey}, password,
			[]string{"certificate", "system's root CAs", "--tls-ca"}},
		{"no client certificate", []string{"--bootstrap", ssl.Bootstrap, "--tls-ca", ssl.CAFile}, password,
			[]string{"requires a client certificate", "--tls-cert"}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PLIMSOLL_SASL_PASSWORD", tc.password)
			prefix := "plimsoll-it-secbad-"
			start := time.Now()
			args := append(append([]string{"run", "--topic-prefix", prefix}, tc.args...), load...)
			_, stderr, code := plimsoll(t, args...)
			took := time.Since(start)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d (bad input)\n%s", code, ExitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if took > 20*time.Second {
				t.Errorf("took %v: a refused connection must fail fast", took)
			}
			if left := topicsWithPrefix(t, c, prefix); len(left) > 0 {
				t.Errorf("topics left behind: %v", left)
			}
		})
	}
}

// writeOtherCA writes a CA of its own in a new directory: one that did not sign the brokers.
func writeOtherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
