package localkafka

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"github.com/twmb/franz-go/pkg/kadm"
)

// fixedState is a 2-broker cluster with fixed ports and paths, so its configs can be golden.
func fixedState(sec *Security) *State {
	c := &State{Dir: "/plimsoll/c", ClusterID: "AAAAAAAAAAAAAAAAAAAAAA", KafkaVersion: "4.1.0", Security: sec}
	port := 20000
	take := func() int { port++; return port }
	for i := 1; i <= 2; i++ {
		b := &Broker{ID: int32(i), Host: "127.0.0.1", Controller: true, Dir: filepath.Join(c.Dir, "broker-"+string(rune('0'+i)))}
		b.Port, b.MetricsPort, b.ControllerPort = take(), take(), take()
		c.Brokers = append(c.Brokers, b)
	}
	c.assignSecurePorts(take)
	return c
}

func TestSecurityPropertiesGolden(t *testing.T) {
	cases := []struct {
		name string
		sec  *Security
	}{
		{"plaintext", nil},
		{"tls", &Security{TLS: true}},
		{"tls-client-auth", &Security{TLS: true, ClientAuth: true}},
		{"sasl", &Security{SASLUser: "bench", SASLPassword: "s3cret!"}},
		{"tls-sasl", &Security{TLS: true, SASLUser: "bench", SASLPassword: "s3cret!"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := serverProperties(fixedState(tc.sec), fixedState(tc.sec).Brokers[1])
			goldenfile.Check(t, filepath.Join("testdata", "golden", "server-"+tc.name+".properties"), []byte(got))
		})
	}
}

func TestSecurityPropertiesShape(t *testing.T) {
	c := fixedState(&Security{TLS: true, SASLUser: "bench", SASLPassword: "pw"})
	b := c.Brokers[0]
	p := map[string]string{}
	for _, line := range strings.Split(serverProperties(c, b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			p[k] = v
		}
	}
	// PLAINTEXT stays the inter-broker listener and the first one; each secure listener is
	// bound, advertised and mapped to its own protocol.
	if p["inter.broker.listener.name"] != "PLAINTEXT" || !strings.HasPrefix(p["listeners"], "PLAINTEXT://") {
		t.Errorf("PLAINTEXT moved: %v", p)
	}
	for _, name := range []string{"SSL", "SASL_PLAINTEXT", "SASL_SSL"} {
		addr := name + "://" + b.SecureAddress(name)
		if !strings.Contains(p["listeners"], addr) || !strings.Contains(p["advertised.listeners"], addr) ||
			!strings.Contains(p["listener.security.protocol.map"], name+":"+name) {
			t.Errorf("%s listener missing: %v", name, p)
		}
	}
	if p["ssl.keystore.type"] != "PEM" || p["ssl.keystore.location"] != "/plimsoll/c/tls/broker.pem" || p["ssl.truststore.type"] != "PEM" {
		t.Errorf("PEM stores: %v", p)
	}
	if _, ok := p["ssl.keystore.password"]; ok {
		t.Error("a PEM key store takes no store password (Kafka refuses one)")
	}
	if _, ok := p["listener.name.ssl.ssl.client.auth"]; ok {
		t.Error("client auth set without ClientAuth")
	}
	if !strings.Contains(p["listener.name.sasl_ssl.plain.sasl.jaas.config"], `user_bench="pw"`) {
		t.Errorf("PLAIN JAAS: %q", p["listener.name.sasl_ssl.plain.sasl.jaas.config"])
	}
	// User overrides still win.
	c.ExtraConfig = map[string]string{"sasl.enabled.mechanisms": "PLAIN"}
	if !strings.Contains(serverProperties(c, b), "sasl.enabled.mechanisms=PLAIN\n") {
		t.Error("--broker-config does not override the security defaults")
	}
}

// TestNoSecretOnCommandLine: the storage tool's arguments (a command line every user of the
// machine can read) carry no password; the SCRAM credentials go through the admin API instead.
func TestNoSecretOnCommandLine(t *testing.T) {
	const pw = "p@1secret"
	c := fixedState(&Security{TLS: true, SASLUser: "u", SASLPassword: pw})
	c.Dist = Dist{Version: "4.1.0", Log4j2: true}
	for _, b := range c.Brokers {
		args := strings.Join(c.formatArgs(b), " ")
		if strings.Contains(args, pw) || strings.Contains(args, "scram") {
			t.Errorf("broker %d: storage format arguments carry the SCRAM credentials: %s", b.ID, args)
		}
		if !strings.Contains(args, "kafka.tools.StorageTool format -t "+c.ClusterID) {
			t.Errorf("broker %d: not a format command: %s", b.ID, args)
		}
	}
	env := strings.Join(c.childEnv([]string{"HOME=/root", "PLIMSOLL_SASL_PASSWORD=x", "MY_PW=" + pw, "PATH=/bin"}), " ")
	if env != "HOME=/root PATH=/bin" {
		t.Errorf("a broker's environment keeps the password: %s", env)
	}
	if up := (&Security{TLS: true}).scramUpserts(); up != nil {
		t.Errorf("TLS only: SCRAM upserts %v", up)
	}
	up := c.Security.scramUpserts()
	if len(up) != 2 || up[0].Mechanism != kadm.ScramSha256 || up[1].Mechanism != kadm.ScramSha512 ||
		up[0].User != "u" || up[1].Password != pw || up[0].Iterations < 4096 {
		t.Errorf("SCRAM upserts %+v: want u's password for SHA-256 and SHA-512", up)
	}
}

// TestListenersOnLoopback: with default options, every socket a node is told to listen on (each
// Kafka listener, the exporter agent) binds 127.0.0.1, never all interfaces.
func TestListenersOnLoopback(t *testing.T) {
	o := Options{Brokers: 4, Dir: t.TempDir(), Security: Security{TLS: true, SASLUser: "u", SASLPassword: "p"}}
	o.defaults()
	c, err := newState(o, Dist{Version: "4.1.0", Log4j2: true, Exporter: "/x/agent.jar"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Brokers {
		var binds []string
		for _, line := range strings.Split(serverProperties(c, b), "\n") {
			if v, ok := strings.CutPrefix(line, "listeners="); ok {
				for _, l := range strings.Split(v, ",") {
					_, hostPort, _ := strings.Cut(l, "://")
					binds = append(binds, hostPort)
				}
			}
		}
		_, agent, _ := strings.Cut(c.agentArg(b), "=")
		host, port, _ := strings.Cut(agent, ":")
		binds = append(binds, host+":"+strings.SplitN(port, ":", 2)[0])
		if want := 3 + len(b.SecurePorts); b.Controller && len(binds) != want || !b.Controller && len(binds) != want-1 {
			t.Errorf("broker %d listens on %v: want PLAINTEXT, CONTROLLER (on controllers), 3 secure listeners and the agent", b.ID, binds)
		}
		for _, hp := range binds {
			if h, _, err := net.SplitHostPort(hp); err != nil || h != "127.0.0.1" {
				t.Errorf("broker %d binds %q, not loopback", b.ID, hp)
			}
		}
	}
}

func TestSecurePorts(t *testing.T) {
	o := Options{Brokers: 2, Dir: "/tmp/x", Security: Security{TLS: true, SASLUser: "u", SASLPassword: "p"}}
	o.defaults()
	c, err := newState(o, Dist{Version: "4.1.0", Log4j2: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, b := range c.Brokers {
		if len(b.SecurePorts) != 3 {
			t.Errorf("broker %d secure ports %v, want 3", b.ID, b.SecurePorts)
		}
		for _, p := range append([]int{b.Port, b.MetricsPort, b.ControllerPort}, values(b.SecurePorts)...) {
			if p != 0 && seen[p] {
				t.Errorf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
	ls := c.SecureListeners()
	if len(ls) != 3 || ls[0].Name != "SSL" || ls[0].CAFile != "/tmp/x/tls/ca.pem" || ls[1].CAFile != "" || ls[1].SASLUser != "u" ||
		strings.Count(ls[2].Bootstrap, ",") != 1 || ls[0].SASLUser != "" {
		t.Errorf("SecureListeners = %+v", ls)
	}
	// With emulated NICs each broker has its own namespace: fixed ports after 9092/9093.
	o.NIC = 1e6
	c, err = newState(o, Dist{Version: "4.1.0", Log4j2: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Brokers[1].SecurePorts; p["SSL"] != 9094 || p["SASL_PLAINTEXT"] != 9095 || p["SASL_SSL"] != 9096 {
		t.Errorf("NIC secure ports %v", p)
	}
	if (&State{}).SecureListeners() != nil {
		t.Error("a plaintext cluster lists secure listeners")
	}
}

func values(m map[string]int) []int {
	var v []int
	for _, p := range m {
		v = append(v, p)
	}
	return v
}

func TestSecurityValidate(t *testing.T) {
	cases := []struct {
		s       Security
		version string
		want    string // "" = valid
	}{
		{Security{}, "4.1.0", ""},
		{Security{TLS: true, ClientAuth: true}, "3.3.2", ""},
		{Security{SASLUser: "bench", SASLPassword: "s3cret!"}, "3.5.0", ""},
		{Security{ClientAuth: true}, "4.1.0", "--tls-client-auth needs --tls"},
		{Security{SASLUser: "be nch", SASLPassword: "x"}, "4.1.0", "--sasl-user"},
		{Security{SASLUser: "bench"}, "4.1.0", "password is empty"},
		{Security{SASLUser: "bench", SASLPassword: `a"b`}, "4.1.0", "password may hold"},
		{Security{SASLUser: "bench", SASLPassword: "a,b"}, "4.1.0", "password may hold"},
		{Security{SASLUser: "bench", SASLPassword: "a b"}, "4.1.0", "password may hold"},
		{Security{SASLUser: "bench", SASLPassword: `a\b`}, "4.1.0", "password may hold"},
		{Security{SASLUser: "bench", SASLPassword: "x"}, "3.4.1", "Kafka 3.5"},
		{Security{SASLPassword: "x"}, "4.1.0", "without --sasl-user"},
	}
	for _, c := range cases {
		err := c.s.validate(c.version)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v on %s: err = %v, want %q", c.s, c.version, err, c.want)
		}
	}
	if err := (Options{Security: Security{ClientAuth: true}}).Validate(); err == nil {
		t.Error("Options.Validate ignores the security options")
	}
}

func TestGenerateTLS(t *testing.T) {
	now := time.Now()
	files, err := generateTLS("cid", []string{"127.0.0.1", "198.18.76.2", "::1"}, now)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(files["ca.pem"]) {
		t.Fatal("ca.pem holds no certificate")
	}
	// Kafka's PEM key store: an unencrypted PKCS#8 key, then the chain, leaf first.
	var types []string
	var blocks []*pem.Block
	for rest := files["broker.pem"]; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		types, blocks = append(types, b.Type), append(blocks, b)
	}
	if strings.Join(types, ",") != "PRIVATE KEY,CERTIFICATE,CERTIFICATE" {
		t.Fatalf("broker.pem blocks %v", types)
	}
	if _, err := x509.ParsePKCS8PrivateKey(blocks[0].Bytes); err != nil {
		t.Errorf("broker key is not PKCS#8: %v", err)
	}
	leaf, err := x509.ParseCertificate(blocks[1].Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "198.18.76.2", "::1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, CurrentTime: now}); err != nil {
			t.Errorf("broker certificate not valid for %s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "10.0.0.1", CurrentTime: now}); err == nil {
		t.Error("broker certificate valid for an address it does not list")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now.Add(11 * 365 * 24 * time.Hour)}); err == nil {
		t.Error("broker certificate never expires")
	}

	// A real handshake, with the client certificate required: what the SSL listener with
	// --tls-client-auth does.
	serverCert, err := tls.X509KeyPair(files["broker.pem"], files["broker.pem"])
	if err != nil {
		t.Fatal(err)
	}
	clientCert, err := tls.X509KeyPair(files["client.pem"], files["client-key.pem"])
	if err != nil {
		t.Fatal(err)
	}
	sc, cc := net.Pipe()
	defer sc.Close()
	defer cc.Close()
	srv := tls.Server(sc, &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots})
	done := make(chan error, 1)
	go func() { done <- srv.Handshake() }()
	cl := tls.Client(cc, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", Certificates: []tls.Certificate{clientCert}})
	if err := cl.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server handshake: %v", err)
	}

	// Another cluster's CA does not vouch for this broker.
	other, err := generateTLS("other", []string{"127.0.0.1"}, now)
	if err != nil {
		t.Fatal(err)
	}
	otherRoots := x509.NewCertPool()
	otherRoots.AppendCertsFromPEM(other["ca.pem"])
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: otherRoots, CurrentTime: now}); err == nil {
		t.Error("another CA verifies this broker's certificate")
	}
}

func TestWriteTLSFiles(t *testing.T) {
	c := fixedState(&Security{TLS: true})
	c.Dir = t.TempDir()
	if err := c.writeTLS(); err != nil {
		t.Fatal(err)
	}
	for name, perm := range map[string]os.FileMode{"ca.pem": 0o644, "broker.pem": 0o600, "client.pem": 0o644, "client-key.pem": 0o600} {
		st, err := os.Stat(filepath.Join(c.Dir, "tls", name))
		if err != nil || st.Mode().Perm() != perm {
			t.Errorf("%s: %v %v, want mode %v", name, st.Mode(), err, perm)
		}
	}
	if c.CAFile() != filepath.Join(c.Dir, "tls", "ca.pem") {
		t.Errorf("CAFile = %s", c.CAFile())
	}
	c.removeAll()
	if _, err := os.Stat(filepath.Join(c.Dir, "tls")); !os.IsNotExist(err) {
		t.Errorf("removeAll left the tls directory: %v", err)
	}
}
