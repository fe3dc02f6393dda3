package kafkaprops

import (
	"math"
	"sort"
	"strings"
)

// Kind is a property's type as Kafka's ConfigDef declares it.
type Kind uint8

const (
	KindString   Kind = iota
	KindInt           // Java int
	KindLong          // Java long
	KindShort         // Java short
	KindDouble        // Java double
	KindBool          // true or false, any case
	KindList          // comma-separated
	KindClass         // a Java class name
	KindPassword      // never echoed
	KindEnum          // one of Values
)

// Scope is a bit set of the configs that define a property.
type Scope uint8

const (
	ScopeProducer Scope = 1 << iota // ProducerConfig
	ScopeConsumer                   // ConsumerConfig
	ScopeTopic                      // TopicConfig (topic-level configs)
	ScopeBroker                     // a broker setting (server.properties)
	ScopeClients  = ScopeProducer | ScopeConsumer
)

// Use says what plimsoll's Go client does with a client property.
type Use uint8

const (
	// Refused: a Kafka property plimsoll's client cannot honour; setting it is an error (Why
	// says why and what to do instead), so a run never measures something other than asked.
	Refused Use = iota
	// Mapped: plimsoll's client honours it (a franz-go option or plimsoll's own behaviour).
	Mapped
	// Owned: plimsoll sets it itself (where to connect, serializers, group names): accepted so
	// users can bring their files unchanged, never applied, noted (Why says why).
	Owned
	// Target: a security setting; the target's flags (--tls-ca, --sasl-mechanism, ...) own it.
	Target
)

// NoMin marks a number without a lower bound.
const NoMin = math.MinInt64

// Def is one Kafka property.
type Def struct {
	Name  string
	Scope Scope
	Kind  Kind
	// Default is Kafka's default as Kafka prints it; "" when Kafka's default is null or empty
	// (for topic configs: the broker's log.* setting, whose default is given where known).
	Default string
	// ConsumerDefault is the consumer's default where it differs from the producer's.
	ConsumerDefault string
	// Min and Max bound numbers as Kafka's validators do; Min NoMin and Max 0 mean unbounded
	// (within the Java type).
	Min, Max int64
	Values   []string // the valid values of an enum
	Fold     bool     // enum values compare case-insensitively, as Kafka does for this config
	Doc      string   // what it does, in one line
	Use      Use      // client properties: how plimsoll's Go client treats it
	Why      string   // Refused and Owned: the reason shown to the user
}

// defaultFor returns the default for a client of role.
func (d Def) defaultFor(r Role) string {
	if r == RoleConsumer && d.ConsumerDefault != "" {
		return d.ConsumerDefault
	}
	return d.Default
}

// Builders for the tables: d(name, scope, kind, default, doc) then the limits.
func d(name string, s Scope, k Kind, dflt, doc string) Def {
	return Def{Name: name, Scope: s, Kind: k, Default: dflt, Doc: doc, Min: NoMin}
}
func (x Def) min(n int64) Def        { x.Min = n; return x }
func (x Def) max(n int64) Def        { x.Max = n; return x }
func (x Def) mapped() Def            { x.Use = Mapped; return x }
func (x Def) refused(why string) Def { x.Use, x.Why = Refused, why; return x }
func (x Def) owned(why string) Def   { x.Use, x.Why = Owned, why; return x }
func (x Def) target() Def            { x.Use = Target; return x }
func (x Def) consumerDefault(v string) Def {
	x.ConsumerDefault = v
	return x
}
func (x Def) enum(fold bool, values ...string) Def {
	x.Kind, x.Values, x.Fold = KindEnum, values, fold
	return x
}

var (
	clientIndex = index(clientDefs, securityDefs)
	topicIndex  = index(topicDefs)
	brokerIndex = index(brokerDefs)
)

func index(tables ...[]Def) map[string]Def {
	m := map[string]Def{}
	for _, t := range tables {
		for _, d := range t {
			m[d.Name] = d
		}
	}
	return m
}

// Lookup returns the client property (producer, consumer or common) called name.
func Lookup(name string) (Def, bool) {
	d, ok := clientIndex[name]
	return d, ok
}

// LookupTopic returns the topic config called name.
func LookupTopic(name string) (Def, bool) {
	d, ok := topicIndex[name]
	return d, ok
}

// LookupBroker returns the broker setting called name (only those plimsoll relies on).
func LookupBroker(name string) (Def, bool) {
	d, ok := brokerIndex[name]
	return d, ok
}

// Defs lists the properties a role can hold, sorted by name.
func Defs(r Role) []Def {
	src := clientIndex
	if r == RoleTopic {
		src = topicIndex
	}
	var out []Def
	for _, d := range src {
		if r.wants(d) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookup returns the def of key among the names a role can hold (client or topic configs).
func (r Role) lookup(key string) (Def, bool) {
	if r == RoleTopic {
		return LookupTopic(key)
	}
	return Lookup(key)
}

// IsSecret reports whether the value of key must never be shown: passwords, keys, JAAS
// configurations.
func IsSecret(key string) bool {
	d, ok := clientIndex[key]
	return ok && d.Kind == KindPassword || strings.Contains(key, "password") || strings.HasSuffix(key, ".secret")
}

// OwnedReason says why plimsoll ignores a property it sets itself, or "" if key is not one.
func OwnedReason(key string) string {
	if d, ok := clientIndex[key]; ok && d.Use == Owned {
		return d.Why
	}
	return ""
}

// passThroughPrefixes are families whose newer members (Kafka adds OAuth settings often) are
// named in a warning rather than an unknown-name error when not close to a known name.
var passThroughPrefixes = []string{"ssl.", "sasl."}
