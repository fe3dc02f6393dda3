//go:build integration

package main

import "testing"

// TestScenarioTLSCost runs `plimsoll scenario run tls-cost --mode short`: one repetition a
// side of PLAINTEXT against SSL, each on a fresh 1-broker cluster (as the A/B tests keep their
// clusters cheap), 100 KiB messages at 100 msgs/s. TLS costs the broker per byte it encrypts and
// decrypts (and, for consumers, the zero-copy send PLAINTEXT has), so with large messages its
// CPU per message must come out above PLAINTEXT's; the report must render.
func TestScenarioTLSCost(t *testing.T) {
	rec, _ := runScenario(t, "tls-cost", "", nil)
	if len(rec.Failures) > 0 {
		t.Errorf("failures: %q", rec.Failures)
	}
	if len(rec.Charts) != 2 || len(rec.Charts[0].Series) != 1 || len(rec.Charts[0].Series[0].Points) != 2 {
		t.Fatalf("charts %+v: want the brokers' CPU per message at PLAINTEXT and SSL, and the relative rates", rec.Charts)
	}
	cpu := rec.Charts[0].Series[0].Points
	t.Logf("brokers' CPU per message: PLAINTEXT %.1f µs, SSL %.1f µs (%.2fx)", cpu[0].Y, cpu[1].Y, cpu[1].Y/cpu[0].Y)
	if !(cpu[1].Y > cpu[0].Y) {
		t.Errorf("brokers' CPU per message with SSL %.1f µs, PLAINTEXT %.1f µs: want SSL above", cpu[1].Y, cpu[0].Y)
	}
}
