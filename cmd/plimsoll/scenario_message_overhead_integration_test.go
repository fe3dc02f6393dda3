//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// messageOverheadCheck is the Heroku seed's experiment on the emulated NICs of the cluster in
// dir, through `plimsoll scenario run message-overhead --mode short`: where the network binds,
// the sustainable rates of 100- and 108-byte records differ by the ratio of their wire bytes,
// and plimsoll model with the same NIC rate predicts each. Produce only (rf 3, so each broker's
// inbound link carries t: its leaders' produce plus its follower fetches), acks=1 so that the
// producer is not held back by latency, and judged by throughput alone: a shortfall, or the
// followers falling behind (--min-replicated), not a latency SLO.
//
// One search per size placed the 100 B boundary anywhere in 17,185-17,810 msgs/s on this host
// (about ±2%), as much as the 2-point check allows. So the scenario searches each size twice,
// in both orders, and the check uses the geometric mean of the two (docs/heroku-check.md).
func messageOverheadCheck(t *testing.T, dir string) {
	rec, out := runScenario(t, "message-overhead", dir, nil)
	t.Logf("%d trials in %d searches", moTrials(t, rec, out), len(rec.Commands))
	if len(rec.Failures) > 0 {
		t.Fatalf("the searches failed: %q", rec.Failures)
	}
	boundary := moBoundaries(t, rec)
	wire := map[int]float64{}
	for _, size := range []int{100, 108} {
		m := modelMax(t, size)
		wire[size] = m.Cluster.Wire
		got := boundary[size] / m.Max
		t.Logf("%d B: measured %.0f msgs/s, model %.0f (%.3f of it)", size, boundary[size], m.Max, got)
		if math.Abs(got-1) > 0.10 {
			t.Errorf("%d B: measured boundary %.0f msgs/s is %.3f of the model's %.0f, want within 10%%", size, boundary[size], got, m.Max)
		}
		if f := moFinding(rec, size); f == nil || f.Model == nil || math.Abs(*f.Model/m.Max-1) > 1e-3 {
			t.Errorf("%d B: the record's finding %+v does not carry plimsoll model's %.0f msgs/s", size, f, m.Max)
		}
	}
	want := wire[100] / wire[108]
	got := boundary[108] / boundary[100]
	t.Logf("108 B / 100 B: sustainable rates %.4f, wire bytes predict %.4f", got, want)
	if math.Abs(got-want) > 0.02 {
		t.Errorf("108/100 B rate ratio %.4f, wire bytes predict %.4f: more than 2 points apart", got, want)
	}
}

// moBoundaries reads each size's boundaries from the record's chart (two a size: both
// orders), checks its series and returns their geometric mean per size.
func moBoundaries(t *testing.T, rec results.Scenario) map[int]float64 {
	t.Helper()
	if len(rec.Charts) != 2 || len(rec.Charts[0].Series) != 3 || rec.Charts[1].Series[2].Kind != results.SeriesArticle {
		t.Fatalf("charts %+v: want the rates (each search, mean, model) and the ratio with Heroku's", rec.Charts)
	}
	found := map[int][]float64{}
	for _, p := range rec.Charts[0].Series[0].Points {
		found[int(p.X)] = append(found[int(p.X)], p.Y)
	}
	boundary := map[int]float64{}
	for size, bs := range found {
		if len(bs) != 2 {
			t.Fatalf("%d B: %d boundaries, want 2", size, len(bs))
		}
		boundary[size] = math.Sqrt(bs[0] * bs[1])
		t.Logf("%d B: boundaries %.0f and %.0f msgs/s, mean %.0f", size, bs[0], bs[1], boundary[size])
	}
	if len(boundary) != 2 {
		t.Fatalf("boundaries found for %v, want 100 and 108 B", boundary)
	}
	return boundary
}

// moTrials logs each search's trials (rate, verdict, when its window began) and boundaries, and
// returns how many trials ran.
func moTrials(t *testing.T, rec results.Scenario, out string) int {
	t.Helper()
	trials := 0
	for _, c := range rec.Commands {
		sf, err := results.LoadSearch(filepath.Join(out, c.Dir, "results.jsonl"))
		if err != nil {
			t.Errorf("%s: %v", c.Dir, err)
			continue
		}
		for _, tr := range sf.Trials {
			trials++
			t.Logf("%s: %d B at %.0f msgs/s: %s (%s), window from %s; %s", c.Dir, tr.Step.Size, tr.Step.Rate, tr.Verdict.State, tr.Verdict.Bottleneck, tr.Window.Start.Format("15:04:05"), moWhy(tr))
		}
		for _, p := range sf.Points {
			t.Logf("%s, %d B: ok at %.0f, overloaded at %.0f msgs/s (%d trials)", c.Dir, p.Size, p.Ceiling.SafeRate, p.Ceiling.UnsafeRate, p.Trials)
		}
	}
	return trials
}

// moWhy is what a trial's log line adds to its verdict: the reasons of one not ok, and the
// brokers' JIT compilers' CPU, which names a trial judged on brokers still warming up.
func moWhy(tr results.Trial) string {
	jit := 0.0
	for _, c := range tr.CompilerCPU {
		jit += c
	}
	why := fmt.Sprintf("brokers' JIT compilers %.2f cores", jit)
	for _, r := range tr.Verdict.Reasons {
		why += "; " + r.Criterion + ": " + r.Text
	}
	return why
}

// modelOut is what the check reads of plimsoll model --json.
type modelOut struct {
	Max     float64 `json:"max_messages_per_sec"`
	Cluster struct {
		Wire float64 `json:"wire_bytes_per_message"`
	} `json:"cluster"`
}

// modelMax asks plimsoll model for the 16 Mbit/s links' sustainable rate of size-byte records.
func modelMax(t *testing.T, size int) modelOut {
	t.Helper()
	stdout, stderr, code := plimsoll(t, "model", "--brokers", "3", "--replication-factor", "3", "--consumer-groups", "0",
		"--messages-per-sec", "1", "--message-size", fmt.Sprint(size), "--nic", "16Mbit/s", "--max-utilization", "1", "--json")
	if code != 0 {
		t.Fatalf("model: exit %d\n%s", code, stderr)
	}
	var m modelOut
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// moFinding is the record's finding of size-byte messages' rate.
func moFinding(rec results.Scenario, size int) *results.Finding {
	for i, f := range rec.Findings {
		if f.Name == fmt.Sprintf("%d B messages: sustainable rate", size) {
			return &rec.Findings[i]
		}
	}
	return nil
}
