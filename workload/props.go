package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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

// runnerOwned lists the properties the runner sets itself; a value given for them is ignored.
var runnerOwned = map[string]string{
	"bootstrap.servers":  "plimsoll connects to the target cluster given on its command line",
	"key.serializer":     "plimsoll writes raw bytes",
	"value.serializer":   "plimsoll writes raw bytes",
	"key.deserializer":   "plimsoll reads raw bytes",
	"value.deserializer": "plimsoll reads raw bytes",
	"group.id":           "plimsoll names one group per consumer-groups entry for each run",
}

// Set sets key to value as an explicit setting. A key the runner owns (bootstrap.servers,
// key/value (de)serializers, group.id) is recorded in Ignored instead. It fails only on an empty
// key; names and values are checked by Check, so a whole file can be reported at once.
func (p *Props) Set(key, value string) error {
	return p.set(key, value, "", false)
}

func (p *Props) set(key, value, origin string, weak bool) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("empty property name (write key=value, e.g. linger.ms=5)")
	}
	if _, owned := runnerOwned[key]; owned {
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

// Ignored returns the runner-owned properties that were given and will not be applied, in the
// order they were given.
func (p Props) Ignored() []Prop { return append([]Prop(nil), p.ignored...) }

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

// merged returns p with over's properties on top (over wins).
func (p Props) merged(over Props) Props {
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

// String renders the properties as key=value lines in key order, in Java .properties syntax.
// Secret values (passwords, sasl.jaas.config) are shown as [hidden] so the text can go into
// reports and results; use Format for the full text.
func (p Props) String() string { return p.format(true) }

// Format renders the properties as a .properties text that ParseProperties reads back unchanged,
// secrets included.
func (p Props) Format() string { return p.format(false) }

func (p Props) format(redact bool) string {
	var b strings.Builder
	for _, k := range p.Keys() {
		v := p.m[k].Value
		if redact && isSecret(k) {
			v = "[hidden]"
		}
		b.WriteString(escapeProp(k, true))
		b.WriteByte('=')
		b.WriteString(escapeProp(v, false))
		b.WriteByte('\n')
	}
	return b.String()
}

// MarshalJSON renders the properties as a JSON object, secrets hidden.
func (p Props) MarshalJSON() ([]byte, error) {
	m := p.Map()
	for k := range m {
		if isSecret(k) {
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
		if err := p.set(k, v, "", false); err != nil {
			return err
		}
	}
	return nil
}

// escapeProp escapes s for a .properties file. Keys also escape the separators and space.
func escapeProp(s string, key bool) string {
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
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// ParseKeyValue splits "key=value" as given to --producer-prop and --consumer-prop. The key is
// trimmed and must not be empty; the value is kept as written (it may be empty).
func ParseKeyValue(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("%w: %q is not key=value (write it as a Kafka property, e.g. linger.ms=5)", ErrInvalid, s)
	}
	return k, v, nil
}

// LoadProperties reads a Java .properties file such as the one given to --producer.config.
// Errors name the file and line.
func LoadProperties(path string) (Props, error) {
	f, err := os.Open(path)
	if err != nil {
		return Props{}, &FieldError{Pos: path, Msg: fmt.Sprintf("cannot read the properties file: %v", unwrapPathErr(err)), Err: err}
	}
	defer f.Close()
	return ParseProperties(f, path)
}

// ParseProperties reads Java .properties text: # and ! comment lines, key=value, key: value or
// key value, lines continued with a trailing backslash, and the escapes \t \n \r \f \uXXXX and
// \c (c itself). name is used in errors as name:line. Unlike Java, unescaped trailing whitespace
// is dropped from values (Kafka trims typed values anyway; a stray space after a password is
// nearly always a mistake) and an empty key is an error. Later keys replace earlier ones.
func ParseProperties(r io.Reader, name string) (Props, error) {
	var p Props
	err := parseProperties(r, name, 1, false, &p)
	return p, err
}

// parseProperties reads into p; firstLine is the file line of the text's first line (text
// taken from a YAML block starts further down the file).
func parseProperties(r io.Reader, name string, firstLine int, weak bool, p *Props) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	sc.Split(scanPropLines)
	line := firstLine - 1
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == firstLine {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark some editors write
		}
		start := line
		if !utf8.ValidString(text) {
			return propErr(name, start, "the text is not valid UTF-8")
		}
		trimmed := strings.TrimLeft(text, " \t\f")
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
			continue
		}
		// Join continuation lines: an odd number of trailing backslashes continues the line.
		logical := trimmed
		for endsContinued(logical) {
			logical = logical[:len(logical)-1]
			if !sc.Scan() {
				break
			}
			line++
			next := sc.Text()
			if !utf8.ValidString(next) {
				return propErr(name, line, "the text is not valid UTF-8")
			}
			logical += strings.TrimLeft(next, " \t\f")
		}
		key, value, err := splitProp(logical)
		if err != nil {
			return propErr(name, start, err.Error())
		}
		if key == "" {
			return propErr(name, start, "empty property name (write key=value, e.g. linger.ms=5)")
		}
		if err := p.set(key, value, fmt.Sprintf("%s:%d", name, start), weak); err != nil {
			return propErr(name, start, err.Error())
		}
	}
	if err := sc.Err(); err != nil {
		return propErr(name, line+1, fmt.Sprintf("cannot read: %v", err))
	}
	return nil
}

func propErr(name string, line int, msg string) error {
	return &FieldError{Pos: fmt.Sprintf("%s:%d", name, line), Msg: msg}
}

// scanPropLines splits on \n, \r\n or a lone \r, the three line ends Java accepts.
func scanPropLines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // need one more byte to tell \r from \r\n
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func endsContinued(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProp splits a logical line into its unescaped key and value.
func splitProp(s string) (string, string, error) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(s) {
		i = len(s)
	}
	rawKey, rest := s[:i], s[i:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescapeProp(rawKey, false)
	if err != nil {
		return "", "", err
	}
	value, err := unescapeProp(rest, true)
	if err != nil {
		return "", "", fmt.Errorf("property %q: %v", key, err)
	}
	return key, value, nil
}

// unescapeProp resolves escapes; for values it drops unescaped trailing whitespace.
func unescapeProp(s string, trimTrailing bool) (string, error) {
	if trimTrailing {
		// Keep a trailing space that is escaped ("\ "): cut only past the last escape.
		end := len(s)
		for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\f') {
			if end >= 2 && endsContinued(s[:end-1]) {
				break
			}
			end--
		}
		s = s[:end]
	}
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash at end of input means nothing
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uXXXX escape %q (it needs four hex digits)`, s[i-1:])
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uXXXX escape %q (it needs four hex digits)`, s[i-1:i+5])
			}
			r := rune(v)
			// Java strings are UTF-16: join a surrogate pair written as two escapes.
			if r >= 0xD800 && r < 0xDC00 && i+11 <= len(s) && s[i+5] == '\\' && s[i+6] == 'u' {
				if lo, err := strconv.ParseUint(s[i+7:i+11], 16, 16); err == nil && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (rune(lo) - 0xDC00)
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				return "", fmt.Errorf(`\u escape %q is half of a UTF-16 surrogate pair`, s[i-1:i+5])
			}
			b.WriteRune(r)
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
