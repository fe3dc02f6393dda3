//go:build integration

package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
)

// allowACLs creates the ACLs b describes, failing t on any error.
func allowACLs(t *testing.T, adm *kadm.Client, b *kadm.ACLBuilder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := adm.CreateACLs(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("creating an ACL: %v", r.Err)
		}
	}
}

// TestSecureListeners starts a 1-broker cluster of its own with TLS (client certificates
// required on SSL) and SASL listeners, runs workloads through each with the right credentials,
// and checks that wrong ones fail fast with a clear error and leave nothing behind.
func TestSecureListeners(t *testing.T) {
	const password = "s3cret!pw"
	t.Setenv("PLIMSOLL_SASL_PASSWORD", password)
	dir := filepath.Join(t.TempDir(), "secure")
	// Every process's command line is watched from before the storage is formatted until the
	// last run ends; every file written and every line printed is searched at the end.
	watch := watchCmdlines(password)
	t.Cleanup(func() { watch() })
	var printed strings.Builder
	written := []string{dir}
	stdout, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", dir, "--brokers", "1", "--heap", "512m", "--warm-jit", "0",
		"--tls", "--tls-client-auth", "--sasl-user", "bench", "--authorizer")
	printed.WriteString(stdout + stderr)
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
	checkSecretModes(t, dir)
	checkLoopbackListeners(t, c)
	// The authorizer is on: every client of the secure listeners may use the tests' topics and
	// groups (plimsoll-it-sec...); bench may do all a run needs under plimsoll-it-acl- but write.
	adm, _ := admin(t, c.Bootstrap())
	allowACLs(t, adm, kadm.NewACLs().Allow("User:*").ResourcePatternType(kadm.ACLPatternPrefixed).
		Topics("plimsoll-it-sec").Groups("plimsoll-it-sec").Operations(kadm.OpAll))
	allowACLs(t, adm, kadm.NewACLs().Allow("User:bench").ResourcePatternType(kadm.ACLPatternPrefixed).
		Topics("plimsoll-it-acl-").Groups("plimsoll-it-acl-").Operations(kadm.OpCreate, kadm.OpDescribe, kadm.OpDelete, kadm.OpRead))

	// status --json: one entry per secure listener with what run needs.
	stdout, stderr, code = plimsoll(t, "cluster", "status", "--json", "--cluster-dir", dir)
	printed.WriteString(stdout + stderr)
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
		"--replication-factor", "1", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true", "--slo-p99", "0"}
	good := []struct {
		name string
		args []string
	}{
		{"mtls", []string{"--bootstrap", ssl.Bootstrap, "--tls-ca", ssl.CAFile, "--tls-cert", ssl.ClientCert, "--tls-key", ssl.ClientKey}},
		{"sasl-ssl-scram-512", []string{"--bootstrap", saslSSL.Bootstrap, "--tls-ca", saslSSL.CAFile, "--sasl-mechanism", "scram-sha-512", "--sasl-user", "bench"}},
		{"sasl-plain", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "plain", "--sasl-user", "bench"}},
		{"sasl-scram-256", []string{"--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "scram-sha-256", "--sasl-user", "bench"}},
	}
	runs := t.TempDir()
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(runs, tc.name) // kept until the end, to be searched
			written = append(written, out)
			prefix := "plimsoll-it-sec-" + tc.name + "-"
			args := append(append([]string{"run", "--topic-prefix", prefix, "--out", out}, tc.args...), load...)
			stdout, stderr, code := plimsoll(t, args...)
			printed.WriteString(stdout + stderr)
			if code != 0 && code != ExitOverloaded && code != ExitInvalid {
				t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			r := readResult(t, out)
			if r.Counts.Acked < 1000 || r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || r.Counts.Failed != 0 || r.Counts.Consumed < r.Counts.Acked {
				t.Errorf("counts %+v: want ~1500 acked, all consumed, none lost or duplicated", r.Counts)
			}
			if left := topicsLeft(t, c, prefix); len(left) > 0 {
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
			stdout, stderr, code := plimsoll(t, args...)
			took := time.Since(start)
			printed.WriteString(stdout + stderr)
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
			if left := topicsLeft(t, c, prefix); len(left) > 0 {
				t.Errorf("topics left behind: %v", left)
			}
		})
	}

	// An ACL that lets bench create plimsoll's topics but not write them: exit 2 at the first
	// write, naming the refusal and the ACL to add; the topics deleted.
	t.Run("acl without write", func(t *testing.T) {
		const prefix = "plimsoll-it-acl-"
		start := time.Now()
		args := append([]string{"run", "--topic-prefix", prefix, "--bootstrap", saslPlain.Bootstrap, "--sasl-mechanism", "scram-sha-256", "--sasl-user", "bench"}, load...)
		stdout, stderr, code := plimsoll(t, args...)
		printed.WriteString(stdout + stderr)
		t.Logf("took %v:\n%s", time.Since(start).Round(100*time.Millisecond), stderr)
		if code != ExitUsage {
			t.Errorf("exit %d, want %d\n%s", code, ExitUsage, stderr)
		}
		for _, w := range []string{"not authorized: writing to " + prefix, "TOPIC_AUTHORIZATION_FAILED",
			"--allow-principal User:bench --operation Write --topic " + prefix + " --resource-pattern-type prefixed"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		if left := topicsLeft(t, c, prefix); len(left) > 0 {
			t.Errorf("topics left behind: %v", left)
		}
	})

	leaks, sawFormat := watch()
	if !sawFormat {
		t.Error("the command-line watch never saw kafka-storage format run: it cannot vouch for that step")
	}
	for _, l := range leaks {
		t.Errorf("the SASL password is on a command line: %s", l)
	}
	checkNoSecretInEnv(t, c, password)
	if strings.Contains(printed.String(), password) {
		t.Error("plimsoll printed the SASL password")
	}
	checkNoSecretInFiles(t, password, written)
}

// watchCmdlines polls every process's command line every 50 ms until the returned function is
// called; that function reports the command lines that held secret, and whether the storage
// tool's format run (the step that used to carry the SCRAM password) was among those seen.
func watchCmdlines(secret string) func() (leaks []string, sawFormat bool) {
	stop, done := make(chan struct{}), make(chan struct{})
	seen := map[string]bool{}
	go func() {
		defer close(done)
		for {
			paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, p := range paths {
				data, err := os.ReadFile(p)
				if err != nil || len(data) == 0 {
					continue
				}
				line := strings.ReplaceAll(string(data), "\x00", " ")
				if strings.Contains(line, secret) {
					seen[p+": "+line] = true
				}
				if strings.Contains(line, "kafka.tools.StorageTool format") {
					seen["format"] = true
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	var once sync.Once
	return func() ([]string, bool) {
		once.Do(func() { close(stop) })
		<-done
		var leaks []string
		for l := range seen {
			if l != "format" {
				leaks = append(leaks, l)
			}
		}
		return leaks, seen["format"]
	}
}

// checkNoSecretInEnv: the brokers' JVMs did not inherit the password's environment variable.
func checkNoSecretInEnv(t *testing.T, c *localkafka.State, secret string) {
	t.Helper()
	for _, b := range c.Brokers {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", b.PID))
		if err != nil || len(env) == 0 {
			t.Errorf("reading broker %d's environment: %v", b.ID, err)
			continue
		}
		if strings.Contains(string(env), secret) {
			t.Errorf("broker %d's environment holds the SASL password", b.ID)
		}
	}
}

// checkNoSecretInFiles searches every file under roots for secret. The brokers' server.properties
// must hold it (the PLAIN login module reads it there; finding it shows the search works) and be
// readable by their owner only; no other file may.
func checkNoSecretInFiles(t *testing.T, secret string, roots []string) {
	t.Helper()
	files, props := 0, 0
	for _, root := range roots {
		werr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a deleted topic's directory Kafka removed meanwhile; an error here would end the walk
			}
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				t.Errorf("reading %s: %v", path, err)
				return nil
			}
			files++
			if !bytes.Contains(data, []byte(secret)) {
				return nil
			}
			if d.Name() == "server.properties" {
				props++
				return nil
			}
			t.Errorf("%s holds the SASL password", path)
			return nil
		})
		if werr != nil {
			t.Errorf("searching %s stopped: %v", root, werr)
		}
	}
	if props == 0 || files < 20 {
		t.Errorf("searched %d files; the password was in %d server.properties, want the broker's", files, props)
	}
}

// checkSecretModes: private keys and the file holding the password are readable by their owner
// only, and the TLS directory is closed to others.
func checkSecretModes(t *testing.T, dir string) {
	t.Helper()
	want := map[string]os.FileMode{
		"tls": 0o700 | os.ModeDir, "tls/broker.pem": 0o600, "tls/client-key.pem": 0o600, "broker-1/server.properties": 0o600,
	}
	for name, mode := range want {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
		} else if st.Mode() != mode {
			t.Errorf("%s has mode %v, want %v", name, st.Mode(), mode)
		}
	}
}

// checkLoopbackListeners: every TCP socket the brokers' JVMs listen on (Kafka's listeners, the
// exporter agent, anything else the JVM opened), and any this process (plimsoll) listens on,
// is bound to loopback.
func checkLoopbackListeners(t *testing.T, c *localkafka.State) {
	t.Helper()
	listening := listeningSockets(t)
	pids := []int{os.Getpid()}
	for _, b := range c.Brokers {
		pids = append(pids, b.PID)
	}
	found := 0
	for _, pid := range pids {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			target, err := os.Readlink(fd)
			inode, ok := strings.CutPrefix(target, "socket:[")
			if err != nil || !ok {
				continue
			}
			addr, ok := listening[strings.TrimSuffix(inode, "]")]
			if !ok {
				continue
			}
			found++
			if !addr.IsLoopback() {
				t.Errorf("process %d listens on %v, not loopback", pid, addr)
			}
		}
	}
	// PLAINTEXT, CONTROLLER, SSL, SASL_PLAINTEXT, SASL_SSL and the exporter agent.
	if found < 6 {
		t.Errorf("found %d listening sockets of the broker, want at least 6", found)
	}
}

// listeningSockets maps the inode of every listening TCP socket to its local address, read from
// /proc/net/tcp and tcp6 (addresses are hex, each 32-bit word in host byte order).
func listeningSockets(t *testing.T) map[string]net.IP {
	t.Helper()
	out := map[string]net.IP{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 10 || fields[3] != "0A" { // TCP_LISTEN
				continue
			}
			hexIP, _, _ := strings.Cut(fields[1], ":")
			raw, err := hex.DecodeString(hexIP)
			if err != nil || len(raw)%4 != 0 {
				t.Fatalf("%s: local address %q", f, fields[1])
			}
			for i := 0; i < len(raw); i += 4 {
				binary.BigEndian.PutUint32(raw[i:], binary.LittleEndian.Uint32(raw[i:]))
			}
			out[fields[9]] = net.IP(raw)
		}
	}
	return out
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
