//go:build integration

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/localkafka/nictest"
)

// TestScenarioTLSCost runs `plimsoll scenario run tls-cost --mode short` with SASL_SSL (TLS and
// SCRAM together) as the secure side, each side's 1-broker cluster behind emulated 1 Gbit/s NICs:
// one repetition a side, 100 KiB messages at 200 msgs/s (164 Mbit/s each way, well inside the
// links). So TLS and SASL are checked to work through emulated NICs, which put the broker in a
// namespace of its own, at no cost to the suite beyond the links' set-up. TLS costs the broker
// per byte it encrypts and decrypts (and, for consumers, the zero-copy send PLAINTEXT has), so
// with large messages its CPU per message must come out above PLAINTEXT's; the report must
// render; and the secure side's load must have crossed its broker's shaped link. The CPU
// compared is the brokers' user CPU less their JIT compilers' (the scenario's chart): crypto is
// user time, while this kernel charges the links' softirq work as system time to whichever
// process it interrupts, which differed between two fresh brokers as much as TLS's cost.
func TestScenarioTLSCost(t *testing.T) {
	if err := localkafka.CheckNIC(); err != nil {
		nictest.SkipOrFail(t, err)
	}
	rec, out := runScenario(t, "tls-cost", "", map[string]string{"listeners": "sasl_ssl", "nic": "1Gbit/s"})
	if len(rec.Failures) > 0 {
		t.Errorf("failures: %q", rec.Failures)
	}
	if len(rec.Charts) != 2 || len(rec.Charts[0].Series) != 1 || len(rec.Charts[0].Series[0].Points) != 2 {
		t.Fatalf("charts %+v: want the brokers' CPU per message at PLAINTEXT and SASL_SSL, and the relative rates", rec.Charts)
	}
	cpu := rec.Charts[0].Series[0].Points
	t.Logf("brokers' user CPU less JIT per message: PLAINTEXT %.1f µs, SASL_SSL %.1f µs (%.2fx)", cpu[0].Y, cpu[1].Y, cpu[1].Y/cpu[0].Y)
	for _, f := range rec.Findings {
		if strings.HasPrefix(f.Name, "broker CPU per message with system time") {
			t.Logf("%s: %.2f", f.Name, f.Value)
		}
	}
	if !(cpu[1].Y > cpu[0].Y) {
		t.Errorf("brokers' user CPU less JIT per message with SASL_SSL %.1f µs, PLAINTEXT %.1f µs: want SASL_SSL above", cpu[1].Y, cpu[0].Y)
	}
	warmedThrough(t, filepath.Join(out, "scenario.log"), "PLAINTEXT", "SASL_SSL")
	secure, _ := filepath.Glob(filepath.Join(out, "run-sasl_ssl", "b-*"))
	if len(secure) != 1 {
		t.Fatalf("the SASL_SSL side's repetitions: %v, want one", secure)
	}
	in := useRow(t, useOf(t, secure[0]), "broker 1", "network in").Utilisation
	t.Logf("SASL_SSL side, broker 1's link in: %.1f%% of its NIC (%s)", in.Mean.Or(0), in.Metric)
	if in.Metric != "link bytes in ÷ NIC" || !(in.Mean.Or(0) > 5) {
		t.Errorf("broker 1's network in over SASL_SSL: %+v; want the shaped link's bytes, about 16%% of 1 Gbit/s", in)
	}
}

// warmedThrough checks that the scenario's log says each arm's JIT warm-up went through the
// listener the arm measures, in the order given: a secure arm warmed over PLAINTEXT compiles its
// TLS and SASL code inside the measured window.
func warmedThrough(t *testing.T, log string, protocols ...string) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(b), "\n") {
		if _, rest, ok := strings.Cut(l, "warmed: "); ok {
			_, p, _ := strings.Cut(rest, " through ")
			p, _, _ = strings.Cut(p, ":")
			got = append(got, p)
		}
	}
	if !slices.Equal(got, protocols) {
		t.Errorf("the arms' warm-ups went through %q, want %q (%s)", got, protocols, log)
	}
}
