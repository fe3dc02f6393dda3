package launch

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Spec)
		want string // in the error: the field and the fix
	}{
		{"no run id", func(s *Spec) { s.RunID = "" }, "the run id is empty; give the id the coordinator printed"},
		{"run id not a topic name", func(s *Spec) { s.RunID = "a b" }, `run id "a b"`},
		{"run id too long for a label", func(s *Spec) { s.RunID = strings.Repeat("a", 64) }, "cannot be a Kubernetes label value"},
		{"no workers", func(s *Spec) { s.Workers = 0 }, "workers 0: give 1 or more"},
		{"negative workers", func(s *Spec) { s.Workers = -2 }, "workers -2: give 1 or more"},
		{"no image", func(s *Spec) { s.Image = "" }, `image "": give the container image`},
		{"image with a space", func(s *Spec) { s.Image = "plimsoll :v1" }, `image "plimsoll :v1"`},
		{"name with capitals", func(s *Spec) { s.Name = "Plimsoll" }, `job name "Plimsoll"`},
		{"run id that cannot name the job", func(s *Spec) { s.RunID = "Run_1" }, `job name "plimsoll-Run_1" (from the run id)`},
		{"bad namespace", func(s *Spec) { s.Namespace = "load_test" }, `namespace "load_test"`},
		{"no bootstrap", func(s *Spec) { s.Target.Bootstrap = "" }, "bootstrap: "},
		{"bootstrap without port", func(s *Spec) { s.Target.Bootstrap = "broker1" }, `bootstrap: invalid target: bootstrap server "broker1" is not host:port`},
		{"cert without key", func(s *Spec) { s.Target.KeyFile = "" }, "give both (--tls-cert with --tls-key)"},
		{"unknown mechanism", func(s *Spec) { s.Target.SASLMechanism = "GSSAPI" }, `sasl mechanism "GSSAPI": use one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512`},
		{"mechanism without user", func(s *Spec) { s.Target.SASLUser = "" }, "without a user: give the sasl user"},
		{"user without mechanism", func(s *Spec) { s.Target.SASLMechanism = "" }, "without a mechanism"},
		{"password variable not a name", func(s *Spec) { s.Target.SASLPasswordEnv = "MY-PASS" }, `sasl password variable "MY-PASS"`},
		{"secrets but no Secret", func(s *Spec) { s.Secret = "" }, "no secret is named: create a Kubernetes Secret"},
		{"Secret for nothing", func(s *Spec) { s.Target = Target{Bootstrap: "b:9092", TLS: true} }, `secret "kafka-load-client" named, but the target takes no TLS file and no SASL`},
		{"bad Secret name", func(s *Spec) { s.Secret = "Kafka Secret" }, `secret "Kafka Secret"`},
		{"cpu not a quantity", func(s *Spec) { s.Requests.CPU = "two" }, `requests.cpu "two"`},
		{"memory not a quantity", func(s *Spec) { s.Limits.Memory = "2GB" }, `limits.memory "2GB"`},
		{"zero cpu", func(s *Spec) { s.Requests.CPU = "0" }, `requests.cpu "0": give a positive quantity`},
		{"request above limit", func(s *Spec) { s.Requests.Memory = "4Gi" }, "requests.memory 4Gi is above limits.memory 2Gi"},
		{"no duration", func(s *Spec) { s.Duration = 0 }, "duration 0s: give the run's expected duration"},
		{"negative margin", func(s *Spec) { s.Margin = -time.Second }, "margin -1s"},
		{"duration overflowing with the margin", func(s *Spec) { s.Duration = math.MaxInt64 - time.Minute }, "their sum overflows"},
		{"cpu request above limit", func(s *Spec) { s.Requests.CPU = "2500m" }, "requests.cpu 2500m is above limits.cpu 2"},
		{"negative ttl", func(s *Spec) { s.TTL = -time.Second }, "ttl -1s"},
		{"ttl beyond int32 seconds", func(s *Spec) { s.TTL = 1 << 62 }, "ttl "},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := secured()
			c.edit(&s)
			err := s.Validate()
			if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrSpec with %q", err, c.want)
			}
			if _, jerr := Job(s); jerr == nil {
				t.Error("Job built the refused spec")
			}
			if _, merr := Manifest(s); merr == nil {
				t.Error("Manifest wrote the refused spec")
			}
		})
	}
}

// TestLinesRefuse: the shell lines check the run, N and the target, and only those.
func TestLinesRefuse(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no run id", func(s *Spec) { s.RunID = "" }, "the run id is empty"},
		{"no workers", func(s *Spec) { s.Workers = 0 }, "workers 0"},
		{"bad bootstrap", func(s *Spec) { s.Target.Bootstrap = "x" }, "bootstrap: "},
		{"cert without key", func(s *Spec) { s.Target.KeyFile = "" }, "give both"},
	} {
		s := secured()
		c.edit(&s)
		if _, err := Lines(s); err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrSpec with %q", c.name, err, c.want)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	for name, s := range map[string]Spec{"secured": secured(), "plain": plain()} {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	s := secured()
	s.Requests, s.Limits = Resources{CPU: "500m"}, Resources{Memory: "1Gi"}
	if err := s.Validate(); err != nil {
		t.Errorf("a request and a limit of different resources: %v", err)
	}
}
