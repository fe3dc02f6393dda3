package input

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

// ErrInvalid is wrapped by every error about an input value or combination.
var ErrInvalid = errors.New("invalid model input")

// Error is a bad input, located by Where: "--produce" for a flag, "model.yaml:3: produce" for a
// file. Err says what is wrong and how to fix it.
type Error struct {
	Where string
	Err   error
}

func (e *Error) Error() string {
	if e.Where == "" {
		return e.Err.Error()
	}
	return e.Where + ": " + e.Err.Error()
}

// Unwrap exposes the cause, which wraps ErrInvalid (or units.ErrSyntax for a bad quantity).
func (e *Error) Unwrap() error { return e.Err }

// invalid is a message that matches ErrInvalid without repeating its text.
type invalid struct{ msg string }

func (e *invalid) Error() string { return e.msg }
func (e *invalid) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalid{fmt.Sprintf(format, args...)}
}

// Key describes one input: its flag and YAML key, the kind of value it takes, its default.
type Key struct {
	Name    string // flag name without dashes, and YAML key
	Arg     string // placeholder in help: N, RATE, BYTES, DURATION, ...
	Default string // shown in help; "" when there is none
	Usage   string
	set     func(in *Input, v string) error
}

// Keys lists every input in help order.
var Keys = []Key{
	{"brokers", "N", "", "number of brokers", setInt(1, func(in *Input) *int { return &in.Cluster.Brokers })},
	{"partitions", "N", "", "leader partitions over all topics (default: an exactly even spread)", setInt(1, func(in *Input) *int { return &in.Cluster.Partitions })},
	{"replication-factor", "N", "", "replicas of each partition", setInt(1, func(in *Input) *int { return &in.Cluster.ReplicationFactor })},
	{"consumer-groups", "N", "", "consumer groups reading from the tail (page cache); none unless given, while run and limit read with 1 to measure end-to-end latency and loss", setInt(0, func(in *Input) *int { return &in.Cluster.ConsumerGroups })},
	{"lagging-consumer-groups", "N", "", "consumer groups reading from disk", setInt(0, func(in *Input) *int { return &in.Cluster.LaggingConsumerGroups })},
	{"produce", "RATE", "", "bytes/s on the producers' wire, e.g. 300MB/s, 2.5Gbit/s", setRate(func(in *Input) *float64 { return &in.ProduceBytesPerSec })},
	{"messages-per-sec", "COUNT", "", "messages/s produced, e.g. 1.5M (with --message-size for bytes)", setMessages},
	{"message-size", "BYTES", "", "payload (value) bytes per message", setMessageSize},
	{"record-format", "FORMAT", "v2", "record format: v0, v1 or v2", setFormat},
	{"batch-size", "BYTES", "16384", "producer batch.size (0: one record per batch)", setBatchSize},
	{"key-size", "BYTES", "0", "key bytes per message (0: null key)", setBytes(0, func(in *Input) *int { return &in.Message.KeyBytes })},
	{"compression-ratio", "RATIO", "1", "uncompressed / compressed size of a batch's records", setCompression},
	{"nic", "RATE", "", "each broker's network capacity per direction (full duplex)", setRate(func(in *Input) *float64 { return &in.Cluster.NIC })},
	{"link-overhead", "FRACTION", "0", "link bytes beyond the records', per record byte (headers, acks, framing), e.g. 0.12 or 12%", setLinkOverhead},
	{"disk-write", "RATE", "", "each broker's disk write bandwidth", setRate(func(in *Input) *float64 { return &in.Cluster.DiskWrite })},
	{"disk-read", "RATE", "", "each broker's disk read bandwidth", setRate(func(in *Input) *float64 { return &in.Cluster.DiskRead })},
	{"max-utilization", "FRACTION", "0.8", "share of each capacity to plan up to, e.g. 0.8 or 80%", setUtilization},
	{"brokers-down", "N|PERCENT", "0", "brokers the ceiling and headroom must survive losing, e.g. 1 or 20%", setBrokersDown},
	{"broker-limit", "RATE", "", "a measured per-broker limit (cluster produce / brokers at overload)", setRate(func(in *Input) *float64 { return &in.Sizing.BrokerLimit })},
	{"consumer-latency", "DURATION", "", "consumer time per message for Little's law, e.g. 10ms", setLatency},
	{"partition-throughput", "RATE", "", "measured produce rate of one partition", setRate(func(in *Input) *float64 { return &in.Sizing.PartitionThroughput })},
	{"consumer-partition-throughput", "RATE", "", "measured consume rate of one partition", setRate(func(in *Input) *float64 { return &in.Sizing.ConsumerPartitionThroughput })},
	{"max-map-count", "N", "65530", "the brokers' vm.max_map_count", setInt(model.MapsPerPartition, func(in *Input) *int { return &in.Sizing.MaxMapCount })},
}

// Lookup finds a key by name.
func Lookup(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Input gathers the model's inputs from flags and files.
type Input struct {
	Cluster            model.Cluster
	ProduceBytesPerSec float64
	MessagesPerSec     float64
	Message            model.Message // used when message-size is given
	Sizing             model.Sizing

	downPercent float64           // brokers-down given as a percentage, resolved in Model
	where       map[string]string // key -> where it was given
	raw         map[string]string // key -> value as given
}

// New returns an Input holding the defaults.
func New() *Input {
	in := &Input{where: map[string]string{}, raw: map[string]string{}}
	for _, k := range Keys {
		if k.Default != "" {
			if err := k.set(in, k.Default); err != nil {
				panic("model/input: bad default for " + k.Name + ": " + err.Error())
			}
		}
	}
	return in
}

// Check parses value as key would, without keeping it: for validating a flag as it is parsed.
func Check(key, value string) error {
	k, ok := Lookup(key)
	if !ok {
		return invalidf("unknown input %q", key)
	}
	return k.set(New(), value)
}

// Set parses value for key and keeps it; where says where it came from ("--brokers",
// "model.yaml:3: brokers") for error messages. A later Set of the same key wins.
func (in *Input) Set(key, value, where string) error {
	k, ok := Lookup(key)
	if !ok {
		return &Error{Where: where, Err: invalidf("unknown input %q%s", key, suggest(key))}
	}
	if err := k.set(in, strings.TrimSpace(value)); err != nil {
		return &Error{Where: where, Err: err}
	}
	in.where[key], in.raw[key] = where, value
	return nil
}

// Given returns the inputs that were set, by key, as they were written.
func (in *Input) Given() map[string]string {
	out := make(map[string]string, len(in.raw))
	for k, v := range in.raw {
		out[k] = v
	}
	return out
}

// Where tells where key was given, or its flag if it was not.
func (in *Input) Where(key string) string {
	if w, ok := in.where[key]; ok {
		return w
	}
	return "--" + key
}

func (in *Input) has(key string) bool { _, ok := in.raw[key]; return ok }

// SizingMode tells whether the inputs ask how many brokers a load needs: a target load
// (--produce, or --messages-per-sec with --message-size) and a capacity, but no --brokers.
func (in *Input) SizingMode() bool {
	load := in.has("produce") || in.has("messages-per-sec") && in.has("message-size")
	capacity := in.has("nic") || in.has("disk-write") || in.has("disk-read")
	return load && capacity && !in.has("brokers")
}

// Model checks how the inputs combine and returns them as the model's types.
func (in *Input) Model() (model.Cluster, model.Traffic, model.Sizing, error) {
	fail := func(key, format string, args ...any) (model.Cluster, model.Traffic, model.Sizing, error) {
		where := ""
		if key != "" {
			where = in.Where(key)
		}
		return model.Cluster{}, model.Traffic{}, model.Sizing{}, &Error{Where: where, Err: invalidf(format, args...)}
	}
	if len(in.raw) == 0 {
		return fail("", "nothing to model: give the cluster (--brokers, --replication-factor), its traffic (--produce or --messages-per-sec) and what to find (e.g. --nic)")
	}
	if in.has("produce") && in.has("messages-per-sec") {
		return fail("messages-per-sec", "give either --produce or --messages-per-sec, not both")
	}
	for _, k := range []string{"record-format", "batch-size", "key-size", "compression-ratio"} {
		if in.has(k) && !in.has("message-size") {
			return fail(k, "describes the messages: give --message-size too")
		}
	}
	byteRate := in.has("produce") || in.has("messages-per-sec") && in.has("message-size")
	msgRate := in.has("messages-per-sec") || in.has("produce") && in.has("message-size")
	if in.has("consumer-latency") && !msgRate {
		return fail("consumer-latency", "Little's law needs a message rate: give --messages-per-sec (or --produce with --message-size)")
	}
	for _, k := range []string{"partition-throughput", "consumer-partition-throughput"} {
		if in.has(k) && !byteRate {
			return fail(k, "needs a byte rate: give --produce (or --messages-per-sec with --message-size)")
		}
	}
	c := in.Cluster
	if in.SizingMode() {
		if in.downPercent > 0 {
			return fail("brokers-down", "a share of brokers needs --brokers; without it (sizing) give a count, e.g. 1")
		}
		if in.has("broker-limit") {
			return fail("broker-limit", "the headroom of a measured limit needs --brokers; without it the brokers needed are sized from --nic, --disk-write and --disk-read")
		}
	} else if in.has("brokers-down") && !in.has("brokers") {
		return fail("brokers-down", "needs --brokers, or a target load (--produce) and a capacity (--nic, --disk-write) to find how many brokers it needs")
	}
	if in.downPercent > 0 {
		c.BrokersDown = model.BrokersDownOf(in.downPercent/100, c.Brokers)
	}
	t := model.Traffic{ProduceBytesPerSec: in.ProduceBytesPerSec, MessagesPerSec: in.MessagesPerSec}
	if in.has("message-size") {
		m := in.Message
		t.Message = &m
	}
	return c, t, in.Sizing, nil
}

// The parsers. Each error names the value and the fix; Set adds where it came from.

func setInt(minimum int, field func(*Input) *int) func(*Input, string) error {
	return func(in *Input, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return invalidf("%q is not a whole number", v)
		}
		if n < minimum {
			return invalidf("%d must be at least %d", n, minimum)
		}
		*field(in) = n
		return nil
	}
}

func setRate(field func(*Input) *float64) func(*Input, string) error {
	return func(in *Input, v string) error {
		r, err := units.ParseRate(v)
		if err != nil {
			return err
		}
		if r <= 0 {
			return invalidf("%q must be a positive rate, e.g. 100MB/s", v)
		}
		*field(in) = r
		return nil
	}
}

// parseBytes parses a whole number of bytes ("1000", "1KB", "16KiB") up to int32.
func parseBytes(v string, minimum int) (int, error) {
	b, err := units.ParseBytes(v)
	if err != nil {
		return 0, err
	}
	if b != math.Trunc(b) {
		return 0, invalidf("%q is not a whole number of bytes", v)
	}
	if b < float64(minimum) || b > math.MaxInt32 {
		return 0, invalidf("%q is out of range (%d to %d bytes)", v, minimum, math.MaxInt32)
	}
	return int(b), nil
}

func setBytes(minimum int, field func(*Input) *int) func(*Input, string) error {
	return func(in *Input, v string) error {
		n, err := parseBytes(v, minimum)
		if err != nil {
			return err
		}
		*field(in) = n
		return nil
	}
}

var setMessageSize = setBytes(1, func(in *Input) *int { return &in.Message.PayloadBytes })

// setBatchSize maps batch.size=0 (batching off) to the model's one-byte batch: one record each.
func setBatchSize(in *Input, v string) error {
	n, err := parseBytes(v, 0)
	if err != nil {
		return err
	}
	in.Message.BatchSize = max(n, 1)
	return nil
}

// ParseCount parses a count with an optional SI suffix and "/s": "1500000", "1.5M", "150k/s"
// (units.ParseCount).
func ParseCount(v string) (float64, error) {
	f, err := units.ParseCount(v)
	if err != nil {
		return 0, invalidf("%q is not a count (e.g. 1500000, 1.5M or 150k)", v)
	}
	return f, nil
}

func setMessages(in *Input, v string) error {
	f, err := ParseCount(v)
	if err != nil {
		return err
	}
	if f <= 0 {
		return invalidf("%q must be a positive message rate", v)
	}
	in.MessagesPerSec = f
	return nil
}

func setFormat(in *Input, v string) error {
	f, err := model.ParseRecordFormat(v)
	if err != nil {
		return invalidf("%q: use v0 (Kafka < 0.10), v1 (0.10) or v2 (0.11 and later)", v)
	}
	in.Message.Format = f
	return nil
}

func setCompression(in *Input, v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 0.1 && f <= 1000) {
		return invalidf("%q must be a number from 0.1 to 1000: uncompressed / compressed size, 1 for none", v)
	}
	in.Message.CompressionRatio = f
	return nil
}

// parsePercent parses "0.8" as 0.8 and "80%" as 0.8.
func parsePercent(v string) (float64, bool, error) {
	s := strings.TrimSpace(v)
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, pct, invalidf("%q is not a number or a percentage", v)
	}
	if pct {
		f /= 100
	}
	return f, pct, nil
}

func setUtilization(in *Input, v string) error {
	f, _, err := parsePercent(v)
	if err != nil {
		return err
	}
	if !(f > 0 && f <= 1) {
		return invalidf("%q must be above 0 and at most 1 (or 100%%)", v)
	}
	in.Cluster.MaxUtilization = f
	return nil
}

func setLinkOverhead(in *Input, v string) error {
	f, _, err := parsePercent(v)
	if err != nil {
		return err
	}
	if !(f >= 0 && f <= model.MaxLinkOverhead) {
		return invalidf("%q must be from 0 to %v (or 0%% to %v%%)", v, model.MaxLinkOverhead, 100*model.MaxLinkOverhead)
	}
	in.Cluster.LinkOverhead = f
	return nil
}

// setBrokersDown takes a count ("1") or a share of the brokers ("20%"), which Model rounds up
// to whole brokers.
func setBrokersDown(in *Input, v string) error {
	n, share, err := ParseBrokersDown(v)
	if err != nil {
		return err
	}
	in.downPercent, in.Cluster.BrokersDown = share*100, n
	return nil
}

// ParseBrokersDown parses brokers down as a count ("1": n) or a share of the brokers ("20%":
// share 0.2, which model.BrokersDownOf turns into brokers once their number is known).
func ParseBrokersDown(v string) (n int, share float64, err error) {
	if strings.HasSuffix(strings.TrimSpace(v), "%") {
		f, _, err := parsePercent(v)
		if err != nil {
			return 0, 0, err
		}
		if !(f >= 0 && f < 1) {
			return 0, 0, invalidf("%q must be at least 0%% and below 100%%", v)
		}
		return 0, f, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, 0, invalidf("%q must be a whole number of brokers (0 or more) or a percentage such as 20%%", v)
	}
	return n, 0, nil
}

func setLatency(in *Input, v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return invalidf("%q is not a duration: give a number with a unit, e.g. 10ms or 1.5s", v)
	}
	if d <= 0 {
		return invalidf("%q must be positive", v)
	}
	in.Sizing.ConsumerLatency = d
	return nil
}

// suggest proposes the closest known key for a misspelt one.
func suggest(key string) string {
	best, bestD := "", 4 // only close matches
	norm := strings.ReplaceAll(strings.ToLower(key), "_", "-")
	for _, k := range Keys {
		if d := distance(norm, k.Name); d < bestD {
			best, bestD = k.Name, d
		}
	}
	if best == "" {
		return " (the keys are the flag names, e.g. replication-factor)"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
