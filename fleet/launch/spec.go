package launch

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/target"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrSpec is wrapped by every error of Validate.
var ErrSpec = errors.New("invalid worker launch")

// DefaultMargin is added to a run's expected duration for the Job's deadline: the worker's
// wait for its run's control topic and the coordinator's wait for the joins (fleet's limits),
// and three minutes for scheduling the pods and pulling the image.
var DefaultMargin = fleet.DefaultLimits.Find + fleet.DefaultLimits.Join + 3*time.Minute

// DefaultTTL is how long a finished Job and its pods (their logs) are kept.
const DefaultTTL = time.Hour

// DefaultPasswordEnv is the environment variable holding the SASL password, as `plimsoll run`'s
// --sasl-password-env defaults to.
const DefaultPasswordEnv = "PLIMSOLL_SASL_PASSWORD"

// Spec is what a launcher needs to start a run's workers.
type Spec struct {
	// RunID is the run the workers join: the id the coordinator printed (fleet.CheckRunID);
	// with Search, the limit search's id.
	RunID string
	// Search says RunID is a limit search's: the workers follow the search (FlagSearch),
	// joining each of its trials, rather than join one run.
	Search bool
	// Workers is N, the number of workers; worker i of N is started with index i.
	Workers int
	// Image is the container image of the Job: it must hold `plimsoll` on its PATH, of the
	// coordinator's version (a worker of another version refuses to join).
	Image string
	// Name is the Job's name; empty: "plimsoll-" and the run id.
	Name string
	// Namespace is the Job's namespace; empty: none written (kubectl's current one).
	Namespace string
	// Target is where the workers send load, as each worker's flags give it.
	Target Target
	// Secret names the Kubernetes Secret, created by the user, holding the target's TLS files
	// and SASL password under the keys SecretCA, SecretCert, SecretKey and SecretPassword;
	// needed when Target uses any of them. The Job never holds a secret itself.
	Secret string
	// Requests and Limits are each worker's CPU and memory; an empty one is left out.
	Requests, Limits Resources
	// Duration is the run's expected duration, from the coordinator's start to its end (a
	// limit search's: the whole search).
	Duration time.Duration
	// Margin is added to Duration for the Job's active deadline; zero: DefaultMargin.
	Margin time.Duration
	// TTL is how long Kubernetes keeps the finished Job; zero: DefaultTTL.
	TTL time.Duration
}

// Target is the cluster under test as a worker's target flags give it. The file paths are
// those on each worker's host (the shell lines); in the Job the files come from the Secret.
type Target struct {
	Bootstrap string // --bootstrap host:port,...
	TLS       bool   // --tls (implied by CAFile and CertFile)
	CAFile    string // --tls-ca
	CertFile  string // --tls-cert
	KeyFile   string // --tls-key
	// SASLMechanism (--sasl-mechanism) and SASLUser (--sasl-user) are no secrets; the password
	// is read from the environment variable SASLPasswordEnv (--sasl-password-env; empty:
	// DefaultPasswordEnv).
	SASLMechanism, SASLUser, SASLPasswordEnv string
}

// Resources are the CPU and memory of one worker, as Kubernetes quantities ("500m", "2",
// "1Gi"); empty: not set.
type Resources struct {
	CPU, Memory string
}

// Validate checks a Spec for the Job without contacting anything; an error names the field
// and the fix.
func (s Spec) Validate() error {
	return s.validate(s.checkFleet, s.Target.check, s.checkKube, s.checkNames, s.checkSecret, s.checkResources, s.checkTimes)
}

// validateLines checks what the shell lines use: the run, N and the target.
func (s Spec) validateLines() error { return s.validate(s.checkFleet, s.Target.check) }

func (s Spec) validate(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return fmt.Errorf("%w: %w", ErrSpec, err)
		}
	}
	return nil
}

func (s Spec) checkFleet() error {
	if err := fleet.CheckRunID(s.RunID); err != nil {
		return err
	}
	if s.Workers < 1 {
		return fmt.Errorf("workers %d: give 1 or more", s.Workers)
	}
	return nil
}

func (s Spec) checkKube() error {
	if errs := content.IsLabelValue(s.RunID); len(errs) > 0 {
		return fmt.Errorf("run id %q cannot be a Kubernetes label value (%s): use a run id of at most 63 letters, digits, '-', '_' or '.'", s.RunID, strings.Join(errs, "; "))
	}
	if strings.TrimSpace(s.Image) == "" || strings.ContainsAny(s.Image, " \t\r\n") {
		return fmt.Errorf("image %q: give the container image holding plimsoll of the coordinator's version, e.g. registry.example.com/plimsoll:v1.0.0", s.Image)
	}
	return nil
}

func (s Spec) checkNames() error {
	if errs := validation.IsDNS1123Label(s.jobName()); len(errs) > 0 {
		from := ""
		if s.Name == "" {
			from = " (from the run id)"
		}
		return fmt.Errorf("job name %q%s: %s; give a job name of at most 63 lowercase letters, digits and '-'", s.jobName(), from, strings.Join(errs, "; "))
	}
	if s.Namespace == "" {
		return nil
	}
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", s.Namespace, strings.Join(errs, "; "))
	}
	return nil
}

// jobName is the Job's name, the default when none is given.
func (s Spec) jobName() string {
	if s.Name != "" {
		return s.Name
	}
	return "plimsoll-" + s.RunID
}

func (t Target) check() error {
	if _, err := target.ParseBootstrap(t.Bootstrap); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("tls cert and key: give both (--tls-cert with --tls-key) or neither")
	}
	return t.checkSASL()
}

func (t Target) checkSASL() error {
	if t.SASLMechanism == "" {
		if t.SASLUser != "" || t.SASLPasswordEnv != "" {
			return errors.New("sasl user or password variable without a mechanism: give the sasl mechanism too")
		}
		return nil
	}
	known := false
	for _, m := range target.Mechanisms {
		known = known || strings.EqualFold(m, t.SASLMechanism)
	}
	if !known {
		return fmt.Errorf("sasl mechanism %q: use one of %s", t.SASLMechanism, strings.Join(target.Mechanisms, ", "))
	}
	if t.SASLUser == "" {
		return fmt.Errorf("sasl mechanism %s without a user: give the sasl user", t.SASLMechanism)
	}
	if errs := content.IsCIdentifier(t.passwordEnv()); len(errs) > 0 {
		return fmt.Errorf("sasl password variable %q: %s", t.passwordEnv(), strings.Join(errs, "; "))
	}
	return nil
}

// usesTLS reports whether the workers connect with TLS.
func (t Target) usesTLS() bool { return t.TLS || t.CAFile != "" || t.CertFile != "" }

// needsSecret reports whether the target has anything the Job takes from the Secret.
func (t Target) needsSecret() bool {
	return t.CAFile != "" || t.CertFile != "" || t.SASLMechanism != ""
}

// passwordEnv is the variable holding the SASL password.
func (t Target) passwordEnv() string {
	if t.SASLPasswordEnv != "" {
		return t.SASLPasswordEnv
	}
	return DefaultPasswordEnv
}

func (s Spec) checkSecret() error {
	switch {
	case s.Target.needsSecret() && s.Secret == "":
		return errors.New("the target has TLS files or SASL but no secret is named: create a Kubernetes Secret holding them (docs/workers.md) and name it")
	case !s.Target.needsSecret() && s.Secret != "":
		return fmt.Errorf("secret %q named, but the target takes no TLS file and no SASL: drop the secret, or give the tls or sasl settings it serves", s.Secret)
	case s.Secret == "":
		return nil
	}
	if errs := validation.IsDNS1123Subdomain(s.Secret); len(errs) > 0 {
		return fmt.Errorf("secret %q: %s", s.Secret, strings.Join(errs, "; "))
	}
	return nil
}

func (s Spec) checkResources() error {
	_, err := s.resources()
	return err
}

func (s Spec) checkTimes() error {
	switch {
	case s.Duration <= 0:
		return fmt.Errorf("duration %s: give the run's expected duration (its warm-up, measurement and drain, or the whole search), e.g. 30m", s.Duration)
	case s.Margin < 0:
		return fmt.Errorf("margin %s: give a positive margin, or zero for %s", s.Margin, DefaultMargin)
	case s.Duration > math.MaxInt64-max(s.Margin, DefaultMargin):
		return fmt.Errorf("duration %s and margin %s: their sum overflows; give a run's real duration", s.Duration, s.Margin)
	case s.TTL < 0 || s.TTL > math.MaxInt32*time.Second:
		return fmt.Errorf("ttl %s: give a positive time of at most %d seconds, or zero for %s", s.TTL, math.MaxInt32, DefaultTTL)
	}
	return nil
}

// deadline is the Job's active deadline: the run's duration and the margin, whole seconds up.
func (s Spec) deadline() int64 {
	m := s.Margin
	if m == 0 {
		m = DefaultMargin
	}
	return int64((s.Duration + m + time.Second - 1) / time.Second)
}

// ttl is how long the finished Job is kept, whole seconds up.
func (s Spec) ttl() int32 {
	t := s.TTL
	if t == 0 {
		t = DefaultTTL
	}
	return int32((t + time.Second - 1) / time.Second)
}

// idFlag is the worker's flag that gives RunID: FlagSearch for a search, else FlagRunID.
func (s Spec) idFlag() string {
	if s.Search {
		return FlagSearch
	}
	return FlagRunID
}
