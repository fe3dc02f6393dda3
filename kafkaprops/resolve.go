package kafkaprops

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Input is what the configuration of a run's clients depends on.
type Input struct {
	// Producer and Consumer are the properties each client is given (common properties
	// already merged in, as workload's EffectiveProducerProps does).
	Producer, Consumer Props
	// MessageBytes is the size of a message value; KeyBytes of a key (0 without keys).
	MessageBytes, KeyBytes int
}

// Clients is the resolved configuration of a run's producers and consumers.
type Clients struct {
	Producer Producer
	Consumer Consumer
}

// Effective is what result.json records of the configuration.
func (c *Clients) Effective() EffectiveProps {
	return EffectiveProps{Producer: c.Producer.Record, Consumer: c.Consumer.Record}
}

// Resolve is the one way plimsoll turns Kafka properties into client configuration: workload
// validation, the load generator, limit and the benchmarks all call it. It checks every
// property (Admit), fills in Kafka's defaults and the defaults Kafka derives from other
// properties, derives batch.size from the message size unless the user set it (BatchSize),
// and checks what franz-go accepts. A conflict is only ever reported against a value the user
// set. Errors are *Error values (joined when there are several), each naming the property and
// where it was set.
func Resolve(in Input) (*Clients, error) {
	p, perr := ResolveProducer(in.Producer, in.MessageBytes, in.KeyBytes)
	c, cerr := ResolveConsumer(in.Consumer)
	if err := JoinErrors(flat(perr, cerr)); err != nil {
		return nil, err
	}
	return &Clients{Producer: *p, Consumer: *c}, nil
}

// flat spreads joined errors into one list.
func flat(errs ...error) []error {
	var out []error
	for _, e := range errs {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			if _, single := e.(*Error); !single {
				out = append(out, j.Unwrap()...)
				continue
			}
		}
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// plimsollDefaults are defaults plimsoll chooses over Kafka's, with the reason recorded.
var plimsollDefaults = map[Role]map[string]string{
	// The run's topics are created empty by the run, so "earliest" loses nothing and "latest"
	// could skip records produced before a partition's first fetch.
	RoleConsumer: {"auto.offset.reset": "earliest"},
}

// resolved holds one client's validated properties: the defaults overlaid with the user's.
type resolved struct {
	role  Role
	vals  map[string]string
	set   map[string]bool
	from  map[string]Prop
	notes []string
	errs  []error
}

// newResolved starts from the defaults of the properties plimsoll maps for role and applies
// props, collecting every error.
func newResolved(role Role, props Props) *resolved {
	r := &resolved{role: role, vals: map[string]string{}, set: map[string]bool{}, from: map[string]Prop{}}
	for _, d := range Defs(role) {
		if d.Use == Mapped && d.defaultFor(role) != "" {
			r.vals[d.Name] = d.defaultFor(role)
		}
	}
	for k, v := range plimsollDefaults[role] {
		r.vals[k] = v
	}
	for prop := range props.All() {
		r.apply(prop)
	}
	for _, ig := range props.Ignored() {
		r.note("%s ignored: %s", ig.Key, OwnedReason(ig.Key))
	}
	return r
}

func (r *resolved) apply(prop Prop) {
	if err := Admit(r.role, prop); err != nil {
		r.errs = append(r.errs, err)
		return
	}
	d, ok := Lookup(prop.Key)
	switch {
	case !ok || !r.role.wants(d):
		r.note("%s ignored: not a %s property (Kafka's %ss ignore it too)", prop.Key, r.role, r.role)
	case d.Use == Target:
		r.note("%s=%s: the target decides the security protocol (--tls, --sasl-mechanism)", prop.Key, strings.TrimSpace(prop.Value))
	case d.Use == Mapped:
		r.vals[d.Name], r.set[d.Name], r.from[d.Name] = normalize(d, prop.Value), true, prop
	}
}

// normalize spells a checked value as Kafka reads it: trimmed, booleans and enums in their
// canonical case, numbers without leading zeros or signs.
func normalize(d Def, v string) string {
	v = strings.TrimSpace(v)
	switch d.Kind {
	case KindBool:
		return strings.ToLower(v)
	case KindInt, KindLong, KindShort:
		n, _ := strconv.ParseInt(v, 10, 64)
		return strconv.FormatInt(n, 10)
	case KindEnum:
		e, _ := enumValue(v, d)
		return e
	}
	return v
}

func (r *resolved) str(k string) string { return r.vals[k] }
func (r *resolved) int(k string) int64  { v, _ := strconv.ParseInt(r.vals[k], 10, 64); return v }
func (r *resolved) bool(k string) bool  { return r.vals[k] == "true" }

// ms reads a number of milliseconds, saturating where a Java long outgrows a time.Duration.
func (r *resolved) ms(k string) time.Duration {
	n := r.int(k)
	if n > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Millisecond
}

func (r *resolved) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// fail records a problem with property k, placed where the user set it.
func (r *resolved) fail(k, format string, args ...any) {
	r.errs = append(r.errs, &Error{Pos: r.from[k].Origin, Name: k, Flag: r.role.Flag(), Msg: fmt.Sprintf(format, args...), Kind: ErrBadProperty})
}

// origin places a user-set property for a message: where it was set, or its name.
func (r *resolved) origin(k string) string { return where(r.from[k]) }

// goLimit checks a user-set number against what franz-go accepts.
func (r *resolved) goLimit(k string, lo, hi int64, why string) bool {
	if n := r.int(k); n < lo || n > hi {
		r.fail(k, "%d: plimsoll's Go client (franz-go) takes values between %d and %d (%s)", n, lo, hi, why)
		return false
	}
	return true
}

// resolveWith resolves props for role: steps settle the client's settings once the values
// themselves check out; the record of what was resolved, or every error found, comes back.
func resolveWith(role Role, props Props, steps func(*resolved)) (ClientProps, error) {
	r := newResolved(role, props)
	if len(r.errs) > 0 {
		return ClientProps{}, JoinErrors(r.errs)
	}
	steps(r)
	if len(r.errs) > 0 {
		return ClientProps{}, JoinErrors(r.errs)
	}
	return r.record(), nil
}

func (r *resolved) record() ClientProps {
	cp := ClientProps{Props: r.vals, Notes: r.notes}
	for k := range r.set {
		cp.Set = append(cp.Set, k)
	}
	sort.Strings(cp.Set)
	return cp
}
