package kafkaprops

import (
	"encoding/json"
	"fmt"
	"iter"
	"sort"
	"strings"
)

// Prop is one Kafka client or topic property and where it was set.
type Prop struct {
	Key, Value string
	// Origin says where the value came from, for errors and reports: "client.properties:3",
	// "workload.yaml:12", "--producer-prop"; "" when set by code.
	Origin string
	// weak marks a value read from a config file (--producer.config, producer.config:): an
	// explicit setting wins over it whichever comes first, as in Kafka's own perf tools.
	weak bool
}

// Props holds Kafka properties by their Kafka names (acks, linger.ms, ...). The zero value is an
// empty set ready to use. Copies share storage; use Clone for an independent copy.
type Props struct {
	m map[string]Prop
	// ignored holds the keys plimsoll owns (bootstrap.servers, serializers, group.id): accepted so
	// users can bring their files unchanged, never applied, listed so the CLI can say so.
	ignored []Prop
}

// Set sets key to value as an explicit setting. A key plimsoll owns (bootstrap.servers,
// key/value (de)serializers, group.id) is recorded in Ignored instead. It fails only on an empty
// key; names and values are checked by Check, so a whole file can be reported at once.
func (p *Props) Set(key, value string) error {
	return p.SetAt(key, value, "", false)
}

// SetAt is Set with the value's origin ("client.properties:3", "--producer-prop"). A weak value
// (from a config file) does not replace an explicit one already set.
func (p *Props) SetAt(key, value, origin string, weak bool) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("empty property name (write key=value, e.g. linger.ms=5)")
	}
	if OwnedReason(key) != "" {
		p.ignored = append(p.ignored, Prop{Key: key, Value: value, Origin: origin})
		return nil
	}
	if p.m == nil {
		p.m = make(map[string]Prop)
	}
	if old, ok := p.m[key]; ok && weak && !old.weak {
		return nil // an explicit setting beats a config file's
	}
	p.m[key] = Prop{Key: key, Value: value, Origin: origin, weak: weak}
	return nil
}

// Get returns the value of key and whether it is set.
func (p Props) Get(key string) (string, bool) {
	v, ok := p.m[key]
	return v.Value, ok
}

// Lookup returns the property with its origin.
func (p Props) Lookup(key string) (Prop, bool) {
	v, ok := p.m[key]
	return v, ok
}

// Delete removes key.
func (p *Props) Delete(key string) { delete(p.m, key) }

// Len is the number of properties set (ignored ones not counted).
func (p Props) Len() int { return len(p.m) }

// Keys returns the property names in sorted order.
func (p Props) Keys() []string {
	keys := make([]string, 0, len(p.m))
	for k := range p.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// All yields the properties in key order.
func (p Props) All() iter.Seq[Prop] {
	return func(yield func(Prop) bool) {
		for _, k := range p.Keys() {
			if !yield(p.m[k]) {
				return
			}
		}
	}
}

// Map returns a copy of the properties as a plain map.
func (p Props) Map() map[string]string {
	out := make(map[string]string, len(p.m))
	for k, v := range p.m {
		out[k] = v.Value
	}
	return out
}

// Ignored returns the properties plimsoll owns that were given and will not be applied, in the
// order they were given.
func (p Props) Ignored() []Prop { return append([]Prop(nil), p.ignored...) }

// AddIgnored records properties plimsoll owns, as read elsewhere (a file merged into p).
func (p *Props) AddIgnored(props ...Prop) { p.ignored = append(p.ignored, props...) }

// Clone returns a deep copy.
func (p Props) Clone() Props {
	c := Props{ignored: append([]Prop(nil), p.ignored...)}
	if p.m != nil {
		c.m = make(map[string]Prop, len(p.m))
		for k, v := range p.m {
			c.m[k] = v
		}
	}
	return c
}

// Merged returns p with over's properties on top (over wins).
func (p Props) Merged(over Props) Props {
	c := p.Clone()
	for k, v := range over.m {
		if c.m == nil {
			c.m = make(map[string]Prop)
		}
		c.m[k] = v
	}
	c.ignored = append(c.ignored, over.ignored...)
	return c
}

// ForRole keeps the properties a client of role uses, and names Kafka does not define (so that
// they are still reported).
func (p Props) ForRole(r Role) Props {
	c := p.Clone()
	for k := range c.m {
		if d, ok := Lookup(k); ok && !r.wants(d) {
			delete(c.m, k)
		}
	}
	return c
}

// String renders the properties as key=value lines in key order, in Java .properties syntax.
// Secret values (passwords, sasl.jaas.config) are shown as [hidden] so the text can go into
// reports and results; use Format for the full text.
func (p Props) String() string { return p.format(true) }

// Format renders the properties as a .properties text that Parse reads back unchanged, secrets
// included.
func (p Props) Format() string { return p.format(false) }

func (p Props) format(redact bool) string {
	var b strings.Builder
	for _, k := range p.Keys() {
		v := p.m[k].Value
		if redact && IsSecret(k) {
			v = "[hidden]"
		}
		b.WriteString(escape(k, true))
		b.WriteByte('=')
		b.WriteString(escape(v, false))
		b.WriteByte('\n')
	}
	return b.String()
}

// MarshalJSON renders the properties as a JSON object, secrets hidden.
func (p Props) MarshalJSON() ([]byte, error) {
	m := p.Map()
	for k := range m {
		if IsSecret(k) {
			m[k] = "[hidden]"
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a JSON object of property names to values.
func (p *Props) UnmarshalJSON(data []byte) error {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*p = Props{}
	for k, v := range m {
		if err := p.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// escape escapes s for a .properties file; keys also escape the separators and space.
//
// Hand-written although github.com/magiconair/properties has a writer: its writer leaves a
// leading '#' or '!' of a key unescaped (the line then reads back as a comment) and a
// trailing space of a value unescaped (Parse drops it), so its output does not read back
// unchanged; TestLibraryGaps shows both.
func escape(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':':
			if key {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case '#', '!':
			if key && i == 0 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case ' ':
			// Keys end at a space; values lose leading and trailing spaces unless escaped.
			if key || i == 0 || i == len(s)-1 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			if r < 0x20 || r == 0x7f || r == '\ufeff' {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
