package fault

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Action is what a fault does to its broker.
type Action string

// The actions.
const (
	Kill Action = "kill" // SIGKILL; restarted on the same data when the fault ends
	Stop Action = "stop" // SIGSTOP; SIGCONT when the fault ends
	Cut  Action = "cut"  // the emulated data link down; up again when the fault ends
)

// Actions are the actions in the order help and errors list them.
var Actions = []Action{Kill, Stop, Cut}

// ErrSpec marks a spec that does not parse or does not fit the run or the cluster.
var ErrSpec = errors.New("bad fault")

// Syntax is the spec's form, for errors and help.
const Syntax = "ACTION BROKER at DURATION for DURATION, e.g. 'kill 2 at 20s for 15s' (ACTION kill, stop or cut)"

// Spec is one planned fault: Action on Broker from At after the start of the measured window,
// for For.
type Spec struct {
	Action Action
	Broker int32
	At     time.Duration
	For    time.Duration
}

// String is the spec in its own syntax, as Parse reads it.
func (s Spec) String() string {
	return fmt.Sprintf("%s %d at %s for %s", s.Action, s.Broker, s.At, s.For)
}

// End is when the fault ends, from the start of the measured window.
func (s Spec) End() time.Duration { return s.At + s.For }

// Parse reads one spec. Words are separated by spaces; "at" and "for" take Go durations.
func Parse(in string) (Spec, error) {
	f := strings.Fields(in)
	if len(f) != 6 || f[2] != "at" || f[4] != "for" {
		return Spec{}, fmt.Errorf("%w %q: give %s", ErrSpec, in, Syntax)
	}
	s := Spec{Action: Action(f[0])}
	if !slices.Contains(Actions, s.Action) {
		return Spec{}, fmt.Errorf("%w %q: unknown action %q; give kill (SIGKILL, then restart), stop (SIGSTOP, then SIGCONT) or cut (emulated NICs: link down, then up)", ErrSpec, in, f[0])
	}
	id, err := strconv.ParseInt(f[1], 10, 32)
	if err != nil || id < 0 {
		return Spec{}, fmt.Errorf("%w %q: broker %q is not a broker id; give the id `plimsoll cluster status` shows", ErrSpec, in, f[1])
	}
	s.Broker = int32(id)
	if s.At, err = time.ParseDuration(f[3]); err != nil || s.At < 0 {
		return Spec{}, fmt.Errorf("%w %q: at %q: give a duration from the start of the measured window, e.g. 20s", ErrSpec, in, f[3])
	}
	if s.For, err = time.ParseDuration(f[5]); err != nil || s.For <= 0 {
		return Spec{}, fmt.Errorf("%w %q: for %q: give a positive duration, e.g. 15s", ErrSpec, in, f[5])
	}
	if s.End() < s.At { // overflow
		return Spec{}, fmt.Errorf("%w %q: at + for is too long", ErrSpec, in)
	}
	return s, nil
}

// Cluster is what a plan is checked against: the brokers' ids and whether their links are
// emulated.
type Cluster struct {
	Brokers []int32
	NIC     bool
}

// Check checks a plan against the cluster and a measured window of length window. Two faults
// on one broker must not overlap.
func Check(plan []Spec, c Cluster, window time.Duration) error {
	var errs []error
	for i, s := range plan {
		switch {
		case !slices.Contains(c.Brokers, s.Broker):
			errs = append(errs, fmt.Errorf("%w %q: the cluster has no broker %d; its brokers are %s", ErrSpec, s, s.Broker, ids(c.Brokers)))
		case s.Action == Cut && !c.NIC:
			errs = append(errs, fmt.Errorf("%w %q: cut needs emulated NICs; start the cluster with `plimsoll cluster up --nic RATE`, or use kill or stop", ErrSpec, s))
		case s.At >= window:
			errs = append(errs, fmt.Errorf("%w %q: at %s is not before the end of the %s measured window; give an earlier at or a longer --duration", ErrSpec, s, s.At, window))
		}
		for _, o := range plan[:i] {
			if o.Broker == s.Broker && s.At < o.End() && o.At < s.End() {
				errs = append(errs, fmt.Errorf("%w %q overlaps %q on broker %d; give one broker one fault at a time", ErrSpec, s, o, s.Broker))
			}
		}
	}
	return errors.Join(errs...)
}

func ids(bs []int32) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = strconv.Itoa(int(b))
	}
	return strings.Join(s, ", ")
}
