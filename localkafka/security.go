package localkafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The secure client listeners a cluster may have besides PLAINTEXT, by Kafka's listener name
// (which is also its security protocol). Replication and the controllers stay on PLAINTEXT.
const (
	ListenerSSL          = "SSL"
	ListenerSASLPlain    = "SASL_PLAINTEXT"
	ListenerSASLSSL      = "SASL_SSL"
	firstSecurePortInNIC = 9094 // with emulated NICs: SSL 9094, SASL_PLAINTEXT 9095, SASL_SSL 9096
)

// SASLMechanisms are the mechanisms every SASL listener of a local cluster accepts.
var SASLMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// Security is what Options and State record about the secure client listeners. The zero value
// means PLAINTEXT only. The SASL password is never recorded here (it is in the brokers'
// server.properties, mode 0600, and the SCRAM credentials of the metadata log, salted).
type Security struct {
	// TLS adds an SSL listener on each broker (and SASL_SSL when SASL is on too), with a
	// certificate signed by a throwaway CA that plimsoll writes to DIR/tls/ca.pem.
	TLS bool `json:"tls,omitempty"`
	// ClientAuth makes the SSL listener require a client certificate signed by that CA
	// (ssl.client.auth=required; DIR/tls/client.pem and client-key.pem are one).
	ClientAuth bool `json:"tls_client_auth,omitempty"`
	// SASLUser, when set, adds a SASL_PLAINTEXT listener (and SASL_SSL with TLS) accepting
	// PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for this user.
	SASLUser string `json:"sasl_user,omitempty"`
	// SASLPassword is the user's password (Options only; never written to cluster.json).
	SASLPassword string `json:"-"`
	// Authorizer turns on KRaft's StandardAuthorizer: clients of the secure listeners may do only
	// what ACLs allow them. User:ANONYMOUS, the principal of the PLAINTEXT client, controller and
	// replication listeners (loopback only), is the super user: brokers, controllers and
	// plimsoll's own admin requests (SCRAM credentials, ACLs) work through it.
	Authorizer bool `json:"authorizer,omitempty"`
}

// Enabled reports whether any secure listener is configured.
func (s Security) Enabled() bool { return s.TLS || s.SASLUser != "" }

// Listeners names the secure listeners, in a fixed order.
func (s Security) Listeners() []string {
	var l []string
	if s.TLS {
		l = append(l, ListenerSSL)
	}
	if s.SASLUser != "" {
		l = append(l, ListenerSASLPlain)
		if s.TLS {
			l = append(l, ListenerSASLSSL)
		}
	}
	return l
}

var (
	saslUserRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	// The password lands in a JAAS string in server.properties, where quotes, backslashes and
	// blanks would break it. Brackets, commas and '=' broke kafka-storage's --add-scram argument,
	// which plimsoll no longer uses; they stay refused so that a password accepted once is
	// accepted by every plimsoll.
	saslPasswordRE = regexp.MustCompile(`^[A-Za-z0-9._~!@#$%^&*()+:/?<>|{}-]+$`)
)

// validate checks the security options; errors name the flag.
func (s Security) validate(kafkaVersion string) error {
	if s.ClientAuth && !s.TLS {
		return fmt.Errorf("--tls-client-auth needs --tls")
	}
	if s.Authorizer && s.SASLUser == "" && !s.ClientAuth {
		return fmt.Errorf("--authorizer needs --sasl-user or --tls-client-auth: without an authenticated client listener every client is the super user")
	}
	if s.SASLUser == "" {
		if s.SASLPassword != "" {
			return fmt.Errorf("a SASL password was given without --sasl-user")
		}
		return nil
	}
	if !saslUserRE.MatchString(s.SASLUser) {
		return fmt.Errorf("--sasl-user %q: use letters, digits, '.', '_' and '-'", s.SASLUser)
	}
	if s.SASLPassword == "" {
		return fmt.Errorf("--sasl-user %s: the password is empty; set it in the environment variable named by --sasl-password-env", s.SASLUser)
	}
	if !saslPasswordRE.MatchString(s.SASLPassword) {
		return fmt.Errorf("--sasl-user %s: the password may hold letters, digits and ._~!@#$%%^&*()+:/?<>|{}- only (no blanks, quotes, backslashes, brackets, commas or '=')", s.SASLUser)
	}
	if !atLeast(kafkaVersion, 3, 5) {
		return fmt.Errorf("--sasl-user needs Kafka 3.5 or later (SCRAM credentials in KRaft); --kafka-version is %s", kafkaVersion)
	}
	return nil
}

// atLeast reports whether a release such as 3.9.1 is at least major.minor.
func atLeast(version string, major, minor int) bool {
	var ma, mi int
	fmt.Sscanf(version, "%d.%d", &ma, &mi)
	return ma > major || ma == major && mi >= minor
}

// tlsDir holds the CA, the brokers' key and certificate, and a client key and certificate.
func (c *State) tlsDir() string { return filepath.Join(c.Dir, "tls") }

// CAFile is the PEM file of the CA that signed the brokers' certificates ("" without TLS).
func (c *State) CAFile() string {
	if c.Security == nil || !c.Security.TLS {
		return ""
	}
	return filepath.Join(c.tlsDir(), "ca.pem")
}

// SecureAddress is the broker's listener of that name, host:port, or "" if it has none.
func (b *Broker) SecureAddress(listener string) string {
	p, ok := b.SecurePorts[listener]
	if !ok {
		return ""
	}
	return net.JoinHostPort(b.Host, fmt.Sprint(p))
}

// ListenerStatus is one secure client listener as `plimsoll cluster status` reports it, with
// what `plimsoll run` needs to connect to it.
type ListenerStatus struct {
	// Name is the listener and its security protocol: SSL, SASL_PLAINTEXT or SASL_SSL.
	Name      string `json:"name"`
	Bootstrap string `json:"bootstrap"`
	// CAFile is the CA to trust (--tls-ca) on TLS listeners.
	CAFile string `json:"ca_file,omitempty"`
	// ClientCert and ClientKey are a certificate the SSL listener accepts, when it requires one.
	ClientCert string `json:"client_cert,omitempty"`
	ClientKey  string `json:"client_key,omitempty"`
	// SASLUser and SASLMechanisms on SASL listeners.
	SASLUser       string   `json:"sasl_user,omitempty"`
	SASLMechanisms []string `json:"sasl_mechanisms,omitempty"`
}

// SecureListeners describes the cluster's secure client listeners (none for PLAINTEXT only).
func (c *State) SecureListeners() []ListenerStatus {
	if c.Security == nil {
		return nil
	}
	var out []ListenerStatus
	for _, name := range c.Security.Listeners() {
		l := ListenerStatus{Name: name}
		var addrs []string
		for _, b := range c.Brokers {
			addrs = append(addrs, b.SecureAddress(name))
		}
		l.Bootstrap = strings.Join(addrs, ",")
		if name != ListenerSASLPlain {
			l.CAFile = c.CAFile()
		}
		if name == ListenerSSL && c.Security.ClientAuth {
			l.ClientCert, l.ClientKey = filepath.Join(c.tlsDir(), "client.pem"), filepath.Join(c.tlsDir(), "client-key.pem")
		}
		if name != ListenerSSL {
			l.SASLUser, l.SASLMechanisms = c.Security.SASLUser, SASLMechanisms
		}
		out = append(out, l)
	}
	return out
}

// securityProperties adds the secure listeners' entries to a node's server.properties:
// listeners, advertised.listeners and the protocol map get one entry per secure listener;
// PEM key and trust stores for TLS; the SASL mechanisms and their JAAS login modules.
func (c *State) securityProperties(b *Broker, p map[string]string) {
	if c.Security == nil || !c.Security.Enabled() {
		return
	}
	s := c.Security
	for _, name := range s.Listeners() {
		addr := fmt.Sprintf("%s://%s", name, b.SecureAddress(name))
		p["listeners"] += "," + addr
		p["advertised.listeners"] += "," + addr
		p["listener.security.protocol.map"] += fmt.Sprintf(",%s:%s", name, name)
	}
	if s.TLS {
		dir := c.tlsDir()
		// Kafka reads PEM stores natively: the key store file holds the private key (PKCS#8)
		// followed by the certificate chain; no store password.
		p["ssl.keystore.type"] = "PEM"
		p["ssl.keystore.location"] = filepath.Join(dir, "broker.pem")
		p["ssl.truststore.type"] = "PEM"
		p["ssl.truststore.location"] = filepath.Join(dir, "ca.pem")
		if s.ClientAuth {
			p["listener.name.ssl.ssl.client.auth"] = "required"
		}
	}
	if s.Authorizer {
		p["authorizer.class.name"] = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
		p["super.users"] = "User:ANONYMOUS"
	}
	if s.SASLUser != "" {
		p["sasl.enabled.mechanisms"] = strings.Join(SASLMechanisms, ",")
		for _, name := range s.Listeners() {
			if name == ListenerSSL {
				continue
			}
			pre := "listener.name." + strings.ToLower(name) + "."
			p[pre+"plain.sasl.jaas.config"] = fmt.Sprintf(`org.apache.kafka.common.security.plain.PlainLoginModule required user_%s="%s";`, s.SASLUser, s.SASLPassword)
			for _, m := range SASLMechanisms[1:] {
				p[pre+strings.ToLower(m)+".sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
			}
		}
	}
}

// scramUpserts are the SCRAM credentials of the SASL user, one per SCRAM mechanism (none without
// SASL). Kafka's minimum iteration count, 4096, is what its own tools use by default.
func (s *Security) scramUpserts() []kadm.UpsertSCRAM {
	if s == nil || s.SASLUser == "" {
		return nil
	}
	return []kadm.UpsertSCRAM{
		{User: s.SASLUser, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: s.SASLPassword},
		{User: s.SASLUser, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: s.SASLPassword},
	}
}

// addSCRAMUsers creates the SASL user's SCRAM credentials in a fresh, running cluster through
// Kafka's AlterUserScramCredentials API over the PLAINTEXT listener, which needs none, and
// waits until every broker accepts them. Creating them with kafka-storage format instead would
// put the password on that tool's command line (--add-scram is its only way to take one), where
// every user of the machine can read it in /proc/PID/cmdline.
func (c *State) addSCRAMUsers(ctx context.Context) error {
	up := c.Security.scramUpserts()
	if up == nil {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	// One request per mechanism: Kafka refuses a request naming the same user twice
	// (DUPLICATE_RESOURCE, seen on 4.1.0), even for two mechanisms.
	for _, u := range up {
		res, err := kadm.NewClient(cl).AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{u})
		if err == nil {
			err = res[u.User].Err
		}
		if err != nil {
			return fmt.Errorf("creating the %s credentials of --sasl-user %s: %w", u.Mechanism, u.User, err)
		}
	}
	for _, b := range c.Brokers {
		for _, m := range []sasl.Mechanism{c.scram().AsSha256Mechanism(), c.scram().AsSha512Mechanism()} {
			if err := waitSCRAM(ctx, b, m); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *State) scram() scram.Auth {
	return scram.Auth{User: c.Security.SASLUser, Pass: c.Security.SASLPassword}
}

// waitSCRAM returns once the broker's SASL_PLAINTEXT listener authenticates m: each broker
// learns of the credentials from the metadata log, a moment after the controller commits them.
func waitSCRAM(ctx context.Context, b *Broker, m sasl.Mechanism) error {
	addr := b.SecureAddress(ListenerSASLPlain)
	for {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(m), kgo.DialTimeout(2*time.Second))
		if err != nil {
			return err
		}
		mctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err = kadm.NewClient(cl).BrokerMetadata(mctx)
		cancel()
		cl.Close()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("broker %d does not accept the %s credentials of the SASL user on %s: %v", b.ID, m.Name(), addr, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// assignSecurePorts gives each broker a port per secure listener: from ports on loopback, the
// well-known 9094.. in a broker's own network namespace.
func (c *State) assignSecurePorts(take func() int) {
	if c.Security == nil {
		return
	}
	for _, b := range c.Brokers {
		for i, name := range c.Security.Listeners() {
			if b.SecurePorts == nil {
				b.SecurePorts = map[string]int{}
			}
			if take == nil {
				b.SecurePorts[name] = firstSecurePortInNIC + i
			} else {
				b.SecurePorts[name] = take()
			}
		}
	}
}

// writeTLS generates the cluster's throwaway CA, one broker certificate valid for every
// broker's address (IP SANs) and localhost, and a client certificate, as PEM files in DIR/tls.
// The CA's key is not kept: nothing else is ever signed with it.
func (c *State) writeTLS() error {
	if c.Security == nil || !c.Security.TLS {
		return nil
	}
	hosts := map[string]bool{"127.0.0.1": true, "::1": true}
	for _, b := range c.Brokers {
		hosts[b.Host] = true
	}
	var ips []string
	for h := range hosts {
		ips = append(ips, h)
	}
	sort.Strings(ips)
	files, err := generateTLS(c.ClusterID, ips, time.Now())
	if err != nil {
		return fmt.Errorf("generating the cluster's TLS certificates: %w", err)
	}
	if err := os.MkdirAll(c.tlsDir(), 0o700); err != nil {
		return err
	}
	for name, data := range files {
		perm := os.FileMode(0o644)
		if strings.Contains(name, "key") || name == "broker.pem" {
			perm = 0o600 // holds a private key
		}
		if err := os.WriteFile(filepath.Join(c.tlsDir(), name), data, perm); err != nil {
			return err
		}
	}
	return nil
}

// generateTLS returns the PEM files of a fresh CA and the certificates it signs, by file name:
// ca.pem; broker.pem (PKCS#8 key, then the broker certificate and the CA: Kafka's PEM key
// store); client.pem and client-key.pem. hosts become the broker certificate's SANs (IPs, or
// DNS names when they do not parse as IPs; localhost is always included).
func generateTLS(clusterID string, hosts []string, now time.Time) (map[string][]byte, error) {
	ca, err := newCA(clusterID, now)
	if err != nil {
		return nil, err
	}
	bKey, bCert, err := ca.leaf("plimsoll broker", x509.ExtKeyUsageServerAuth, append([]string{"localhost"}, hosts...))
	if err != nil {
		return nil, err
	}
	cKey, cCert, err := ca.leaf("plimsoll client", x509.ExtKeyUsageClientAuth, nil)
	if err != nil {
		return nil, err
	}
	broker := append(append(append([]byte{}, bKey...), bCert...), ca.pem...)
	return map[string][]byte{
		"ca.pem":         ca.pem,
		"broker.pem":     broker,
		"client.pem":     cCert,
		"client-key.pem": cKey,
	}, nil
}

// certAuthority is a throwaway CA: its certificate (also PEM-encoded), its key and the validity
// it gives the certificates it signs.
type certAuthority struct {
	cert                *x509.Certificate
	key                 *ecdsa.PrivateKey
	pem                 []byte
	notBefore, notAfter time.Time
}

func newCA(clusterID string, now time.Time) (*certAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca := &certAuthority{key: key, notBefore: now.Add(-time.Hour), notAfter: now.Add(10 * 365 * 24 * time.Hour)}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"plimsoll"}, CommonName: "plimsoll local CA " + clusterID},
		NotBefore:             ca.notBefore,
		NotAfter:              ca.notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	if ca.cert, err = x509.ParseCertificate(der); err != nil {
		return nil, err
	}
	ca.pem = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return ca, nil
}

// leaf signs a certificate for cn with usage, valid for hosts (IP addresses or DNS names), and
// returns its PKCS#8 key and the certificate, PEM-encoded.
func (ca *certAuthority) leaf(cn string, usage x509.ExtKeyUsage, hosts []string) (keyPEM, certPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"plimsoll"}, CommonName: cn},
		NotBefore:    ca.notBefore,
		NotAfter:     ca.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}
