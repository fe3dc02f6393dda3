package trial

import (
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

func TestWarmSpec(t *testing.T) {
	for _, c := range []struct {
		name string
		nic  float64
		want float64
	}{
		{"loopback", 0, warmRate},
		{"16 Mbit/s links", 2e6, 0.4 * 2e6 / (100 * 1.15)},
		{"fast links", 1.25e9, warmRate},
	} {
		s := warmSpec(&Where{NIC: c.nic}, 30*time.Second)
		if s.Rate != c.want || s.MessageSize != warmSize || s.Warmup != 0 || s.Duration != 30*time.Second {
			t.Errorf("%s: rate %v size %d warm-up %v duration %v; want rate %v", c.name, s.Rate, s.MessageSize, s.Warmup, s.Duration, c.want)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestJITAt(t *testing.T) {
	sample := func(jit ...probe.Num) probe.Sample {
		x := probe.Sample{Brokers: map[int32]*probe.BrokerSample{}}
		for i, v := range jit {
			x.Brokers[int32(i+1)] = &probe.BrokerSample{JIT: v}
		}
		return x
	}
	s := &probe.Series{}
	for i := range 8 {
		s.Samples = append(s.Samples, sample(probe.Num(i), probe.Missing, probe.Num(i+2)))
	}
	// First 5 samples: broker 1 0..4, broker 3 2..6: mean 3. Last 5 (3..7): broker 1 3..7,
	// broker 3 5..9: mean 6. A start past the end is clamped to the last 5.
	for _, c := range []struct {
		from int
		want probe.Num
	}{{0, 3}, {3, 6}, {6, 6}, {-2, 3}} {
		if got := jitAt(s, c.from); got != c.want {
			t.Errorf("jitAt(%d) = %v, want %v", c.from, got, c.want)
		}
	}
	if got := jitAt(&probe.Series{Samples: []probe.Sample{sample(probe.Missing)}}, 0); got.OK() {
		t.Errorf("no readings: %v, want missing", got)
	}
	w := Warmth{Rate: 6957, Duration: 30 * time.Second, Protocol: "SASL_SSL", JITStart: 1.03, JITEnd: 0.35}
	if got, want := w.String(), "30 s at 6,957 msgs/s of 100 B through SASL_SSL: each broker's JIT compiling 1.03 s/s in the first 5 s, 0.35 in the last"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
