package arms

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/units"
)

// Arm is one side of an A/B experiment. The zero value is plimsoll's defaults: the local
// cluster of `plimsoll cluster up` with the workload as the command gives it.
type Arm struct {
	// Kafka is the Apache Kafka release of the brokers ("" = localkafka's default).
	Kafka string `json:"kafka,omitempty"`
	// JDK is the home of the JDK whose bin/java runs the brokers ("" = java on PATH).
	JDK string `json:"jdk,omitempty"`
	// Listener is the client listener the load goes through: "plaintext" (default) or "ssl".
	Listener string `json:"listener,omitempty"`
	// SASL is the SASL mechanism of the clients (plain, scram-sha-256, scram-sha-512), "" = none.
	SASL string `json:"sasl,omitempty"`
	// Brokers is the number of brokers of the arm's cluster (0 = localkafka's default, 3).
	Brokers int `json:"brokers,omitempty"`
	// Heap is each broker's JVM heap, e.g. 512m ("" = localkafka's default).
	Heap string `json:"heap,omitempty"`
	// NIC is each broker's emulated NIC rate in bytes/s per direction (0 = loopback).
	NIC float64 `json:"nic_bytes_per_sec,omitempty"`
	// MessageSize is the workload's message size in bytes (0 = as the command gives it).
	MessageSize int `json:"message_size,omitempty"`
	// Broker, Producer and Consumer are properties set on every broker, producer and consumer.
	Broker   map[string]string `json:"broker,omitempty"`
	Producer map[string]string `json:"producer,omitempty"`
	Consumer map[string]string `json:"consumer,omitempty"`
}

// Keys lists the keys an arm accepts, as its error messages show them.
const Keys = "kafka=VERSION, jdk=PATH, listener=plaintext|ssl, sasl=plain|scram-sha-256|scram-sha-512, " +
	"heap=SIZE, nic=RATE, message-size=BYTES, broker:PROP=V, producer:PROP=V, consumer:PROP=V"

// Error is a bad arm entry: the flag and entry it came from, and what to write instead.
type Error struct {
	Flag  string // --a or --b
	Entry string // the entry as written, e.g. "kafka=4.x"
	Msg   string
}

func (e *Error) Error() string { return fmt.Sprintf("%s %q: %s", e.Flag, e.Entry, e.Msg) }

var (
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)
	heapRE    = regexp.MustCompile(`^[0-9]+[kKmMgG]$`)
)

// Parse reads an arm's spec: entries key=value separated by commas (a property value cannot
// hold a comma). An empty spec is the defaults. flag names the flag in errors (--a, --b).
func Parse(flag, spec string) (Arm, error) {
	var a Arm
	if strings.TrimSpace(spec) == "" {
		return a, nil
	}
	seen := map[string]bool{}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		key, val, ok := strings.Cut(entry, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || key == "" {
			return a, &Error{flag, entry, "not key=value; the keys are " + Keys}
		}
		if seen[key] {
			return a, &Error{flag, entry, fmt.Sprintf("%s is given twice; give each key once", key)}
		}
		seen[key] = true
		if msg := a.set(key, val); msg != "" {
			return a, &Error{flag, entry, msg}
		}
	}
	return a, nil
}

// set applies one entry, returning what is wrong with it ("" when nothing is).
func (a *Arm) set(key, val string) string {
	if role, prop, ok := strings.Cut(key, ":"); ok {
		return a.setProp(role, prop, val)
	}
	switch key {
	case "kafka":
		if !versionRE.MatchString(val) {
			return "give a Kafka release such as 4.1.0 or 3.9.1"
		}
		a.Kafka = val
	case "jdk":
		if val == "" {
			return "give the home directory of a JDK, e.g. jdk=/usr/lib/jvm/java-17-openjdk-amd64"
		}
		a.JDK = val
	case "listener":
		if val != "plaintext" && val != "ssl" {
			return "give listener=plaintext or listener=ssl"
		}
		a.Listener = val
	case "sasl":
		if !slices.Contains([]string{"plain", "scram-sha-256", "scram-sha-512"}, strings.ToLower(val)) {
			return "give sasl=plain, sasl=scram-sha-256 or sasl=scram-sha-512"
		}
		a.SASL = strings.ToLower(val)
	default:
		return a.setSized(key, val)
	}
	return ""
}

// setSized applies the entries whose values are quantities.
func (a *Arm) setSized(key, val string) string {
	switch key {
	case "brokers":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 32 {
			return "give a number of brokers from 1 to 32, e.g. brokers=3"
		}
		a.Brokers = n
	case "heap":
		if !heapRE.MatchString(val) {
			return "give a JVM heap size such as 512m or 1g"
		}
		a.Heap = val
	case "nic":
		r, err := units.ParseRate(val)
		if err != nil || r <= 0 {
			return "give a positive rate per direction, e.g. nic=16Mbit/s"
		}
		a.NIC = r
	case "message-size":
		n, err := strconv.Atoi(val)
		if err != nil || n < 24 {
			return "give a size in bytes of at least 24 (the stamp), e.g. message-size=1000"
		}
		a.MessageSize = n
	default:
		return "unknown key " + key + "; the keys are " + Keys
	}
	return ""
}

// setProp applies a broker:, producer: or consumer: property.
func (a *Arm) setProp(role, prop, val string) string {
	if prop == "" {
		return "name the property after the colon, e.g. " + role + ":linger.ms=5"
	}
	switch role {
	case "broker":
		a.Broker = put(a.Broker, prop, val)
		return ""
	case "producer", "consumer":
		r := kafkaprops.RoleProducer
		if role == "consumer" {
			r = kafkaprops.RoleConsumer
		}
		if err := kafkaprops.Admit(r, kafkaprops.Prop{Key: prop, Value: val}); err != nil {
			return err.Error()
		}
		if role == "producer" {
			a.Producer = put(a.Producer, prop, val)
		} else {
			a.Consumer = put(a.Consumer, prop, val)
		}
		return ""
	}
	return "unknown property prefix " + role + ":; use broker:, producer: or consumer:"
}

func put(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// Same reports whether two arms differ in nothing: the experiment is then an A/A noise check.
func Same(a, b Arm) bool {
	return a.Kafka == b.Kafka && a.JDK == b.JDK && a.listener() == b.listener() && a.SASL == b.SASL &&
		a.Brokers == b.Brokers && a.Heap == b.Heap && a.NIC == b.NIC && a.MessageSize == b.MessageSize &&
		maps.Equal(a.Broker, b.Broker) && maps.Equal(a.Producer, b.Producer) && maps.Equal(a.Consumer, b.Consumer)
}

func (a Arm) listener() string {
	if a.Listener == "" {
		return "plaintext"
	}
	return a.Listener
}

// ServerSide lists the arm's entries that change the cluster (not the clients), as key names:
// a remote cluster (--bootstrap) cannot take them.
func (a Arm) ServerSide() []string {
	var keys []string
	for _, c := range []struct {
		key string
		set bool
	}{{"kafka", a.Kafka != ""}, {"jdk", a.JDK != ""}, {"listener", a.Listener != ""}, {"sasl", a.SASL != ""},
		{"brokers", a.Brokers > 0}, {"heap", a.Heap != ""}, {"nic", a.NIC > 0}} {
		if c.set {
			keys = append(keys, c.key)
		}
	}
	for _, k := range sortedKeys(a.Broker) {
		keys = append(keys, "broker:"+k)
	}
	return keys
}

// String writes the arm back as a spec, keys in a fixed order; "defaults" for the zero arm.
func (a Arm) String() string {
	var e []string
	add := func(k, v string) {
		if v != "" {
			e = append(e, k+"="+v)
		}
	}
	add("kafka", a.Kafka)
	add("jdk", a.JDK)
	add("listener", a.Listener)
	add("sasl", a.SASL)
	if a.Brokers > 0 {
		add("brokers", strconv.Itoa(a.Brokers))
	}
	add("heap", a.Heap)
	if a.NIC > 0 {
		add("nic", strings.ReplaceAll(units.FormatBits(a.NIC), " ", ""))
	}
	if a.MessageSize > 0 {
		add("message-size", strconv.Itoa(a.MessageSize))
	}
	for _, p := range []struct {
		role string
		m    map[string]string
	}{{"broker", a.Broker}, {"producer", a.Producer}, {"consumer", a.Consumer}} {
		for _, k := range sortedKeys(p.m) {
			e = append(e, p.role+":"+k+"="+p.m[k])
		}
	}
	if len(e) == 0 {
		return "defaults"
	}
	return strings.Join(e, ",")
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
