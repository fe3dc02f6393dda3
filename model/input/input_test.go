package input

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

func TestSetValues(t *testing.T) {
	cases := []struct {
		key, value string
		check      func(in *Input) bool
	}{
		{"brokers", "3", func(in *Input) bool { return in.Cluster.Brokers == 3 }},
		{"partitions", " 3000 ", func(in *Input) bool { return in.Cluster.Partitions == 3000 }},
		{"consumer-groups", "0", func(in *Input) bool { return in.Cluster.ConsumerGroups == 0 }},
		{"produce", "300MB/s", func(in *Input) bool { return in.ProduceBytesPerSec == 300e6 }},
		{"produce", "2.5Gbit/s", func(in *Input) bool { return in.ProduceBytesPerSec == 2.5e9/8 }},
		{"produce", "125000KB/s", func(in *Input) bool { return in.ProduceBytesPerSec == 125e6 }},
		{"nic", "1MiB/s", func(in *Input) bool { return in.Cluster.NIC == 1<<20 }},
		{"messages-per-sec", "1.5M", func(in *Input) bool { return in.MessagesPerSec == 1.5e6 }},
		{"messages-per-sec", "150k/s", func(in *Input) bool { return in.MessagesPerSec == 150e3 }},
		{"messages-per-sec", "1e6", func(in *Input) bool { return in.MessagesPerSec == 1e6 }},
		{"message-size", "1KiB", func(in *Input) bool { return in.Message.PayloadBytes == 1024 }},
		{"key-size", "0", func(in *Input) bool { return in.Message.KeyBytes == 0 }},
		{"batch-size", "0", func(in *Input) bool { return in.Message.BatchSize == 1 }},
		{"batch-size", "64KiB", func(in *Input) bool { return in.Message.BatchSize == 65536 }},
		{"record-format", "V1", func(in *Input) bool { return in.Message.Format == model.FormatV1 }},
		{"compression-ratio", "2.5", func(in *Input) bool { return in.Message.CompressionRatio == 2.5 }},
		{"max-utilization", "70%", func(in *Input) bool { return in.Cluster.MaxUtilization == 0.7 }},
		{"max-utilization", "1", func(in *Input) bool { return in.Cluster.MaxUtilization == 1 }},
		{"link-overhead", "12%", func(in *Input) bool { return in.Cluster.LinkOverhead == 0.12 }},
		{"link-overhead", "0.067", func(in *Input) bool { return in.Cluster.LinkOverhead == 0.067 }},
		{"brokers-down", "2", func(in *Input) bool { return in.Cluster.BrokersDown == 2 }},
		{"brokers-down", "20%", func(in *Input) bool { return in.downPercent == 20 }},
		{"consumer-latency", "10ms", func(in *Input) bool { return in.Sizing.ConsumerLatency == 10*time.Millisecond }},
		{"max-map-count", "262144", func(in *Input) bool { return in.Sizing.MaxMapCount == 262144 }},
	}
	for _, tc := range cases {
		in := New()
		if err := in.Set(tc.key, tc.value, "--"+tc.key); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.key, tc.value, err)
			continue
		}
		if !tc.check(in) {
			t.Errorf("Set(%s, %q) kept the wrong value: %+v", tc.key, tc.value, in)
		}
	}
}

func TestSetErrorsNameTheInput(t *testing.T) {
	cases := []struct{ key, value, want string }{
		{"brokers", "0", "at least 1"},
		{"brokers", "-3", "at least 1"},
		{"brokers", "three", "not a whole number"},
		{"partitions", "1.5", "not a whole number"},
		{"replication-factor", "0", "at least 1"},
		{"consumer-groups", "-1", "at least 0"},
		{"produce", "0MB/s", "positive"},
		{"produce", "-1MB/s", "positive"},
		{"produce", "300MB", "needs a unit per second"},
		{"produce", "300 furlongs/s", "unknown unit"},
		{"nic", "fast", "must start with a number"},
		{"messages-per-sec", "0", "positive"},
		{"messages-per-sec", "lots", "not a count"},
		{"message-size", "0", "out of range"},
		{"message-size", "1.5", "whole number of bytes"},
		{"message-size", "3GB", "out of range"},
		{"key-size", "-1", "out of range"},
		{"record-format", "v3", "use v0"},
		{"compression-ratio", "0", "from 0.1 to 1000"},
		{"compression-ratio", "NaN", "from 0.1 to 1000"},
		{"max-utilization", "0", "above 0"},
		{"max-utilization", "120%", "at most 1"},
		{"link-overhead", "-5%", "from 0 to 10"},
		{"link-overhead", "11", "from 0 to 10"},
		{"brokers-down", "-1", "whole number"},
		{"brokers-down", "100%", "below 100%"},
		{"consumer-latency", "10", "with a unit"},
		{"consumer-latency", "-5ms", "positive"},
		{"max-map-count", "1", "at least 2"},
		{"broker-limit", "0", "positive"},
		{"replicaton-factor", "3", `did you mean "replication-factor"`},
	}
	for _, tc := range cases {
		err := New().Set(tc.key, tc.value, "--"+tc.key)
		var ie *Error
		if !errors.As(err, &ie) || ie.Where != "--"+tc.key {
			t.Errorf("Set(%s, %q) = %v, want an Error at --%s", tc.key, tc.value, err, tc.key)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %q) = %q, want it to say %q", tc.key, tc.value, err, tc.want)
		}
		if !errors.Is(err, ErrInvalid) && !errors.Is(err, units.ErrSyntax) {
			t.Errorf("Set(%s, %q) error %v wraps neither ErrInvalid nor units.ErrSyntax", tc.key, tc.value, err)
		}
		if Check(tc.key, tc.value) == nil && !strings.Contains(tc.want, "did you mean") {
			t.Errorf("Check(%s, %q) accepted what Set refused", tc.key, tc.value)
		}
	}
}

func TestDefaults(t *testing.T) {
	in := New()
	if in.Message.Format != model.FormatV2 || in.Message.BatchSize != 16384 || in.Message.CompressionRatio != 1 ||
		in.Cluster.MaxUtilization != 0.8 || in.Sizing.MaxMapCount != 65530 || len(in.Given()) != 0 {
		t.Errorf("defaults: %+v", in)
	}
}

type kv = [2]string

func TestSizingMode(t *testing.T) {
	cases := []struct {
		set  []kv
		want bool
	}{
		{[]kv{{"produce", "1MB/s"}, {"nic", "1Gbit/s"}}, true},
		{[]kv{{"messages-per-sec", "1M"}, {"message-size", "100"}, {"disk-read", "1GB/s"}}, true},
		{[]kv{{"messages-per-sec", "1M"}, {"disk-write", "1GB/s"}}, false}, // no byte rate
		{[]kv{{"produce", "1MB/s"}}, false},                                // no capacity
		{[]kv{{"produce", "1MB/s"}, {"nic", "1Gbit/s"}, {"brokers", "3"}}, false},
	}
	for _, tc := range cases {
		in := New()
		for _, p := range tc.set {
			if err := in.Set(p[0], p[1], "--"+p[0]); err != nil {
				t.Fatal(err)
			}
		}
		if got := in.SizingMode(); got != tc.want {
			t.Errorf("%v: sizing mode %v, want %v", tc.set, got, tc.want)
		}
	}
}

func TestModelCombinations(t *testing.T) {
	cases := []struct {
		name  string
		set   []kv
		where string // "" = valid
		want  string
	}{
		{"nothing", nil, "-", "nothing to model"},
		{"both rates", []kv{{"produce", "1MB/s"}, {"messages-per-sec", "1000"}}, "--messages-per-sec", "not both"},
		{"key without size", []kv{{"messages-per-sec", "1000"}, {"key-size", "8"}}, "--key-size", "--message-size"},
		{"latency without messages", []kv{{"produce", "1MB/s"}, {"consumer-latency", "1ms"}}, "--consumer-latency", "message rate"},
		{"throughput without bytes", []kv{{"messages-per-sec", "1000"}, {"partition-throughput", "1MB/s"}}, "--partition-throughput", "byte rate"},
		{"down without brokers", []kv{{"brokers-down", "1"}}, "--brokers-down", "needs --brokers"},
		{"sizing with a count down", []kv{{"produce", "1MB/s"}, {"nic", "1Gbit/s"}, {"replication-factor", "3"}, {"brokers-down", "1"}}, "", ""},
		{"sizing with a share down", []kv{{"produce", "1MB/s"}, {"nic", "1Gbit/s"}, {"brokers-down", "20%"}}, "--brokers-down", "give a count"},
		{"sizing with a broker limit", []kv{{"produce", "1MB/s"}, {"disk-write", "1GB/s"}, {"broker-limit", "60MB/s"}}, "--broker-limit", "needs --brokers"},
		{"latency with bytes and size", []kv{{"produce", "1MB/s"}, {"message-size", "100"}, {"consumer-latency", "1ms"}}, "", ""},
		{"messages alone", []kv{{"messages-per-sec", "1M"}, {"consumer-latency", "10ms"}}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := New()
			for _, p := range tc.set {
				if err := in.Set(p[0], p[1], "--"+p[0]); err != nil {
					t.Fatal(err)
				}
			}
			_, _, _, err := in.Model()
			if tc.where == "" {
				if err != nil {
					t.Fatalf("Model: %v", err)
				}
				return
			}
			var ie *Error
			if tc.where == "-" {
				tc.where = ""
			}
			if !errors.As(err, &ie) || ie.Where != tc.where || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Model() = %v, want an error at %s saying %q", err, tc.where, tc.want)
			}
		})
	}
}

func TestBrokersDownPercent(t *testing.T) {
	for _, tc := range []struct {
		brokers, want int
		pct           string
	}{{5, 1, "20%"}, {10, 2, "20%"}, {3, 1, "20%"}, {6, 2, "33.3%"}, {6, 3, "33.4%"}, {6, 2, "33.3333333333333333%"}, {4, 0, "0%"}} {
		in := New()
		if err := in.Set("brokers", strconv.Itoa(tc.brokers), "--brokers"); err != nil {
			t.Fatal(err)
		}
		if err := in.Set("brokers-down", tc.pct, "--brokers-down"); err != nil {
			t.Fatal(err)
		}
		c, _, _, err := in.Model()
		if err != nil || c.BrokersDown != tc.want {
			t.Errorf("%d brokers, %s down = %d (%v), want %d", tc.brokers, tc.pct, c.BrokersDown, err, tc.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]float64{"1500000": 1.5e6, "1.5M": 1.5e6, "150k": 150e3, "150K/s": 150e3, "2G": 2e9, " 7 ": 7} {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "1.5MB", "1e400", "Inf", "x1"} {
		if _, err := ParseCount(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseCount(%q) error = %v, want ErrInvalid", in, err)
		}
	}
}

func FuzzSet(f *testing.F) {
	for _, k := range Keys {
		f.Add(k.Name, k.Default)
	}
	for _, v := range []string{"300MB/s", "1.5M", "20%", "10ms", "v1", "-1", "1e309", "0x10", "NaN", "+Inf"} {
		f.Add("produce", v)
		f.Add("brokers-down", v)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		in := New()
		err := in.Set(key, value, "--"+key)
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) || ie.Where != "--"+key {
				t.Fatalf("Set(%q, %q) = %v: not an Error at the flag", key, value, err)
			}
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, units.ErrSyntax) {
				t.Fatalf("Set(%q, %q) = %v wraps no sentinel", key, value, err)
			}
			return
		}
		// Whatever Set accepts, the model must accept or refuse cleanly, never panic.
		if c, tr, s, err := in.Model(); err == nil {
			if c.Brokers == 0 {
				c.Brokers, c.ReplicationFactor = 3, 3
			}
			_, _ = model.Evaluate(c, tr, s)
		}
	})
}
