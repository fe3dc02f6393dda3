//go:build integration

package main

import (
	"encoding/json"
	"testing"
)

// TestCompareSameWorkload runs one workload twice on the local cluster and compares the runs:
// A against A must show no significant difference in throughput (exit 0). The runs are at a
// fixed, modest rate, so both produce the target; the per-second test may find a tiny
// difference significant, and the practical threshold keeps it out of the verdict.
func TestCompareSameWorkload(t *testing.T) {
	up(t)
	var dirs []string
	for _, prefix := range []string{"plimsoll-it-compare-a-", "plimsoll-it-compare-b-"} {
		out := t.TempDir()
		_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "1000", "--message-size", "512",
			"--duration", "10s", "--warmup", "4s", "--topic-prefix", prefix, "--out", out, "--slo-p99", "0",
			"--drain-timeout", "10s")
		if code != 0 && code != ExitOverloaded && code != ExitInvalid {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		dirs = append(dirs, out)
	}
	stdout, stderr, code := plimsoll(t, "compare", dirs[0], dirs[1])
	t.Logf("plimsoll compare:\n%s", stdout)
	if code != ExitOK {
		t.Fatalf("compare: exit %d, want 0 (no significant difference)\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = plimsoll(t, "compare", "--json", dirs[0], dirs[1])
	if code != ExitOK {
		t.Fatalf("compare --json: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Figures []struct {
			Name  string `json:"name"`
			Basis string `json:"basis"`
		} `json:"figures"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	names := map[string]string{}
	for _, f := range doc.Figures {
		names[f.Name] = f.Basis
	}
	if doc.Verdict != "no significant difference" || names["produced"] != "seconds" || names["publish latency p99.9"] == "" ||
		names["CPU per message"] == "" || names["utilisation"] == "" {
		t.Errorf("verdict %q, figures %v: want no difference; produced over seconds; p99.9, CPU per message and utilisation present",
			doc.Verdict, names)
	}
}
