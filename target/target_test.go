package target

import (
	"errors"
	"testing"
)

func TestParseBootstrap(t *testing.T) {
	got, err := ParseBootstrap(" a:1, b:2 ,")
	if err != nil || len(got) != 2 || got[0] != "a:1" || got[1] != "b:2" {
		t.Fatalf("ParseBootstrap = %v, %v", got, err)
	}
	for _, bad := range []string{"", ",", "nohost", ":9092", "host:"} {
		if _, err := ParseBootstrap(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseBootstrap(%q) err = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestProtocol: the security.protocol of each combination of TLS and SASL.
func TestProtocol(t *testing.T) {
	sasl := &SASL{Mechanism: "SCRAM-SHA-512", User: "u"}
	for _, c := range []struct {
		t    Target
		want string
	}{{Target{}, "PLAINTEXT"}, {Target{TLS: &TLS{}}, "SSL"}, {Target{SASL: sasl}, "SASL_PLAINTEXT"}, {Target{TLS: &TLS{}, SASL: sasl}, "SASL_SSL"}} {
		if got := c.t.Protocol(); got != c.want {
			t.Errorf("%+v: Protocol() = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		t    Target
		ok   bool
	}{
		{"plain", Target{Bootstrap: []string{"a:1"}}, true},
		{"no bootstrap", Target{}, false},
		{"cert without key", Target{Bootstrap: []string{"a:1"}, TLS: &TLS{CertFile: "x"}}, false},
		{"missing ca", Target{Bootstrap: []string{"a:1"}, TLS: &TLS{CAFile: "/nonexistent/ca.pem"}}, false},
		{"sasl ok", Target{Bootstrap: []string{"a:1"}, SASL: &SASL{Mechanism: "scram-sha-512", User: "u"}}, true},
		{"sasl bad mech", Target{Bootstrap: []string{"a:1"}, SASL: &SASL{Mechanism: "GSSAPI", User: "u"}}, false},
		{"sasl no user", Target{Bootstrap: []string{"a:1"}, SASL: &SASL{Mechanism: "PLAIN"}}, false},
	}
	for _, c := range cases {
		err := c.t.Validate()
		if (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", c.name, err, c.ok)
		}
		if _, err := c.t.ClientOpts(); (err == nil) != c.ok {
			t.Errorf("%s: ClientOpts() = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
